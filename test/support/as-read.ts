// How a person reads text that may be escaped, written from the formats, not from our code: a URL's
// reader decodes percent-escapes (again while they still decode, for a URL encoded twice), a page's
// reader decodes character references, a JSON reader its `\u` escapes; and no reader sees the
// characters that render as nothing. A secret is shown when it is in the text so read.

/** Characters a person does not see: controls, format characters, separators, default-ignorables. */
const UNSEEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/gu;

/** The named references of the HTML standard's table that the tests write (all hidden characters). */
const NAMED: Record<string, string> = {
  ZeroWidthSpace: "\u200b",
  shy: "\u00ad",
  zwj: "\u200d",
  NoBreak: "\u2060",
};

/** `text` decoded by each reader in turn, then without what no one sees, in lower case. */
export function asRead(text: string): string {
  let out = text;
  for (let again = 0; again < 4; again++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(out);
    } catch {
      break;
    }
    if (decoded === out) break;
    out = decoded;
  }
  out = out
    .replace(/&#x([0-9a-f]+);?/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&([A-Za-z]+);/g, (whole, name: string) => NAMED[name] ?? whole)
    .replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return out.replace(UNSEEN, "").toLowerCase();
}

/** Whether a person reading `text` (see {@link asRead}) reads `secret` in it, in any letter case. */
export function readsSecret(text: string, secret: string): boolean {
  return asRead(text).includes(secret.toLowerCase());
}

/** The spellings of `secret` split by an escaped hidden character, by each reader's escape. */
export function escapedSplits(secret: string): [string, string][] {
  const [head, tail] = [secret.slice(0, 8), secret.slice(8)];
  return [
    ["a URL's %E2%80%8B", `${head}%E2%80%8B${tail}`],
    ["a URL's escape encoded twice", `${head}%25E2%2580%258B${tail}`],
    ["a page's &#8203;", `${head}&#8203;${tail}`],
    ["a page's &#x200B;", `${head}&#x200B;${tail}`],
    ["a page's &ZeroWidthSpace;", `${head}&ZeroWidthSpace;${tail}`],
    ["a page's &shy;", `${head}&shy;${tail}`],
    ["JSON's \\u200b", `${head}\\u200b${tail}`],
    ["every character percent-escaped", [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")],
  ];
}
