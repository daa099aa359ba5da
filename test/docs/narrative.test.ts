// The repository states behaviour, not the history of how it was found, and cites only itself.
//
// 1. No file under src/, test/, scripts/, bench/, docs/ or examples/, nor the README, cites a file
//    that lives outside the repository: the product brief (PRODUCT.md), the API document's file
//    (api-spec.md), the notes beside them (pulumi-dynamic-notes.md), a `../shared` path, or an
//    absolute path into the machine's workspace (`/work/`, not inside a URL). A reader of a clone
//    has none of them: a promise is cited by the README or a docs/ page and its heading, or stated.
// 2. No test title (the first argument of describe, it, test or suite, found with the TypeScript
//    parser, template literals included) names an attack round, a finding, a bug label, an issue,
//    a turn or session, a "second look" or a regression: a title says what behaviour it guards.
// 3. No test file's text (comments included) names an attack round, a finding number, an issue
//    number, a turn or session number or a "second look" either.
//
// 4. "Face" means one of the package's two Pulumi resources (the dynamic face and the native face,
//    README.md): no text counts faces otherwise ("five faces" named the CLI, client and emulator too).
//
// The patterns are narrow on purpose (a number or an ordinal must come with the word), so that
// "found by name", "a round trip", "attacker.example" or redteam.test.ts pass: the last describe
// holds the checker to both sides.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = join(__dirname, "..", "..");
const THIS_FILE = "test/docs/narrative.test.ts";

/** Where the repository's own text lives (repository-relative prefixes, and single files). */
const CHECKED = /^(?:src|test|scripts|bench|docs|examples)\/|^README\.md$/;

/** A citation of something outside the repository. */
const OUTSIDE_CITATION = new RegExp(
  [
    String.raw`\b(?:PRODUCT|api-spec|pulumi-dynamic-notes)\.md\b`,
    String.raw`(?:\.\./)+shared\b`,
    // An absolute path into the workspace; `https://example.com/work/x` is a URL's path, not this.
    String.raw`(?<![\w.:/-])/work/`,
  ].join("|"),
);

/** History in a test file's text: attack rounds, numbered findings, issues, turns, sessions. */
const HISTORY_IN_TEXT = new RegExp(
  [
    String.raw`\b(?:first|second|third|fourth|fifth|final|last|previous|latest|outside)(?:\s+outside)?\s+attack\b`,
    String.raw`\battack\s+(?:round|#?\d+)\b`,
    String.raw`\bred[- ]team\b`,
    String.raw`\bfindings?\s*#?\d+`,
    String.raw`\bissue\s*#?\d+`,
    String.raw`\b(?:turn|session|deliverable)\s*#?\d+\b`,
    String.raw`\bsecond look\b`,
  ].join("|"),
  "i",
);

/** What a title may not hold beyond that: "the finding", a regression, a bug or finding label (B1, F5). */
const HISTORY_IN_TITLE = new RegExp(
  [HISTORY_IN_TEXT.source, String.raw`\bthe finding\b`, String.raw`\bregressions?\b`].join("|"),
  "i",
);
const LABEL_IN_TITLE = /\b[BF]\d{1,2}\b/;

const TITLED_CALLS = new Set(["describe", "it", "test", "suite"]);

/** Faces counted as anything but two: the word has one meaning, the two Pulumi resources. */
const FACES_MISCOUNTED = /\b(?:one|three|four|five|six|seven|eight|[013-9]|\d{2,}) (?:\w+ )?faces\b/i;

/** The name a call chain starts from: `it` for `it.concurrent.each(rows)(...)`. */
function calleeRoot(expression: ts.Expression): string | undefined {
  let node: ts.Expression = expression;
  for (;;) {
    if (ts.isPropertyAccessExpression(node) || ts.isCallExpression(node)) node = node.expression;
    else return ts.isIdentifier(node) ? node.text : undefined;
  }
}

/** Every test title in a file, as written (a template literal with its `${...}` parts), with its line. */
export function testTitles(path: string, text: string): { title: string; line: number }[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const titles: { title: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && TITLED_CALLS.has(calleeRoot(node.expression) ?? "")) {
      const first = node.arguments[0];
      if (first !== undefined && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first))) {
        const line = source.getLineAndCharacterOfPosition(first.getStart(source)).line + 1;
        titles.push({ title: first.getText(source).slice(1, -1), line });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return titles;
}

/** What the checks find in these files (repository-relative path -> text), one line per problem. */
export function narrativeProblems(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [path, text] of files) {
    if (path === THIS_FILE) continue; // it spells the patterns out
    text.split("\n").forEach((line, index) => {
      const citation = OUTSIDE_CITATION.exec(line);
      if (citation !== null)
        problems.push(`${path}:${index + 1} cites ${citation[0]}, which is not in the repository`);
      const faces = FACES_MISCOUNTED.exec(line);
      if (faces !== null)
        problems.push(`${path}:${index + 1} counts "${faces[0]}": a face is one of the two Pulumi resources`);
      const history = /^test\/.*\.[cm]?[jt]s$/.test(path) ? HISTORY_IN_TEXT.exec(line) : null;
      if (history !== null)
        problems.push(`${path}:${index + 1} tells history ("${history[0]}"): say the behaviour instead`);
    });
    if (!/^test\/.*\.test\.[cm]?ts$/.test(path)) continue;
    for (const { title, line } of testTitles(path, text)) {
      const found = HISTORY_IN_TITLE.exec(title) ?? LABEL_IN_TITLE.exec(title);
      if (found !== null && !HISTORY_IN_TEXT.test(title)) {
        problems.push(
          `${path}:${line} the title names "${found[0]}": name the behaviour it guards (${title})`,
        );
      }
    }
  }
  return problems;
}

/** The repository's own text files: tracked, or new and not ignored, under the checked places. */
function repositoryTexts(): Map<string, string> {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const texts = new Map<string, string>();
  for (const path of listed.split("\0")) {
    if (!CHECKED.test(path)) continue;
    let text: string;
    try {
      text = readFileSync(join(REPO, path), "utf8");
    } catch {
      continue; // deleted in the working tree
    }
    if (!text.includes("\0")) texts.set(path, text);
  }
  return texts;
}

describe("the repository states behaviour and cites only itself", () => {
  const texts = repositoryTexts();

  it("checks the places that matter: src/, test/, scripts/, bench/, docs/, examples/ and the README", () => {
    for (const place of ["src/", "test/", "scripts/", "bench/", "docs/", "examples/"])
      expect(
        [...texts.keys()].some((path) => path.startsWith(place)),
        place,
      ).toBe(true);
    expect(texts.has("README.md")).toBe(true);
    const titles = [...texts]
      .filter(([path]) => /^test\/.*\.test\.[cm]?ts$/.test(path))
      .reduce((sum, [path, text]) => sum + testTitles(path, text).length, 0);
    expect(titles).toBeGreaterThan(500);
  });

  it("no file cites a file outside the repository, and no test names an attack round, a finding or an issue", () => {
    expect(narrativeProblems(texts)).toEqual([]);
  });
});

describe("the narrative check itself", () => {
  const check = (path: string, text: string): string[] => narrativeProblems(new Map([[path, text]]));
  const titled = (title: string): string =>
    `import { describe, it } from "vitest";\ndescribe("x", () => {\n  it(${JSON.stringify(title)}, () => {});\n});\n`;

  it("flags citations of the files beside the repository, in code, tests, scripts and docs", () => {
    expect(check("test/a.test.ts", "// the product brief (PRODUCT.md) says so\n")).toHaveLength(1);
    expect(check("src/a.ts", "/** read from the API document (/work/shared/api-spec.md) */\n")).toHaveLength(
      1,
    );
    expect(check("docs/a.md", "See [the notes](../shared/pulumi-dynamic-notes.md).\n")).toHaveLength(1);
    expect(check("scripts/a.sh", "cat /work/wt/BRIEF.md\n")).toHaveLength(1);
    expect(check("bench/a.mjs", "// api-spec.md, section 4.1\n")).toHaveLength(1);
    expect(check("docs/a.md", "PRODUCT.md\n")[0]).toBe(
      "docs/a.md:1 cites PRODUCT.md, which is not in the repository",
    );
  });

  it("flags faces counted as anything but two, and passes the two faces", () => {
    expect(check("README.md", "One provider core, five faces:\n")).toEqual([
      'README.md:1 counts "five faces": a face is one of the two Pulumi resources',
    ]);
    expect(check("docs/a.md", "the 3 resource faces\n")).toHaveLength(1);
    expect(check("docs/a.md", "both faces and the CLI; the two faces compared; each face\n")).toEqual([]);
  });

  it("flags titles that name an attack round, a finding, a bug label, an issue or a regression", () => {
    for (const title of [
      "two Host headers are refused (second outside attack, F5)",
      "finding 6: --json redacts the token",
      "B3 reconcile.ts:58 — names are redacted",
      "webhooks list: names another team chose (issue 20)",
      "regressions: bugs the hostile tests found, fixed",
      "what the red team found: a form of a secret is secret",
      "the finding's program previews",
      "a principal decides (second look after the final attack)",
    ])
      expect(check("test/x.test.ts", titled(title)), title).not.toEqual([]);
    const [problem] = check("test/x.test.ts", titled("finding 7: escapes are shown"));
    expect(problem).toBe('test/x.test.ts:3 tells history ("finding 7"): say the behaviour instead');
    const [label] = check("test/x.test.ts", titled("F1 an answer is refused"));
    expect(label).toMatch(/^test\/x\.test\.ts:3 the title names "F1": name the behaviour it guards/);
  });

  it("passes behaviour that merely sounds alike: found by name, round trips, attacker.example, redteam.test.ts, URLs", () => {
    for (const title of [
      "our endpoint found by name after a lost answer is taken, not created twice",
      "round-trips a create and a read against the service",
      "a URL holding https://attacker.example/hook?k=${orders.signSecret} is read as text",
      "U+FFFE and U+00B2 are written as escapes",
      "the engine's own recovery alone does not duplicate",
    ])
      expect(check("test/x.test.ts", titled(title)), title).toEqual([]);
    expect(check("test/x.test.ts", "// see test/client/redteam.test.ts and regressions.test.ts\n")).toEqual(
      [],
    );
    expect(check("docs/a.md", "[a page](https://example.com/work/x) and one round trip\n")).toEqual([]);
    // History words in docs are for the reader to judge; only citations are checked there.
    expect(check("docs/a.md", "Found in the second outside attack.\n")).toEqual([]);
  });
});
