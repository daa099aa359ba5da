// The one reading of a text that most readers make (src/text/reading.ts, decodedReading): what a
// URL parser, a page and a JSON parser decode, with what no one sees dropped. The expected values are
// written from the formats: `%2541` is `%41` decoded once and `A` twice; `&#8203;` is U+200B;
// `\u0041` is `A` in JSON.
import { describe, expect, it } from "vitest";
import { HIDDEN_SOURCE, HeldSecrets, decodedReading, foldedSecret, mayHold } from "../../src/text";
import { escapedSplits, readsSecret } from "../support/as-read";

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
    // However long the markup: a page's reader does not stop looking for its end.
    ["a comment of 5,000 characters", `to<!--${"x".repeat(5000)}-->ken`, "token"],
    ["an attribute value of 5,000 characters holding >", `to<b title="${"a>".repeat(2500)}">ken`, "token"],
    ["a tag whose name holds a <, as the HTML tokenizer reads it", "to<b<i>ken", "token"],
    ["markup left open is text to this reading", "token <b title='x", "token <b title='x"],
    ["Perl's braced \\x escape, with leading zeros", "to\\x{6B}e\\x{00006e}", "token"],
    ["a JavaScript line continuation", "to\\\nke\\\r\nn", "token"],
    ["an identity escape of a mathematical letter, a letter to NFKC", "to\\\u{1d424}en", "token"],
    ["a character's UTF-8 bytes in \\x and octal escapes", "caf\\xc3\\xa9 caf\\303\\251", "café café"],
  ])("%s", (_what, text, expected) => {
    expect(decodedReading(text)).toBe(expected);
  });
});

describe("HeldSecrets: the remembered secrets a text may hold, found by the text's length", () => {
  // Signing secrets that all start alike (as a service's do) and end alike in groups: the index must
  // find each by its text whatever the others look like.
  const secrets = Array.from(
    { length: 2_000 },
    (_, i) => `whsec_${(i * 7919).toString(36).padStart(8, "0")}${["q7Zx", "Ab3d", "q7Zx"][i % 3]}`,
  );
  const held = new HeldSecrets<string>();
  for (const secret of secrets) held.set(foldedSecret(secret), secret);

  it("finds a secret as a reader reads it, in every spelling a reader decodes, and no other", () => {
    const secret = secrets[1_234]!;
    for (const [how, spelled] of [["as it is", secret], ...escapedSplits(secret)] as [string, string][]) {
      const text = `https://hooks.example/${spelled}/x`;
      expect(readsSecret(text, secret), how).toBe(true);
      expect(held.in(text), how).toContain(secret);
    }
    expect(held.in("https://hooks.example/nothing-here")).toEqual([]);
    // In any letter case, as the folded form is.
    expect(held.in(`x ${secret.toUpperCase()} y`)).toEqual([secret]);
  });

  it("finds exactly what testing every secret would find", () => {
    const texts = [
      `a ${secrets[5]} b ${secrets[6]!.slice(2)}`,
      `${secrets[9]!.slice(0, 8)}&#8203;${secrets[9]!.slice(8)} and ${secrets[10]}`,
      secrets.slice(100, 140).join(","),
      `%${[...secrets[77]!].map((c) => c.charCodeAt(0).toString(16)).join("%")}`,
      "no secret at all, whsec_ and q7Zx alone",
    ];
    for (const text of texts) {
      const may = mayHold(text);
      const everyOne = secrets.filter((secret) => may(foldedSecret(secret)));
      expect(new Set(held.in(text)), text.slice(0, 60)).toEqual(new Set(everyOne));
    }
  });

  it("forgets what is deleted, and counts what it holds", () => {
    const few = new HeldSecrets<string>();
    few.set(foldedSecret("tok_abcdef"), "tok_abcdef");
    few.set(foldedSecret("tok_abcdef"), "tok_abcdef");
    few.set(foldedSecret("ab\u200bc"), "ab\u200bc");
    expect(few.size).toBe(2);
    // The short one (three characters once folded) is tested on every text.
    expect(new Set(few.in("x tok_ABCDEF y ab c abc"))).toEqual(new Set(["tok_abcdef", "ab\u200bc"]));
    few.delete(foldedSecret("tok_abcdef"));
    expect(few.size).toBe(1);
    // Only the short one, which "abc" in it is.
    expect(few.in("x tok_abcdef y")).toEqual(["ab\u200bc"]);
  });
});

describe("foldedSecret", () => {
  it("folds printable ASCII as lower case, and drops only hidden characters elsewhere", () => {
    // No printable ASCII character is hidden (src/text/hidden.ts): a secret of them folds whole.
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
    expect(printable.match(new RegExp(HIDDEN_SOURCE, "gu"))).toBeNull();
    expect(foldedSecret(printable)).toBe(printable.toLowerCase());
    // A control character, a zero-width space and a soft hyphen are dropped; other letters fold.
    expect(foldedSecret("Ab\tC\u200bD\u00adÉ")).toBe("abcdé");
    expect(foldedSecret("AB\tCD\x7f")).toBe("abcd");
    expect(foldedSecret("ΣTRASSE")).toBe("σtrasse");
    // At most SEARCHED_CHARS characters are searched.
    expect(foldedSecret("A".repeat(300))).toBe("a".repeat(256));
  });
});

describe("mayHold on a plain text", () => {
  // A plain text (printable ASCII without escapes) is its only reading: it holds a secret exactly
  // where its lower-case form holds the folded secret, whatever characters the secret has.
  const SECRETS = ["Tok.en*1", "a(b)c", "x[y]z", "p|q", "r$s^t", "u{2}v", "w+x?y", "back\\slash", "s/l/a/sh"];
  it("finds a secret of any characters in any letter case, and only where it stands", () => {
    for (const secret of SECRETS) {
      const folded = foldedSecret(secret);
      const plain = secret.replace(/\\/g, "");
      const holding = `id ${secret.toUpperCase().replace(/\\/g, "")} here`;
      // Each test alone, then past the few tested by pattern (the rest share one folded copy).
      for (const tests of [1, 8]) {
        const may = mayHold(holding);
        for (let i = 1; i < tests; i++) may(foldedSecret(`other-${i}`));
        expect(may(folded), `${secret} in ${holding} (${tests})`).toBe(
          `id ${plain} here`.toLowerCase().includes(folded),
        );
        // The secret with one character changed is not held: no character of it is a pattern's.
        const changed = `id ${folded.slice(0, 2)}Q${folded.slice(3)} here`;
        expect(mayHold(changed)(folded), `${secret} in ${changed}`).toBe(
          changed.toLowerCase().includes(folded),
        );
      }
    }
  });
});
