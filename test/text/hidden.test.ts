// One set of characters a reader cannot see, for the CLI, both faces and the client: what `webhooks` escapes when it
// prints, what redaction looks through, and what check refuses in a declared name. A name that the
// CLI would print with an escape (a tag character, a line separator, a zero-width space) looks like
// another name, so check refuses it; one whose only hidden character changes how an emoji is drawn,
// or holds an ideographic space a person typed, is accepted.
import { describe, expect, it } from "vitest";
import { nameProblems } from "../../src/client";
import { HIDDEN, LOOKALIKE, redact } from "../../src/text";

const TAG_A = "\u{E0041}";

describe("hidden characters", () => {
  it.each([
    ["a tag character", `orders${TAG_A}`],
    ["a line separator", "orders\u2028x"],
    ["a zero-width space", "ord\u200bers"],
    ["a right-to-left override", "orders\u202e"],
    ["a noncharacter", "orders\ufdd0"],
    ["an Arabic number sign", "orders\u0600"],
  ])("a declared name with %s is refused, as the CLI would show it escaped", (_what, name) => {
    expect(name.match(HIDDEN)).not.toBeNull();
    expect(nameProblems(name).join(" ")).toMatch(/invisible character/);
  });

  it.each([
    ["an emoji with its presentation selector", "alerts \u2764\ufe0f"],
    ["an ideographic space", "注文\u3000通知"],
  ])("a declared name with %s is accepted", (_what, name) => {
    expect(nameProblems(name)).toEqual([]);
  });

  it("refuses in a name only characters it would also escape when printing them", () => {
    for (let code = 0; code <= 0x10ffff; code += code < 0x30000 ? 1 : 0x101) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (LOOKALIKE.test(char)) expect(char.match(HIDDEN), code.toString(16)).not.toBeNull();
    }
  });

  it("a token split by any hidden character is still redacted", () => {
    for (const gap of [TAG_A, "\u2028", "\u00a0", "\ufe0f", "\u200b"])
      expect(redact(`key tok_12${gap}34_secret`, ["tok_1234_secret"])).not.toContain("34_secret");
  });
});
