// One formatter for the repository: npm run format (writes), npm run format:check (part of
// npm run check, which npm test runs). Prettier's defaults (double quotes, semicolons, trailing commas,
// parentheses around arrow parameters, two spaces) are the house style already; only the width is
// set. It was chosen by measuring what `prettier --write` would change at each width on this
// repository (scripts and tests included, Markdown excluded): 140 → 104 files and 4,575 lines,
// 160 → 93 files and 3,075 lines, 180 → 92 and 2,367, 200 → 91 and 2,176, 240 → 90 and 2,202.
// The code is wrapped by hand, not to a width: few lines pass 165 characters, and long calls and
// assertions are kept on one line, which a narrower width would break up.
/** @type {import("prettier").Config} */
export default {
  printWidth: 200,
};
