// Names and URLs another team may give an endpoint on a shared service, as fast-check arbitraries,
// and an emulator that holds exactly them. The API document shows no rule for what a name or URL
// may hold, so the service may hold any string: the emulator is seeded through its persist file,
// which takes records as they are (its create would refuse a URL that does not parse).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN } from "./helpers";

/** The token as an echo may carry it: as it is, in other cases, split by hidden characters. */
export const TOKEN_ECHOES = [
  TOKEN,
  TOKEN.toUpperCase(),
  `${TOKEN.slice(0, 4).toUpperCase()}${TOKEN.slice(4)}`,
  `${TOKEN.slice(0, 9)}\u200b${TOKEN.slice(9)}`,
  `${TOKEN.slice(0, 3)}\u2060${TOKEN.slice(3, 20)}\u00ad${TOKEN.slice(20)}`,
  `${TOKEN.slice(0, 5)}\u{e0041}${TOKEN.slice(5)}`,
  `${TOKEN.slice(0, 7)}\u00a0${TOKEN.slice(7)}`,
  `${TOKEN.slice(0, 11)}\ud800${TOKEN.slice(11)}`,
];

/** Pieces each consumer reads specially. */
export const HOSTILE_PIECES = [
  // Pulumi YAML interpolation
  "${",
  "$${",
  "$$",
  "$",
  "$$$",
  "${orders.signSecret}",
  "${nothing}",
  "$${x}",
  "${a.b[0]}",
  "}",
  "{",
  // quotes and escapes of every writer
  '"',
  "'",
  "\\",
  "\\n",
  "\\u0041",
  "\\U00000041",
  "\\x41",
  "'\\''",
  // YAML specials
  ":",
  ": ",
  " #",
  "#",
  "- ",
  "?",
  "|",
  ">",
  "&a",
  "*a",
  "!!str",
  "%",
  "@",
  "`",
  ",",
  "[",
  "]",
  "---",
  "...",
  "null",
  "~",
  "yes",
  "0x1F",
  // white space
  " ",
  "  ",
  "\n",
  "\r\n",
  "\t",
  "\r",
  // shell metacharacters
  ";",
  "(",
  ")",
  "<",
  "&&",
  "||",
  "$(id)",
  "`id`",
  "*?[a]",
  "!",
  "~root",
  "=x",
  // noncharacters, bidi, zero-width and other hidden characters
  "\uFFFE",
  "\uFFFF",
  "\uFDD0",
  "\uFDEF",
  "\u{1FFFE}",
  "\u{10FFFF}",
  "\u202E",
  "\u2066",
  "\u200B",
  "\u200D",
  "\u2060",
  "\uFEFF",
  "\u00AD",
  "\u00A0",
  "\u3000",
  "\u0085",
  "\u2028",
  "\u2029",
  "\u0000",
  "\u0007",
  "\u001B[31m",
  "\u007F",
  "\u009B",
  "\u{E0041}",
  "\uFE0F",
  // lone surrogates (and a pair written as two pieces is a real pair)
  "\uD800",
  "\uDBFF",
  "\uDC00",
  "\uDFFF",
  // astral and combining characters
  "\u{1F600}",
  "\u{1D400}",
  "e\u0301",
  "日本",
  "Ω",
];

/** A hostile text: hostile pieces, any UTF-16 units, any code points, and now and then the token. */
export const hostileText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...HOSTILE_PIECES) },
      { weight: 4, arbitrary: fc.string({ maxLength: 4 }) },
      { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 3 }) },
      {
        weight: 2,
        arbitrary: fc.string({
          unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
          maxLength: 3,
        }),
      },
      { weight: 1, arbitrary: fc.constantFrom(...TOKEN_ECHOES) },
    ),
    { maxLength: 6 },
  )
  .map((pieces) => pieces.join(""));

/** A name or URL a service may hold: an https URL with the hostile part in its path or query, or any string. */
export const hostileEndpoint: fc.Arbitrary<{ name: string; url: string }> = fc.record({
  name: fc.oneof(
    hostileText,
    hostileText.map((text) => `orders-${text}`),
  ),
  url: fc.oneof(
    hostileText.map((text) => `https://example.com/hooks/${text}`),
    hostileText.map((text) => `https://example.com/hooks?q=${text}`),
    hostileText,
  ),
});

/** The pieces a person can see: no white space, control, format or separator character, no lone surrogate. */
export const VISIBLE_PIECES = HOSTILE_PIECES.filter((piece) => !/[\p{Cc}\p{Cf}\p{Z}\p{Cs}]/u.test(piece));

/**
 * Endpoints whose name and URL the provider's check accepts more often (a name with visible pieces,
 * an https URL with them in its query), so that an import of them can succeed: the engine then reads
 * them as resource inputs and the provider compares them with the service's.
 */
export const checkableEndpoint: fc.Arbitrary<{ name: string; url: string }> = fc.record({
  name: fc
    .array(fc.constantFrom(...VISIBLE_PIECES), { minLength: 1, maxLength: 6 })
    .map((pieces) => `orders${pieces.join("")}`),
  url: fc
    .array(fc.constantFrom(...VISIBLE_PIECES), { maxLength: 4 })
    .map((pieces) => `https://example.com/hooks?q=${pieces.join("")}`),
});

/**
 * A running emulator holding exactly these endpoints, ids 1, 2, ... in order (created by the
 * principal of TOKEN), through its persist file; `close` also removes the file.
 */
export async function emulatorHolding(
  endpoints: readonly { name: string; url: string }[],
): Promise<Emulator> {
  const dir = mkdtempSync(join(tmpdir(), "webhooks-hostile-"));
  const file = join(dir, "state.json");
  const time = Date.parse("2026-01-02T03:04:05.000Z");
  const records = endpoints.map((endpoint, i) => ({
    webhook_id: i + 1,
    webhook_name: endpoint.name,
    webhook_url: endpoint.url,
    sign_secret: `whsec_hostile_${i + 1}_5f0c2b7e9a`,
    creator_id: 1001,
    creator_name: "open-api",
    create_time: time + i,
    operator_id: 1001,
    operator_name: "open-api",
    operate_time: time + i,
  }));
  writeFileSync(file, JSON.stringify({ version: 1, next_id: endpoints.length + 1, records }), {
    mode: 0o600,
  });
  const emulator = await startEmulator({
    accessToken: TOKEN,
    persistPath: file,
    maxNameLength: 65_536,
    maxUrlLength: 65_536,
  });
  const close = emulator.close.bind(emulator);
  emulator.close = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  return emulator;
}

// What the consumers must yield, written from the promises in docs/adopt-output.md (the token is never
// printed; what a format cannot hold faithfully is refused for it), not from adopt's code.

/**
 * Characters a person does not see: controls, format characters, separators, spaces but U+0020,
 * default-ignorables, noncharacters, surrogates.
 */
const UNSEEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/gu;

/** The token is in the text as a person reads it: any case, unseen characters ignored. */
export function holdsTokenAsRead(text: string): boolean {
  return text.replace(UNSEEN, "").toLowerCase().includes(TOKEN.toLowerCase());
}

/** A UTF-16 unit that is not half of a pair: UTF-8 (the engine's messages) cannot carry it. */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}

/** How adopt must treat an endpoint: declared in every format, or refused with a reason naming this. */
export function expectedTreatment(endpoint: {
  name: string;
  url: string;
}): "declared" | "token" | "surrogate" {
  if (holdsTokenAsRead(endpoint.name) || holdsTokenAsRead(endpoint.url)) return "token";
  if (hasLoneSurrogate(endpoint.name) || hasLoneSurrogate(endpoint.url)) return "surrogate";
  return "declared";
}
