// The TypeScript setups the docs document (docs/dynamic-resource.md, "TypeScript versions": the
// table, the examples' tsconfig, the advice), and what `pulumi preview` does with each. One place for
// these facts: test/e2e/typescript.test.ts proves every case through the real engine, and
// test/docs/typescript-table.test.ts holds the page's table to them; test/types/package.test.ts
// type-checks the same tsconfigs with `tsc`.
//
// How Pulumi runs a TypeScript program (@pulumi/pulumi's cmd/run): with ts-node, the project's own
// if it has one, else the SDK's vendored ts-node 7.0.1, and the project's TypeScript. It merges the
// tsconfig's compilerOptions over defaults of its own, `module` and `moduleResolution` `nodenext`
// among them, so a tsconfig that sets `module` but no `moduleResolution` is compiled with
// `moduleResolution: nodenext`. ts-node 7 reports errors in the options (TS5103, TS5107, TS5110) as
// `tsc` does; ts-node 10 reports only errors in the program's files. A program whose package.json
// says `"type": "module"` is loaded with import(): without ts-node 10 in the project, Node.js strips
// its types and nothing type-checks it.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Pulumi's TypeScript project template (`pulumi new typescript`), verbatim. */
export const PULUMI_TEMPLATE: Record<string, unknown> = {
  strict: true,
  outDir: "bin",
  target: "es2020",
  module: "commonjs",
  moduleResolution: "node",
  sourceMap: true,
  experimentalDecorators: true,
  pretty: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
};
const { moduleResolution: _templateResolution, ...PULUMI_TEMPLATE_WITHOUT_RESOLUTION } = PULUMI_TEMPLATE;
export { PULUMI_TEMPLATE_WITHOUT_RESOLUTION };
/** Classic settings: what a CommonJS project from before node16 resolution looks like. */
export const CLASSIC = { module: "commonjs", moduleResolution: "node10", target: "es2022", strict: true };
export const NODENEXT = { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true };

/** The TypeScript versions the docs' table has a column for, and the one it warns against. */
export type TypeScriptVersion = "5.9" | "6.0" | "7.0";
/** What each is installed as: 6.0 is what this checkout tests with (the e2e base project has it). */
export const TYPESCRIPT_SPEC: Record<Exclude<TypeScriptVersion, "6.0">, string> = {
  "5.9": "5.9",
  "7.0": "7.0",
};
/** The ts-node a project may add to its devDependencies; Pulumi then uses it instead of its own 7.0.1. */
export const TS_NODE = "10.9";

export type Outcome =
  /** preview runs the program; `typeChecked`: a type error in it would stop the run. */
  | { works: true; typeChecked: boolean }
  /** preview fails with exactly these TypeScript errors. */
  | { fails: string[] };

/** A row of the docs' table: a tsconfig, and what `pulumi preview` does with it under each TypeScript. */
export interface TsconfigRow {
  /** The row's first cell in docs/dynamic-resource.md, as written. */
  label: string;
  id: string;
  compilerOptions(typescript: TypeScriptVersion): Record<string, unknown>;
  /** The program is an ES module (`"type": "module"` in its package.json). */
  esm?: boolean;
  /** Without ts-node in the project: the table's cells. */
  outcome: Record<"5.9" | "6.0", Outcome>;
}

const WORKS = { works: true, typeChecked: true } as const;
const fails = (...codes: string[]): Outcome => ({ fails: codes });

/** The examples' tsconfig (every TypeScript example shares it; test/docs checks they agree). */
export function examplesCompilerOptions(repo: string): Record<string, unknown> {
  const tsconfig = JSON.parse(
    readFileSync(join(repo, "examples", "quickstart", "tsconfig.json"), "utf8"),
  ) as {
    compilerOptions: Record<string, unknown>;
  };
  return tsconfig.compilerOptions;
}

export function tsconfigRows(repo: string): TsconfigRow[] {
  return [
    {
      label: "Pulumi's template (`pulumi new typescript`), unchanged",
      id: "template",
      compilerOptions: () => PULUMI_TEMPLATE,
      outcome: { "5.9": WORKS, "6.0": fails("TS5107") },
    },
    {
      label: 'the template + `"ignoreDeprecations": "6.0"`',
      id: "template-ignore-deprecations",
      compilerOptions: () => ({ ...PULUMI_TEMPLATE, ignoreDeprecations: "6.0" }),
      outcome: { "5.9": fails("TS5103"), "6.0": WORKS },
    },
    {
      label: "the template without `moduleResolution`",
      id: "template-no-resolution",
      compilerOptions: () => PULUMI_TEMPLATE_WITHOUT_RESOLUTION,
      outcome: { "5.9": fails("TS5110"), "6.0": fails("TS5110") },
    },
    {
      label: "`module` and `moduleResolution` `nodenext`, a CommonJS program",
      id: "nodenext",
      compilerOptions: () => NODENEXT,
      outcome: { "5.9": WORKS, "6.0": WORKS },
    },
    {
      label: '`module` and `moduleResolution` `nodenext`, an ES module program (`"type": "module"`)',
      id: "nodenext-esm",
      compilerOptions: () => NODENEXT,
      esm: true,
      outcome: { "5.9": { works: true, typeChecked: false }, "6.0": { works: true, typeChecked: false } },
    },
    {
      label: 'classic `commonjs` + `node10` (+ `"ignoreDeprecations": "6.0"` on 6.0)',
      id: "classic",
      compilerOptions: (typescript) =>
        typescript === "5.9" ? CLASSIC : { ...CLASSIC, ignoreDeprecations: "6.0" },
      outcome: { "5.9": WORKS, "6.0": WORKS },
    },
    {
      label: 'the examples\' (`commonjs`, `node10`, `"ignoreDeprecations": "6.0"`)',
      id: "examples",
      compilerOptions: () => examplesCompilerOptions(repo),
      outcome: { "5.9": fails("TS5103"), "6.0": WORKS },
    },
  ];
}

/** One `pulumi preview`: a row's tsconfig under one TypeScript, with or without ts-node 10 in the project. */
export interface TypeScriptCase {
  row: TsconfigRow;
  typescript: TypeScriptVersion;
  tsNode: boolean;
  /** The program has a type error (`const wrong: number = "..."`): shows whether anything type-checks it. */
  typeError: boolean;
  expected: Outcome;
  /** npm test runs these; npm run test:deep the others. */
  inNpmTest: boolean;
}

/**
 * Every case the engine test runs:
 * - each cell of the table (no ts-node, a program without type errors); npm test runs TypeScript
 *   6.0's two recommended setups, the template + ignoreDeprecations and nodenext;
 * - a type error in the CommonJS and ES module nodenext programs: ts-node type-checks the first,
 *   nothing the second;
 * - with ts-node 10 in the project: every cell that fails without it works (it reports no option
 *   errors), and the ES module program is type-checked.
 */
export function typescriptCases(repo: string): TypeScriptCase[] {
  const cases: TypeScriptCase[] = [];
  const rows = tsconfigRows(repo);
  const row = (id: string) => rows.find((candidate) => candidate.id === id)!;
  for (const tableRow of rows) {
    for (const typescript of ["5.9", "6.0"] as const) {
      cases.push({
        row: tableRow,
        typescript,
        tsNode: false,
        typeError: false,
        expected: tableRow.outcome[typescript],
        inNpmTest: typescript === "6.0" && ["template-ignore-deprecations", "nodenext"].includes(tableRow.id),
      });
      if (["nodenext", "nodenext-esm"].includes(tableRow.id)) {
        cases.push({
          row: tableRow,
          typescript,
          tsNode: false,
          typeError: true,
          expected: tableRow.esm === true ? { works: true, typeChecked: false } : fails("TS2322"),
          inNpmTest: false,
        });
      }
      if ("fails" in tableRow.outcome[typescript]) {
        cases.push({
          row: tableRow,
          typescript,
          tsNode: true,
          typeError: false,
          expected: WORKS,
          inNpmTest: false,
        });
      }
    }
  }
  for (const typescript of ["5.9", "6.0"] as const) {
    cases.push({
      row: row("nodenext-esm"),
      typescript,
      tsNode: true,
      typeError: true,
      expected: fails("TS2322"),
      inNpmTest: false,
    });
  }
  return cases;
}

/** A case's name in test titles, directories and stack names. */
export function caseId(testCase: TypeScriptCase): string {
  return [
    `ts${testCase.typescript}`,
    testCase.row.id,
    ...(testCase.tsNode ? ["ts-node"] : []),
    ...(testCase.typeError ? ["type-error"] : []),
  ].join("-");
}
