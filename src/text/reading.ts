/**
 * Where a secret stands in text as a person reads it. A reader of a URL, a page, a log or a JSON
 * document decodes what is escaped (`%41`, `%2541`, `%u0041`, `&#65;`, `&#x41;`, `&amp;`, `\u0041`,
 * `\x41`, `\"`), does not see hidden characters (a zero-width space, a soft hyphen) nor their
 * escapes (`%E2%80%8B`, `&#8203;`, `&ZeroWidthSpace;`, `&shy;`, `\u200b`), and takes `TOK` for `tok`.
 * So a secret is looked for in every reading of the text at once: at each position, the character
 * itself and each escape that starts there, hidden ones standing for nothing.
 *
 * The search keeps, for each position still to come, which prefixes of the secret end there (and
 * where their earliest start was): each position of the text is read once per prefix under way, so
 * the work grows with the text's length times the secret's, whatever the text holds (a regular
 * expression with a gap of escapes between each two characters of a secret backtracks over every
 * way to split a run of escapes). Internal.
 */

import { HIDDEN_SOURCE } from "./hidden";

/** One reading of the text at a position: the character a reader sees and where its writing ends. */
interface Reading {
  readonly char: string;
  readonly end: number;
}

/** A secret as it is looked for: its characters case-folded, hidden ones (which no reader sees) dropped. */
interface Sought {
  readonly folded: string;
  readonly digits: boolean;
  /** Where a match could start: the secret's first character (any case), an escape, or any non-ASCII character. */
  readonly starts: RegExp;
}

const HIDDEN_CHAR = new RegExp(`^(?:${HIDDEN_SOURCE})$`, "u");
const HEX = /^[0-9a-fA-F]+$/;

/**
 * Named character references a page's reader decodes: the hidden characters', and those of the
 * punctuation a token or a URL holds. Those marked legacy are decoded without their `;` too.
 */
const NAMED: Record<string, number> = {
  ZeroWidthSpace: 0x200b,
  NegativeVeryThinSpace: 0x200b,
  NegativeThinSpace: 0x200b,
  NegativeMediumSpace: 0x200b,
  NegativeThickSpace: 0x200b,
  zwnj: 0x200c,
  zwj: 0x200d,
  lrm: 0x200e,
  rlm: 0x200f,
  NoBreak: 0x2060,
  InvisibleTimes: 0x2062,
  it: 0x2062,
  InvisibleComma: 0x2063,
  ic: 0x2063,
  ApplyFunction: 0x2061,
  af: 0x2061,
  shy: 0xad,
  nbsp: 0xa0,
  NonBreakingSpace: 0xa0,
  ensp: 0x2002,
  emsp: 0x2003,
  emsp13: 0x2004,
  emsp14: 0x2005,
  numsp: 0x2007,
  puncsp: 0x2008,
  thinsp: 0x2009,
  ThinSpace: 0x2009,
  hairsp: 0x200a,
  VeryThinSpace: 0x200a,
  MediumSpace: 0x205f,
  Tab: 0x09,
  NewLine: 0x0a,
  amp: 0x26,
  AMP: 0x26,
  lt: 0x3c,
  LT: 0x3c,
  gt: 0x3e,
  GT: 0x3e,
  quot: 0x22,
  QUOT: 0x22,
  apos: 0x27,
  num: 0x23,
  percnt: 0x25,
  lowbar: 0x5f,
  UnderBar: 0x5f,
  period: 0x2e,
  sol: 0x2f,
  bsol: 0x5c,
  colon: 0x3a,
  semi: 0x3b,
  equals: 0x3d,
  quest: 0x3f,
  commat: 0x40,
  plus: 0x2b,
  comma: 0x2c,
  excl: 0x21,
  dollar: 0x24,
  ast: 0x2a,
  midast: 0x2a,
  lpar: 0x28,
  rpar: 0x29,
  lsqb: 0x5b,
  rsqb: 0x5d,
  lcub: 0x7b,
  rcub: 0x7d,
  verbar: 0x7c,
  tilde: 0x7e,
  grave: 0x60,
  Hat: 0x5e,
};
const LEGACY_NAMED = new Set(["shy", "nbsp", "amp", "AMP", "lt", "LT", "gt", "GT", "quot", "QUOT"]);

/** The single-character escapes of JSON and source code, by the letter after the backslash. */
const BACKSLASHED: Record<string, string> = {
  "\\": "\\",
  '"': '"',
  "'": "'",
  "/": "/",
  "`": "`",
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
};

/** A character as case-insensitive matching sees it (`ß` and `SS` alike; `ſ` as `s`). */
function fold(char: string): string {
  return char.length === 1 && char < "\x80" ? char.toLowerCase() : char.toUpperCase().toLowerCase();
}

const SOUGHT = new Map<string, Sought>();
function sought(secret: string): Sought | undefined {
  let found = SOUGHT.get(secret);
  if (found === undefined) {
    const folded = [...secret]
      .filter((char) => !HIDDEN_CHAR.test(char))
      .map(fold)
      .join("");
    const first = folded === "" ? "" : String.fromCodePoint(folded.codePointAt(0)!);
    const literal = first.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
    found = {
      folded,
      digits: /^\d+$/.test(folded),
      starts: new RegExp(`[^\\x00-\\x7f]|[%&\\\\]${literal === "" ? "" : `|${literal}`}`, "giu"),
    };
    if (SOUGHT.size >= 64) SOUGHT.clear();
    SOUGHT.set(secret, found);
  }
  return found.folded === "" ? undefined : found;
}

/** How {@link secretSpans} searches. */
export interface SpanSearch {
  /** At most one span: whether the text holds the secret at all. */
  readonly firstOnly?: boolean;
  /**
   * A secret of digits only found wherever it stands, also inside a longer number: for a credential,
   * which is redacted wherever a reader could copy it from. Otherwise only where it stands as a
   * number (`1001` in `order-1001`, not in `21001`), so an id is not taken for a secret.
   */
  readonly insideNumbers?: boolean;
}

/**
 * Every `[start, end)` of `text` where a person reads `secret` (see the file's comment); a secret of
 * digits only where it stands as a number, unless `insideNumbers` (see {@link SpanSearch}).
 */
export function secretSpans(text: string, secret: string, search: SpanSearch = {}): [number, number][] {
  const found = sought(secret);
  if (found === undefined) return [];
  const wanted = search.insideNumbers === true && found.digits ? { ...found, digits: false } : found;
  const firstOnly = search.firstOnly === true;
  const { folded } = wanted;
  if (PLAIN.test(text)) return plainSpans(text, wanted, firstOnly);
  const spans: [number, number][] = [];
  /** For each position ahead, the prefix lengths of `folded` that end there, each with its earliest start. */
  const pending = new Map<number, Map<number, number>>();
  const carry = (end: number, matched: number, start: number): void => {
    if (matched === folded.length) {
      if (!wanted.digits || standsAsNumber(text, start, end)) spans.push([start, end]);
      return;
    }
    const states = pending.get(end) ?? new Map<number, number>();
    if ((states.get(matched) ?? Infinity) > start) states.set(matched, start);
    pending.set(end, states);
  };
  let pos = 0;
  while (pos < text.length && !(firstOnly && spans.length > 0)) {
    const states = pending.get(pos);
    if (states === undefined && pending.size === 0) {
      // Nothing under way: go straight to where a match could start.
      wanted.starts.lastIndex = pos;
      const next = wanted.starts.exec(text);
      if (next === null) break;
      // Never back: a search from inside a surrogate pair finds the pair's start.
      pos = Math.max(pos, next.index);
    }
    pending.delete(pos);
    for (const reading of readingsAt(text, pos)) {
      const char = fold(reading.char);
      const hidden = HIDDEN_CHAR.test(reading.char);
      for (const [matched, start] of states ?? [])
        if (hidden) carry(reading.end, matched, start);
        else if (folded.startsWith(char, matched)) carry(reading.end, matched + char.length, start);
      if (!hidden && folded.startsWith(char)) carry(reading.end, char.length, pos);
    }
    // To the next character: a pair's second half is no position a reading starts at.
    pos += text.codePointAt(pos)! > 0xffff ? 2 : 1;
  }
  return spans;
}

/**
 * `text` as most readers read it, in one reading: every escape decoded (the longest at each
 * position, so `%2541` is `A`), hidden characters and their escapes dropped, again while that changes
 * something (an escape written in escapes). Not every reading (`%2541` is also `%41` to a reader that
 * decodes once: {@link secretSpans} sees them all), but one that holds, as plain text, whatever the
 * usual readers decode: for a quick test of many values at once, before the exact search on the few
 * it finds.
 */
export function decodedReading(text: string): string {
  let current = text;
  for (let round = 0; round < 4 && !PLAIN.test(current); round++) {
    let out = "";
    let pos = 0;
    while (pos < current.length) {
      const readings = readingsAt(current, pos);
      const longest = readings.reduce((best, reading) => (reading.end > best.end ? reading : best));
      if (!HIDDEN_CHAR.test(longest.char)) out += longest.char;
      pos = longest.end;
    }
    if (out === current) break;
    current = out;
  }
  return current;
}

/**
 * Printable ASCII without `%`, `&` and `\\`: text that has one reading only, itself (no escape, no
 * hidden character), searched as it is, which is most names and URLs.
 */
const PLAIN = /^[\x20-\x24\x27-\x5b\x5d-\x7e]*$/;

function plainSpans(text: string, wanted: Sought, firstOnly: boolean): [number, number][] {
  const lower = text.toLowerCase();
  const spans: [number, number][] = [];
  for (let at = lower.indexOf(wanted.folded); at >= 0; at = lower.indexOf(wanted.folded, at + 1)) {
    const end = at + wanted.folded.length;
    if (!wanted.digits || standsAsNumber(text, at, end)) spans.push([at, end]);
    if (firstOnly && spans.length > 0) break;
  }
  return spans;
}

function standsAsNumber(text: string, start: number, end: number): boolean {
  return !/\d/.test(text.charAt(start - 1)) && !/\d/.test(text.charAt(end));
}

/** The readings of `text` at `pos`: the character there, and each escape starting there, decoded. */
function readingsAt(text: string, pos: number): Reading[] {
  const code = text.codePointAt(pos)!;
  const char = String.fromCodePoint(code);
  const readings: Reading[] = [{ char, end: pos + char.length }];
  if (char === "%") readings.push(...percentReadings(text, pos));
  else if (char === "&") readings.push(...referenceReadings(text, pos));
  else if (char === "\\") readings.push(...backslashReadings(text, pos));
  return readings;
}

/**
 * `%XX` (a UTF-8 byte, or a multi-byte sequence of them), encoded again any number of times
 * (`%2541` is `%41` once decoded, `A` twice: both are readings), and `%uXXXX`.
 */
function percentReadings(text: string, pos: number): Reading[] {
  const readings: Reading[] = [];
  let again = pos + 1;
  // Each `25` that follows is a `%` of its own: once decoded, the rest is read from there.
  while (text.startsWith("25", again)) {
    readings.push({ char: "%", end: again + 2 });
    again += 2;
  }
  const byte = hexAt(text, again, 2);
  if (byte !== undefined) {
    const sequence = utf8From(text, byte, again + 2);
    if (sequence !== undefined) readings.push(sequence);
  }
  if (text.charAt(pos + 1) === "u") {
    const unit = utf16At(text, pos + 2, "%u");
    if (unit !== undefined) readings.push(unit);
  }
  return readings;
}

/** A character written as UTF-8 bytes, each `%XX` (itself encoded again or not), starting with `lead`. */
function utf8From(text: string, lead: number, after: number): Reading | undefined {
  if (lead < 0x80) return { char: String.fromCharCode(lead), end: after };
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (length === 0) return undefined;
  const bytes = [lead];
  let end = after;
  while (bytes.length < length) {
    if (text.charAt(end) !== "%") return undefined;
    let at = end + 1;
    while (text.startsWith("25", at) && hexAt(text, at + 2, 2) !== undefined) at += 2;
    const next = hexAt(text, at, 2);
    if (next === undefined || (next & 0xc0) !== 0x80) return undefined;
    bytes.push(next);
    end = at + 2;
  }
  const decoded = Buffer.from(bytes).toString("utf8");
  return decoded.includes("\ufffd") ? undefined : { char: decoded, end };
}

/** HTML character references: `&#8203;`, `&#x200b;` (the `;` may be missing, as browsers allow), `&shy;`. */
function referenceReadings(text: string, pos: number): Reading[] {
  const numeric = /^&#(?:[xX](?<hex>[0-9a-fA-F]{1,8})|(?<dec>[0-9]{1,10}));?/.exec(text.slice(pos, pos + 14));
  if (numeric !== null) {
    const { hex, dec } = numeric.groups!;
    const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    const char = characterOf(code);
    return char === undefined ? [] : [{ char, end: pos + numeric[0].length }];
  }
  const named = /^&([A-Za-z][A-Za-z0-9]{0,30})(;?)/.exec(text.slice(pos, pos + 34));
  if (named === null || !Object.hasOwn(NAMED, named[1]!)) return [];
  if (named[2] === "" && !LEGACY_NAMED.has(named[1]!)) return [];
  return [{ char: String.fromCodePoint(NAMED[named[1]!]!), end: pos + named[0].length }];
}

/** `\uXXXX` (a pair of them for a character outside the BMP), `\u{X...}`, `\UXXXXXXXX`, `\xXX`, `\n`, `\"`. */
function backslashReadings(text: string, pos: number): Reading[] {
  const kind = text.charAt(pos + 1);
  if (kind === "u" && text.charAt(pos + 2) === "{") {
    const close = text.indexOf("}", pos + 3);
    const digits = close < 0 ? "" : text.slice(pos + 3, close);
    const char = digits.length <= 8 && HEX.test(digits) ? characterOf(parseInt(digits, 16)) : undefined;
    return char === undefined ? [] : [{ char, end: close + 1 }];
  }
  if (kind === "u") {
    const unit = utf16At(text, pos + 2, "\\u");
    return unit === undefined ? [] : [unit];
  }
  const width = kind === "U" ? 8 : kind === "x" ? 2 : 0;
  if (width > 0) {
    const code = hexAt(text, pos + 2, width);
    const char = code === undefined ? undefined : characterOf(code);
    return char === undefined ? [] : [{ char, end: pos + 2 + width }];
  }
  const single = Object.hasOwn(BACKSLASHED, kind) ? BACKSLASHED[kind] : undefined;
  return single === undefined ? [] : [{ char: single, end: pos + 2 }];
}

/**
 * A UTF-16 unit written as four hex digits after `%u` or `\u` (`prefix`), with its low half when it
 * is a high surrogate.
 */
function utf16At(text: string, at: number, prefix: string): Reading | undefined {
  const unit = hexAt(text, at, 4);
  if (unit === undefined) return undefined;
  if (unit >= 0xd800 && unit <= 0xdbff && text.startsWith(prefix, at + 4)) {
    const low = hexAt(text, at + 4 + prefix.length, 4);
    if (low !== undefined && low >= 0xdc00 && low <= 0xdfff)
      return { char: String.fromCharCode(unit, low), end: at + 8 + prefix.length };
  }
  return { char: String.fromCharCode(unit), end: at + 4 };
}

function hexAt(text: string, at: number, width: number): number | undefined {
  const digits = text.slice(at, at + width);
  return digits.length === width && HEX.test(digits) ? parseInt(digits, 16) : undefined;
}

function characterOf(code: number): string | undefined {
  return Number.isSafeInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/**
 * `text` with each of `spans` replaced by `[REDACTED]`, spans that overlap or touch by one; the rest
 * unchanged, to the character.
 */
export function redactSpans(text: string, spans: readonly (readonly [number, number])[]): string {
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (start > at || out === "") out += `${text.slice(at, start)}[REDACTED]`;
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}
