// The docs' tables of the resource's inputs and outputs restate src/core/resource.ts: each names
// exactly the defined properties, and marks as secret, always, exactly the always-secret outputs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tableRows } from "./markdown";
import { ALWAYS_SECRET_OUTPUTS, INPUTS, OUTPUT_NAMES } from "../../src/core/resource";

const REPO = join(__dirname, "..", "..");

/** The property names a row's first cell lists (`a`, or `a`, `b`). */
const names = (cell: string): string[] => [...cell.matchAll(/`(\w+)`/g)].map((match) => match[1]!);

describe("docs/dynamic-resource.md", () => {
  const page = readFileSync(join(REPO, "docs", "dynamic-resource.md"), "utf8");

  it("the inputs table names the dynamic face's inputs", () => {
    const listed = tableRows(page, "input").flatMap((row) => names(row[0]!));
    expect(listed.sort()).toEqual(Object.keys(INPUTS).sort());
  });

  it("the outputs table names every output, and says 'secret, always' of exactly the always-secret ones", () => {
    const rows = tableRows(page, "output");
    expect(rows.flatMap((row) => names(row[0]!)).sort()).toEqual([...OUTPUT_NAMES].sort());
    const always = rows
      .filter((row) => /\*\*secret\*\*, always/.test(row.join(" ")))
      .flatMap((row) => names(row[0]!));
    expect(always).toEqual([...ALWAYS_SECRET_OUTPUTS]);
  });
});
