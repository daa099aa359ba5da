import { describe, expect, it } from "vitest";
import { cell, isoTime, jsonText, quoted, table } from "../../src/cli/output";
import { TOKEN } from "./helpers";

describe("output helpers", () => {
  it("a cell never shows the token, even one split by an invisible character", () => {
    const split = `token is ${TOKEN.slice(0, 6)}\u200b${TOKEN.slice(6)}!`;
    expect(cell(split, 200, [TOKEN])).toBe("token is [REDACTED]!");
    expect(cell(`${TOKEN}\n`, 200, [TOKEN])).toBe("[REDACTED]");
  });

  it("a cell is bounded, marks the cut, and holds no control character", () => {
    const shown = cell(`a\u0007b\u001b[2Jc${"d".repeat(500)}`, 20);
    expect([...shown].length).toBeLessThanOrEqual(20);
    expect(shown.endsWith("…")).toBe(true);
    // eslint-disable-next-line no-control-regex
    expect(shown).not.toMatch(/[\u0000-\u001f]/);
  });

  it("tables pad columns to the widest cell and leave no trailing space", () => {
    expect(table(["A", "BB"], [["xyz", "1"], ["q", ""]])).toBe("A    BB\nxyz  1\nq\n");
  });

  it("JSON and literals escape what a terminal would hide, and still parse to the exact text", () => {
    const text = "bidi\u202e zero\u200b nl\n del\u007f ls\u2028";
    expect(JSON.parse(jsonText({ text }))).toEqual({ text });
    expect(jsonText({ text })).not.toMatch(/[\u202e\u200b\u007f\u2028]/);
    expect(jsonText({ text })).toContain("nl\\n del");
    expect(JSON.parse(quoted(text))).toBe(text);
    expect(quoted(text)).toBe('"bidi\\u202e zero\\u200b nl\\n del\\u007f ls\\u2028"');
  });

  it("times are ISO, and a time no date can hold is a dash", () => {
    expect(isoTime(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(isoTime(8.64e15 + 1)).toBe("-");
  });
});
