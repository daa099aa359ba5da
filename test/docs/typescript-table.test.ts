// docs/dynamic-resource.md, "TypeScript versions", says what `pulumi preview` and `pulumi up` do with
// each tsconfig under TypeScript 5.9 and 6.0. Its table is held here to the cases
// test/e2e/typescript.test.ts proves through the engine (test/e2e/typescript-setups.ts): every row
// is a case's tsconfig, every cell its outcome, and no case is left out. The versions of ts-node it
// names are the SDK's vendored one and the one the engine test installs.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TS_NODE, examplesCompilerOptions, tsconfigRows, type Outcome } from "../e2e/typescript-setups";

const REPO = join(__dirname, "..", "..");
const PAGE = "docs/dynamic-resource.md";
const HEADING = "## TypeScript versions";
const COLUMNS = ["TypeScript 5.9", "TypeScript 6.0"] as const;

/** The lines of the page's section under `heading`, up to the next heading of its level or above. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start === -1) throw new Error(`${PAGE} has no "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex(
    (line, index) => index > start && /^#+ /.test(line) && /^#+/.exec(line)![0].length <= level,
  );
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** The cells of a Markdown table row, trimmed (`|` inside a cell is written `\|`). */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The first table of the section: its header and its rows. */
function firstTable(lines: string[]): { header: string[]; rows: string[][] } {
  const start = lines.findIndex((line) => line.startsWith("|"));
  if (start === -1) throw new Error(`no table under "${HEADING}"`);
  const block: string[] = [];
  for (let index = start; index < lines.length && lines[index]!.startsWith("|"); index++)
    block.push(lines[index]!);
  const [header, , ...rows] = block;
  return { header: cells(header!), rows: rows.map(cells) };
}

/** Whether a cell says what the outcome is: "works", "works; not type-checked", "fails with TS5107 ...". */
function cellSays(cell: string, outcome: Outcome): boolean {
  const codes = [...new Set(cell.match(/TS\d{4}/g) ?? [])].sort();
  if ("fails" in outcome)
    return cell.startsWith("fails") && codes.join() === [...outcome.fails].sort().join();
  if (!cell.startsWith("works") || codes.length > 0) return false;
  return outcome.typeChecked ? !cell.includes("not type-checked") : cell.includes("not type-checked");
}

const page = readFileSync(join(REPO, PAGE), "utf8");
const body = section(page, HEADING);
const table = firstTable(body);
const rows = tsconfigRows(REPO);

describe(`${PAGE}, "TypeScript versions": what pulumi does, as the engine test proves it`, () => {
  it("has a column for each TypeScript the cases run", () => {
    expect(table.header.slice(1)).toEqual([...COLUMNS]);
  });

  it("has exactly the cases' tsconfigs as rows, in their order", () => {
    expect(table.rows.map((row) => row[0])).toEqual(rows.map((row) => row.label));
  });

  it("says in every cell what pulumi preview does with that tsconfig and that TypeScript", () => {
    const wrong: string[] = [];
    for (const cellsOfRow of table.rows) {
      const row = rows.find((candidate) => candidate.label === cellsOfRow[0]);
      if (row === undefined) continue; // reported by the test above
      COLUMNS.forEach((column, index) => {
        const version = column.slice("TypeScript ".length) as "5.9" | "6.0";
        const cell = cellsOfRow[index + 1] ?? "";
        if (!cellSays(cell, row.outcome[version]))
          wrong.push(
            `${row.label}, ${column}: the page says "${cell}", the engine: ${JSON.stringify(row.outcome[version])}`,
          );
      });
    }
    expect(wrong).toEqual([]);
  });

  it("the examples' row is every TypeScript example's tsconfig", () => {
    const examples = readdirSync(join(REPO, "examples")).filter((example) =>
      existsSync(join(REPO, "examples", example, "tsconfig.json")),
    );
    expect(examples.length).toBeGreaterThan(1);
    for (const example of examples) {
      const tsconfig = JSON.parse(readFileSync(join(REPO, "examples", example, "tsconfig.json"), "utf8")) as {
        compilerOptions: Record<string, unknown>;
      };
      expect(tsconfig.compilerOptions, example).toEqual(examplesCompilerOptions(REPO));
    }
  });

  it("names the ts-node versions that decide it: the SDK's own, and the one a project may add", () => {
    const vendored = readdirSync(join(REPO, "node_modules", "@pulumi", "pulumi", "vendor"))
      .filter((name) => name.startsWith("ts-node@"))
      .map((name) => name.slice("ts-node@".length));
    expect(vendored).toHaveLength(1);
    const text = body.join(" ").replace(/\s+/g, " ");
    const named = [...text.matchAll(/ts-node`? (\d+\.\d+(?:\.\d+)?)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(1);
    for (const version of named) expect([vendored[0], TS_NODE]).toContain(version);
    expect(named).toContain(vendored[0]);
    expect(named).toContain(TS_NODE);
  });
});
