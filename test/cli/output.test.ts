import { describe, expect, it } from "vitest";
import { cell, isoTime, jsonText, quoted, redactShown, table } from "../../src/cli/output/output";
import { TOKEN } from "./helpers";

describe("output helpers", () => {
  it("a cell never shows the token, even one split by an invisible character", () => {
    const split = `token is ${TOKEN.slice(0, 6)}\u200b${TOKEN.slice(6)}!`;
    expect(cell(split, 200, [TOKEN])).toBe("token is [REDACTED]!");
    expect(cell(`${TOKEN}\n`, 200, [TOKEN])).toBe("[REDACTED]\\n");
    // Only the token goes: the hidden characters around it are still shown.
    expect(cell(`a\u200b${TOKEN.toUpperCase()}\u200b`, 200, [TOKEN])).toBe("a\\u200b[REDACTED]\\u200b");
  });

  it("a cell is bounded, marks the cut, and holds no control character", () => {
    const shown = cell(`a\u0007b\u001b[2Jc${"d".repeat(500)}`, 20);
    expect([...shown].length).toBeLessThanOrEqual(20);
    expect(shown.endsWith("…")).toBe(true);
    // eslint-disable-next-line no-control-regex
    expect(shown).not.toMatch(/[\u0000-\u001f]/);
  });

  it("a cell shows hidden characters as escapes instead of removing them: no two texts that differ in them look alike", () => {
    const shown = [
      "orders",
      "orders\u200b",
      "orders\u2060",
      "orders\ufeff",
      "orders\u00a0",
      "orders\ufffe",
      "orders\ud800",
      "orders\u{e0041}",
      "orders\\u200b",
      "orders\n",
    ].map((text) => cell(text, 200));
    expect(shown).toEqual([
      "orders",
      "orders\\u200b",
      "orders\\u2060",
      "orders\\ufeff",
      "orders\\u00a0",
      "orders\\ufffe",
      "orders\\ud800",
      "orders\\u{e0041}",
      "orders\\\\u200b",
      "orders\\n",
    ]);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it("a cell is cut on an escape's boundary, never inside it, within its UTF-8 bytes", () => {
    for (let width = 5; width <= 30; width++) {
      const shown = cell(`ab${"\u200b".repeat(10)}`, width);
      expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(width);
      expect(shown.replace(/…$/, "")).toMatch(/^(ab)?(\\u200b)*$|^a?$/);
    }
    expect(cell("x".repeat(10), 10)).toBe("x".repeat(10));
    expect(cell("x".repeat(11), 10)).toBe(`${"x".repeat(7)}…`);
  });

  it("what is printed is redacted as a person reads it: any case, split by hidden characters or by their escapes", () => {
    const split = `${TOKEN.slice(0, 5)}\\u200b${TOKEN.slice(5, 9)}\u2060${TOKEN.slice(9, 12)}\\u{e0041}${TOKEN.slice(12)}`;
    expect(redactShown(`name ${split} and ${TOKEN.toUpperCase()}.`, [TOKEN])).toBe(
      "name [REDACTED] and [REDACTED].",
    );
    expect(redactShown(`almost ${TOKEN.slice(0, -1)} x`, [TOKEN])).toBe(`almost ${TOKEN.slice(0, -1)} x`);
    expect(redactShown("a.b*c", ["a.b*c", ""])).toBe("[REDACTED]");
    expect(redactShown("axb", ["a.b"])).toBe("axb");
  });

  it("tables pad columns to the widest cell and leave no trailing space", () => {
    expect(
      table(
        ["A", "BB"],
        [
          ["xyz", "1"],
          ["q", ""],
        ],
      ),
    ).toBe("A    BB\nxyz  1\nq\n");
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
