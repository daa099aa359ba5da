// The one reading of a text that most readers make (src/text/reading.ts, decodedReading): what a
// URL parser, a page and a JSON parser decode, with what no one sees dropped. The expected values are
// written from the formats: `%2541` is `%41` decoded once and `A` twice; `&#8203;` is U+200B;
// `\u0041` is `A` in JSON.
import { describe, expect, it } from "vitest";
import { decodedReading } from "../../src/text";

describe("decodedReading", () => {
  it.each([
    [
      "plain text stays as it is",
      "orders-2026 https://example.com/a?b=c",
      "orders-2026 https://example.com/a?b=c",
    ],
    ["a percent-escape, once and twice encoded", "a%41-%2541", "aA-A"],
    ["a UTF-8 sequence, and a zero-width space's", "caf%C3%A9%E2%80%8B!", "café!"],
    ["character references, numeric and named", "x&#65;&#x42;&amp;&ZeroWidthSpace;y&shy;z", "xAB&yz"],
    ["JSON escapes, and a pair for an astral character", "\\u0041\\ud83d\\ude00\\u200b.", "A\u{1F600}."],
    ["hidden characters themselves", "to\u200bk\u2060en", "token"],
    ["an escape written in escapes", "%26%2365%3B", "A"],
    ["what is no escape", "100% & %zz <3", "100% & %zz <3"],
    ["a JavaScript identity escape and an octal one", "\\Z\\132!", "ZZ!"],
    ["two-character references: a ligature, and a space pair no one sees", "&fjlig;x&ThickSpace;y", "fjxy"],
    ["a tag and a comment, which a browser renders as nothing", "to<wbr>k<!---->en<b></b>!", "token!"],
  ])("%s", (_what, text, expected) => {
    expect(decodedReading(text)).toBe(expected);
  });
});
