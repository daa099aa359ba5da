// The named character references the search reads are the HTML standard's, as the `entities`
// package's maps hold them: src/text/named-references.ts is generated from those maps
// (scripts/gen-named-references.mjs) and must not drift from them.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { LEGACY_REFERENCES, NAMED_REFERENCES, NUMERIC_REPLACEMENTS } from "../../src/text/named-references";

const require = createRequire(__filename);

describe("the named references the search reads", () => {
  it("are every name of the standard's table, each with its characters, and its legacy names", () => {
    const named = require("entities/lib/maps/entities.json") as Record<string, string>;
    const legacy = require("entities/lib/maps/legacy.json") as Record<string, string>;
    const numeric = require("entities/lib/maps/decode.json") as Record<string, number>;
    expect(NAMED_REFERENCES).toEqual(named);
    expect([...LEGACY_REFERENCES].sort()).toEqual(Object.keys(legacy).sort());
    expect(Object.fromEntries(Object.entries(NUMERIC_REPLACEMENTS).map(([k, v]) => [k, v]))).toEqual(numeric);
    // A few a person could spell a secret with, as the standard gives them.
    expect(NAMED_REFERENCES.fopf).toBe("\u{1d557}");
    expect(NAMED_REFERENCES.fflig).toBe("\ufb00");
    expect(NUMERIC_REPLACEMENTS[0x99]).toBe(0x2122);
  });
});
