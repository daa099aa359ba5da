// One formatter for the repository: npm run format (writes), npm run format:check (part of
// npm run check, which npm test runs). Prettier's defaults (double quotes, semicolons, trailing commas,
// parentheses around arrow parameters, two spaces) are the house style; only the width is set, to a
// line a reader can hold beside another file. Prettier does not break strings or comments.
/** @type {import("prettier").Config} */
export default {
  printWidth: 110,
};
