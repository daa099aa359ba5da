// The text policy's rules as docs/operator-cli.md ("Secrets in what `webhooks` prints") states them:
// what shows a secret (a value equal to one, a text holding one of at least 4 characters as a person
// reads it, a secret of digits only where it stands as a number), the marker `{"secret": true}`,
// and what adopt and the import Read refuse to paste (docs/adopting-and-importing.md).
import { describe, expect, it } from "vitest";
import {
  holdsSecretShown,
  isSecretValue,
  pasteRefusal,
  recognisableInText,
  redactShown,
  showsSecret,
  shownValue,
} from "../../src/text";

describe("what shows a secret", () => {
  it("a value equal to one, however short: a text in any letter case (white space around aside), a number as a whole", () => {
    expect(isSecretValue("ID", { inText: [], whole: ["id"] })).toBe(true);
    expect(isSecretValue(" id ", { inText: [], whole: ["id"] })).toBe(true);
    expect(isSecretValue("id", { inText: [], whole: [" ID "] })).toBe(true);
    expect(isSecretValue("Creator", { inText: ["creator"] })).toBe(true);
    expect(isSecretValue(7, { inText: [], whole: ["7"] })).toBe(true);
    expect(isSecretValue(1001, { inText: ["1001"] })).toBe(true);
    // Equal only: neither list makes a longer value or another number secret.
    expect(isSecretValue("ids", { inText: [], whole: ["id"] })).toBe(false);
    expect(isSecretValue(17, { inText: [], whole: ["7"] })).toBe(false);
    expect(isSecretValue("id", { inText: ["other"] })).toBe(false);
    expect(isSecretValue("id", { inText: [] })).toBe(false);
  });

  it("a text holding one of at least 4 characters, white space aside; a shorter one only as a whole", () => {
    expect(recognisableInText("name")).toBe(true);
    expect(recognisableInText("abc")).toBe(false);
    expect(recognisableInText(" ab ")).toBe(false);
    expect(showsSecret("my-name-here", { inText: ["name"] })).toBe(true);
    expect(showsSecret("my-id-here", { inText: ["id"], whole: ["id"] })).toBe(false);
    expect(showsSecret("my- ab -here", { inText: [" ab "] })).toBe(false);
    expect(showsSecret("id", { inText: [], whole: ["id"] })).toBe(true);
  });

  it("as a person reads it: any letter case, invisible characters or escapes between its letters", () => {
    const secret = "tok_5c2e9a71";
    for (const text of [
      `x ${secret.toUpperCase()} y`,
      `x tok_\u200b5c2e9a71 y`,
      "x tok_\\u200b5c2e9a71 y",
      "x tok%5f5c2e9a71 y",
    ])
      expect({ text, shows: holdsSecretShown(text, [secret]) }).toEqual({ text, shows: true });
    expect(redactShown(`a tok_\u200b5C2E9A71 b`, [secret])).toBe("a [REDACTED] b");
    expect(holdsSecretShown("tok_5c2e9a7", [secret])).toBe(false);
  });

  it("a secret of digits only where it stands as a number; any other secret wherever it is", () => {
    expect(showsSecret("order-1001", { inText: ["1001"] })).toBe(true);
    expect(showsSecret("1001-x", { inText: ["1001"] })).toBe(true);
    expect(showsSecret("order-21001", { inText: ["1001"] })).toBe(false);
    expect(showsSecret("order-10012", { inText: ["1001"] })).toBe(false);
    expect(redactShown("21001 and 1001 and 10012", ["1001"])).toBe("21001 and [REDACTED] and 10012");
    // Not all digits: found inside digits too.
    expect(showsSecret("x21a01y", { inText: ["1a01"] })).toBe(true);
    expect(showsSecret("7abc12", { inText: ["abc1"] })).toBe(true);
  });

  it("a number only when equal to a secret: a secret 1712 is not in the time 1712000000000", () => {
    expect(showsSecret(1712000000000, { inText: ["1712"] })).toBe(false);
    expect(showsSecret("1712000000000", { inText: ["1712"] })).toBe(false);
    expect(showsSecret("at 1712 o'clock", { inText: ["1712"] })).toBe(true);
  });

  it("keeps judging right past the patterns it keeps (more secrets than it caches)", () => {
    const secrets = Array.from({ length: 150 }, (_, i) => `secret-${i}-value`);
    for (const [i, secret] of secrets.entries()) {
      expect(holdsSecretShown(`x ${secret} y`, [secret])).toBe(true);
      expect(holdsSecretShown(`x ${secrets[(i + 1) % secrets.length]!} y`, [secret])).toBe(false);
    }
  });
});

describe("the marker and the refusal", () => {
  it('--json\'s marker is {"secret": true}, and a value that shows no secret is itself', () => {
    expect(shownValue("ID", { inText: [], whole: ["id"] })).toEqual({ secret: true });
    expect(shownValue(1001, { inText: ["1001"] })).toEqual({ secret: true });
    expect(JSON.stringify(shownValue("x", { inText: ["x-long"] }))).toBe('"x"');
    expect(shownValue(5, { inText: ["1001"] })).toBe(5);
  });

  it("what may not be pasted or recorded names each field that shows the secret, and says what to do", () => {
    const fields = (name: string, url: string) => [
      { label: "name", text: name },
      { label: "URL", text: url },
    ];
    const token = { inText: ["tok_5c2e9a71"] };
    expect(pasteRefusal(fields("a", "https://x/"), token, "the token")).toBeUndefined();
    expect(pasteRefusal(fields("a tok_5c2e9a71", "https://x/"), token, "the token")).toMatch(
      /^its name holds the token, so no declaration of it can be printed, .*; have the endpoint renamed on the service$/,
    );
    expect(pasteRefusal(fields("a", "https://x/?t=TOK_5C2E9A71"), token, "the token")).toMatch(
      /^its URL holds the token,/,
    );
    expect(pasteRefusal(fields("tok_5c2e9a71", "https://x/?t=tok_5c2e9a71"), token, "the token")).toMatch(
      /^its name and URL hold the token,/,
    );
    // A short secret, as a whole value.
    expect(pasteRefusal(fields("id", "https://x/"), { inText: [], whole: ["id"] }, "a secret")).toMatch(
      /^its name holds a secret,/,
    );
  });
});

describe("a secret split by an escaped hidden character is the secret to whoever reads it", () => {
  // docs/operator-cli.md: a text holds a secret "as a person reads it (any letter case, escapes,
  // invisible characters between its letters)". A reader of a URL decodes percent-escapes, a reader
  // of a page HTML character references: U+200B (zero-width space) and U+00AD (soft hyphen) are
  // invisible in every one of these forms.
  const token = "tok-A-0123456789abcdef";
  const splits = [
    "&#8203;",
    "&#x200b;",
    "&#X200B;",
    "&#0008203;",
    "%E2%80%8B",
    "%e2%80%8b",
    "%25E2%2580%258B",
    "%u200B",
    "&ZeroWidthSpace;",
    "&shy;",
    "&#173;",
    "%C2%AD",
    "\u200b",
    "\\u200b",
  ];

  it("in each escaped form, between any two of its characters", () => {
    for (const split of splits)
      for (const at of [1, 3, token.length - 1]) {
        const text = `key ${token.slice(0, at)}${split}${token.slice(at)} end`;
        expect({ text, holds: holdsSecretShown(text, [token]) }).toEqual({ text, holds: true });
        expect(redactShown(text, [token])).toBe("key [REDACTED] end");
        expect(showsSecret(text, { inText: [token] })).toBe(true);
      }
  });

  it("several splits, in any letter case, and a character itself escaped", () => {
    const text = `TOK&#8203;-%41%E2%80%8B-0123&shy;456789ABCDEF`;
    expect(redactShown(`<${text}>`, [token])).toBe("<[REDACTED]>");
  });

  it("a visible character between its letters, or a letter missing, is another text", () => {
    for (const text of [
      "tok-A-01234567%2089abcdef",
      "tok-A-01234567&#46;89abcdef",
      "tok-A-0123456789abcde",
      "tok-A-01234567&#8203;9abcdef",
    ])
      expect({ text, holds: holdsSecretShown(text, [token]) }).toEqual({ text, holds: false });
  });

  it("a secret of digits split by an escaped hidden character is still found only where it stands as a number", () => {
    expect(showsSecret("order-10&#8203;01", { inText: ["1001"] })).toBe(true);
    expect(showsSecret("order-210&#8203;01", { inText: ["1001"] })).toBe(false);
  });

  it("a long hostile text (runs of escapes that a backtracking pattern splits every way) is judged whole", () => {
    // Every `\u0074` is a `t` and `&#8203;` a hidden character: a pattern with a gap of escapes
    // between each two characters of `tttttttz` tries every way to split the run. The answer must
    // come, and be right, for a text of 100,000 characters (the test's own timeout bounds it).
    const runs = ["\\u0074", "&#8203;t", "%74%E2%80%8B", "t\u200b"];
    for (const run of runs) {
      const text = run.repeat(Math.ceil(100_000 / run.length));
      expect(holdsSecretShown(text, ["tttttttz"]), run).toBe(false);
      expect(holdsSecretShown(`${text}z`, ["tttttttz"]), run).toBe(true);
    }
  });
});

describe("text with characters outside the BMP", () => {
  it("an emoji, a tag character or a lone surrogate beside escapes: judged, and the secret found past them", () => {
    const token = "tok-A-0123456789abcdef";
    for (const before of ["😀", "\u{e0041}", "\ud800", "\udc00", "😀%41&#65;\\u0041"]) {
      const text = `${before} name %20 ${before}`;
      expect(holdsSecretShown(text, [token]), JSON.stringify(text)).toBe(false);
      expect(redactShown(`${text}${token}${before}`, [token])).toBe(`${text}[REDACTED]${before}`);
    }
    expect(holdsSecretShown("tok-A-😀0123456789abcdef", [token])).toBe(false);
    expect(holdsSecretShown("tok-A-\u{e0041}0123456789abcdef", [token])).toBe(true);
  });
});

describe("secrets a service chose to be costly to look for", () => {
  it("sixty-four secrets that are runs of one letter with one other: a name holding them all is withheld, never shown", () => {
    // Each secret is 300 characters: `a` repeated, one `b`, `a` again; the first 256 differ.
    const secrets = Array.from({ length: 64 }, (_, k) => `${"a".repeat(4 * k)}b${"a".repeat(299 - 4 * k)}`);
    const name = `team-${"a".repeat(1800)}b${"a".repeat(2000)}%`;
    const shown = redactShown(name, secrets);
    // The text before the run is kept; from inside the run on, nothing of it is shown.
    expect(shown.startsWith("team-")).toBe(true);
    expect(shown).toContain("[REDACTED]");
    for (const secret of secrets) expect(holdsSecretShown(shown, [secret])).toBe(false);
  });
});

describe("a text of more readings than are searched", () => {
  it("is withheld whole wherever a secret is sought in it, and left as it is where none is", () => {
    // Each reading of backslash escapes halves the run: more than the readings searched.
    const text = `team ${"\\".repeat(16_384)} ops`;
    expect(redactShown(text, ["sekrit-name"])).toBe("[REDACTED]");
    expect(holdsSecretShown(text, ["sekrit-name"])).toBe(true);
    expect(redactShown(text, [])).toBe(text);
    // A few layers are read, not withheld.
    expect(redactShown("team \\\\\\\\server\\\\share ops", ["sekrit-name"])).toBe(
      "team \\\\\\\\server\\\\share ops",
    );
  });
});

describe("readers that decode one family of escapes and leave the rest as text", () => {
  // Each text reads as the secret only to one reader; every other reading swallows its first letters.
  it.each([
    ["a reader of \\u escapes only (\\x0c stays text)", "\\x0cli_tok&#92;u200b_7d41aa9e", "cli_tok_7d41aa9e"],
    [
      "a reader of bytes' escapes only (\\u00c0 stays text)",
      "\\u00c0ffee&#92;xad4d2b7a91e3",
      "c0ffee4d2b7a91e3",
    ],
    [
      "a URL decoded once, a split of three bytes (%25 then 12 stay text)",
      "%251234%E2%80%8Babcd9f",
      "1234abcd9f",
    ],
    [
      "a URL decoded once, then a page (%26#x0 stays text)",
      "%2526#x0cli_tok%26#8203;_7d41aa9e",
      "cli_tok_7d41aa9e",
    ],
  ])("%s", (_reader, text, secret) => {
    expect(holdsSecretShown(text, [secret])).toBe(true);
    expect(redactShown(`ops ${text} end`, [secret])).not.toContain(text);
  });

  it("a broken UTF-8 sequence is no character to a URL decoded once", () => {
    // %E2%41 is no sequence: the token's letters around it stay apart, and nothing is withheld.
    expect(redactShown("cli_tok%E2%41_7d41aa9e", ["cli_tok_7d41aa9e"])).toBe("cli_tok%E2%41_7d41aa9e");
  });
});
