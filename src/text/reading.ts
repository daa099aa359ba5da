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
import { LEGACY_REFERENCES, NAMED_REFERENCES, NUMERIC_REPLACEMENTS } from "./named-references";

/** One reading of the text at a position: the character a reader sees and where its writing ends. */
interface Reading {
  readonly char: string;
  readonly end: number;
}

/** A secret as it is looked for: its characters case-folded, hidden ones (which no reader sees) dropped. */
interface Sought {
  /** Its first {@link SEARCHED_CHARS} characters, folded. */
  readonly folded: string;
  /** Longer than {@link SEARCHED_CHARS}: a match of its start withholds the text from there on. */
  readonly long: boolean;
  /** A short number ({@link NUMBER_SECRET_DIGITS}): looked for only where it stands as a number. */
  readonly digits: boolean;
  /** Where a match could start: the secret's first character (any case), an escape, or any non-ASCII character. */
  readonly starts: RegExp;
}

const HIDDEN_CHAR = new RegExp(`^(?:${HIDDEN_SOURCE})$`, "u");
/** A reading no one sees: hidden characters only (`&ThickSpace;` is two), or nothing (a tag). */
const HIDDEN_READING = new RegExp(`^(?:${HIDDEN_SOURCE})*$`, "u");

/**
 * Most characters of a secret searched for: a longer one is found by its start, and the text is
 * withheld from there on. The search costs the text's length times the secret's: a service that
 * lists signing secrets of 4,096 characters, or quotes a field of 60,000, would otherwise make one
 * message cost minutes.
 */
export const SEARCHED_CHARS = 256;
const HEX = /^[0-9a-fA-F]+$/;

/**
 * Named character references a page's reader decodes: all of the HTML standard's (a mathematical
 * `&fopf;` is an `f` to a URL's parser, `&fflig;` is `ff`, `&ee;` is `e`). Those marked legacy are
 * decoded without their `;` too.
 */
const NAMED: Readonly<Record<string, string>> = NAMED_REFERENCES;
const LEGACY_NAMED = new Set(LEGACY_REFERENCES);

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

/**
 * `secret` with its hidden characters dropped and the rest case-folded. Printable ASCII (every
 * signing secret, most tokens) holds no hidden character and folds as `toLowerCase` does.
 */
function foldedWhole(secret: string): string {
  if (PRINTABLE_ASCII.test(secret)) return secret.toLowerCase();
  return [...secret]
    .filter((char) => !HIDDEN_CHAR.test(char))
    .map(fold)
    .join("");
}
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Secrets kept prepared (a pattern each). A refresh of 1,000 endpoints searches each read for the
 * secrets it holds and those the process remembers: a cache of 64 was rebuilt at every read.
 */
const MAX_SOUGHT = 4096;
const SOUGHT = new Map<string, Sought>();
function sought(secret: string): Sought | undefined {
  let found = SOUGHT.get(secret);
  if (found === undefined) {
    const whole = foldedWhole(secret);
    const folded = whole.slice(0, SEARCHED_CHARS);
    const first = folded === "" ? "" : String.fromCodePoint(folded.codePointAt(0)!);
    const literal = first.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
    found = {
      folded,
      long: whole.length > SEARCHED_CHARS,
      digits: /^\d+$/.test(folded) && folded.length < NUMBER_SECRET_DIGITS,
      starts: new RegExp(`[^\\x00-\\x7f]|[%&<\\\\]${literal === "" ? "" : `|${literal}`}`, "giu"),
    };
    if (SOUGHT.size >= MAX_SOUGHT) SOUGHT.clear();
    SOUGHT.set(secret, found);
  }
  return found.folded === "" ? undefined : found;
}

/** Most prefixes of one secret under way at one position (see {@link secretSpans}). */
export const MAX_PENDING = 32;

/**
 * Fewest digits of a secret of digits only that is looked for inside a longer number too. A shorter
 * one (a principalId `1001`, a port) is looked for only where it stands as a number (`1001` in
 * `order-1001`, not in `21001`): such numbers sit inside others by chance, and an id is not taken for
 * a secret. A longer one (a token of digits) is found wherever a reader could copy it from.
 */
export const NUMBER_SECRET_DIGITS = 8;

/** How {@link secretSpans} searches. */
export interface SpanSearch {
  /** At most one span: whether the text holds the secret at all. */
  readonly firstOnly?: boolean;
}

/**
 * Every `[start, end)` of `text` where a person reads `secret` (see the file's comment); a secret of
 * fewer than {@link NUMBER_SECRET_DIGITS} digits only where it stands as a number.
 */
export function secretSpans(text: string, secret: string, search: SpanSearch = {}): [number, number][] {
  const wanted = sought(secret);
  if (wanted === undefined) return [];
  const firstOnly = search.firstOnly === true;
  const { folded } = wanted;
  if (PLAIN.test(text)) return plainSpans(text, wanted, firstOnly);
  const spans: [number, number][] = [];
  /** For each position ahead, the prefix lengths of `folded` that end there, each with its earliest start. */
  const pending = new Map<number, Map<number, number>>();
  const carry = (end: number, matched: number, start: number): void => {
    if (matched === folded.length) {
      if (!wanted.digits || standsAsNumber(text, start, end))
        spans.push([start, wanted.long ? text.length : end]);
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
    if (states !== undefined && states.size > MAX_PENDING) {
      // A secret a text matches in this many overlapping ways (a run of one letter, chosen by a
      // service that chose the secrets too) is not searched further: the text is withheld from
      // the earliest of them on, so the search costs the text's length times this bound at most.
      spans.push([Math.min(...states.values()), text.length]);
      break;
    }
    for (const reading of readingsAt(text, pos)) {
      const char = fold(reading.char);
      const hidden = HIDDEN_READING.test(reading.char);
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
 * position, so `%2541` is `A`), again while that changes something (an escape written in escapes:
 * `&#37;4E` is `%4E`, then `N`), then without the hidden characters no one sees. Not every reading
 * (`%2541` is also `%41` to a reader that decodes once: {@link secretSpans} sees them all; a
 * reader of some kinds of escape only: {@link foldedReadings}), but the one that holds, as plain
 * text, whatever the usual readers decode in turn.
 */
export function decodedReading(text: string): string {
  return withoutHidden(decodedWithSources(text)).text;
}

/** A decoded text and, for each of its UTF-16 units, the `[start, end)` of the original text it stands for. */
interface Decoded {
  readonly text: string;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** The first characters of the escapes and markup a reader may decode. */
const ESCAPE_KINDS = "%&\\<";

/**
 * `text` as a reader reads it who decodes the escapes that start with one of `kinds` (the longest
 * at each position) and no other: to a reader that decodes percent escapes only, `&#x200B;` is text
 * it sees, and `%0c` swallows the `c` after it only for a reader that decodes it. Hidden characters
 * are still there: {@link withoutHidden} drops them. Without `<`, markup is text: the longest reading of `<TOK...>` is
 * one tag, which would hide a secret written inside it from a search of that reading alone.
 */
function decodedWithSources(text: string, kinds = ESCAPE_KINDS): Decoded {
  let current: Decoded | undefined;
  let currentText = text;
  for (let round = 0; round < 4 && !PLAIN.test(currentText); round++) {
    const next = decodeRound(currentText, kinds);
    if (next.text === currentText) break;
    current = composed(current, next);
    currentText = next.text;
  }
  return current ?? { text, starts: [], ends: [] };
}

/** `next`, decoded from `before`'s text, with each unit standing for what its source units stood for. */
function composed(before: Decoded | undefined, next: Decoded): Decoded {
  return before === undefined
    ? next
    : {
        text: next.text,
        starts: next.starts.map((start) => before.starts[start]!),
        ends: next.ends.map((end) => before.ends[end - 1]!),
      };
}

function decodeRound(input: string, kinds: string): Decoded {
  let out = "";
  const starts: number[] = [];
  const ends: number[] = [];
  let pos = 0;
  while (pos < input.length) {
    const at = input.charAt(pos);
    // The longest reading; of two as long, the later (an escape's or a character's plain form).
    // A character that starts no escape is itself: NFKC is the person's, after the last decoding
    // (a decoder leaves `&ｎot` as it is, whose `ｎ` would otherwise end an escape).
    const longest = !ESCAPE_KINDS.includes(at)
      ? {
          char: String.fromCodePoint(input.codePointAt(pos)!),
          end: pos + (input.codePointAt(pos)! > 0xffff ? 2 : 1),
        }
      : kinds === PERCENT_ONCE
        ? ((at === "%" ? percentOnce(input, pos) : undefined) ?? { char: at, end: pos + 1 })
        : kinds === UNICODE_ESCAPES || kinds === BYTE_ESCAPES
          ? at === "\\"
            ? backslashOfKind(input, pos, kinds)
            : { char: at, end: pos + 1 }
          : !kinds.includes(at)
            ? { char: at, end: pos + 1 }
            : kinds === "\\" && at === "\\" && !STRICT_IDENTITY.test(input.charAt(pos + 1))
              ? strictBackslashAt(input, pos)
              : longestAt(input, pos);
    out += longest.char;
    for (let unit = 0; unit < longest.char.length; unit++) {
      starts.push(pos);
      ends.push(longest.end);
    }
    pos = longest.end;
  }
  return { text: out, starts, ends };
}

/**
 * Characters a strict reader of backslash escapes (JSON's, most languages') takes as themselves
 * after a backslash; JavaScript's reader takes any. The pass of backslash escapes alone reads
 * strictly: JavaScript's `\\&` would end `\\&#117;200b`, which a page's reader then makes `\\u200b`.
 */
const STRICT_IDENTITY = /^[A-Za-z0-9_\-\\"'/]?$/;

/** The longest reading at a backslash for a strict reader (see {@link STRICT_IDENTITY}). */
function strictBackslashAt(input: string, pos: number): Reading {
  const next = input.charAt(pos + 1);
  return readingsAt(input, pos)
    .filter((reading) => !(reading.end === pos + 2 && reading.char === next))
    .reduce((best, reading) => (reading.end >= best.end ? reading : best));
}

/**
 * `decoded` as a person sees it, each unit still standing for its source: without the characters no
 * one sees, and a compatibility character in its plain form (NFKC: a full-width or mathematical
 * letter is that letter to a URL's parser). Done once all rounds are, as a person reads the decoder's
 * output (`%0` then a zero-width space then `c` is no escape to a decoder, and `%0c` to the person).
 */
function withoutHidden(decoded: Decoded): Decoded {
  return eachCharacter(decoded, (char) =>
    HIDDEN_CHAR.test(char) ? "" : (compatibilityReadings(char, 0)[0]?.char ?? char),
  );
}

/**
 * `decoded` with each character replaced by `as(character)` (none, one or several), each unit of
 * what replaces it standing for the character's source. A text that needed no decoding stands for
 * itself, unit by unit.
 */
function eachCharacter(decoded: Decoded, as: (char: string) => string): Decoded {
  let text = "";
  const starts: number[] = [];
  const ends: number[] = [];
  for (let unit = 0; unit < decoded.text.length;) {
    const char = String.fromCodePoint(decoded.text.codePointAt(unit)!);
    const start = decoded.starts[unit] ?? unit;
    const end = decoded.ends[unit + char.length - 1] ?? unit + char.length;
    const replaced = as(char);
    text += replaced;
    for (let k = 0; k < replaced.length; k++) {
      starts.push(start);
      ends.push(end);
    }
    unit += char.length;
  }
  return { text, starts, ends };
}

/**
 * The longest reading at `pos` of `input` (of two as long, the later: an escape's or a character's
 * plain form), kept for the last few texts: every reader's reading of a text walks its positions.
 */
function longestAt(input: string, pos: number): Reading {
  const code = input.charCodeAt(pos);
  // A plain ASCII character reads as itself only.
  if (code < 0x80 && !ESCAPE_KINDS.includes(input.charAt(pos)))
    return { char: input.charAt(pos), end: pos + 1 };
  let kept = LONGEST.get(input);
  if (kept === undefined) {
    kept = new Map();
    if (LONGEST.size >= KEPT_TEXTS) LONGEST.delete(LONGEST.keys().next().value!);
    LONGEST.set(input, kept);
  }
  let longest = kept.get(pos);
  if (longest === undefined) {
    longest = readingsAt(input, pos).reduce((best, reading) => (reading.end >= best.end ? reading : best));
    kept.set(pos, longest);
  }
  return longest;
}
const KEPT_TEXTS = 4;
const LONGEST = new Map<string, Map<number, Reading>>();

/**
 * Where `secret` stands in the readings of `text` ({@link foldedReadings}), as spans of `text`: a
 * secret written in escapes of escapes (`&#37;4E`), which {@link secretSpans} does not read, is
 * redacted where it stands; a text of more readings than are searched, whole. A secret of fewer
 * than {@link NUMBER_SECRET_DIGITS} digits is left to secretSpans, which knows where it stands as a
 * number.
 */
export function decodedSpans(text: string, secret: string): [number, number][] {
  const wanted = sought(secret);
  if (wanted === undefined || wanted.digits || PLAIN.test(text)) return [];
  const { readings, complete } = foldedReadings(text);
  if (!complete) return [[0, text.length]];
  const spans: [number, number][] = [];
  for (const reading of readings)
    for (
      let at = reading.text.indexOf(wanted.folded);
      at >= 0;
      at = reading.text.indexOf(wanted.folded, at + 1)
    ) {
      const last = at + wanted.folded.length - 1;
      spans.push([reading.starts[at]!, wanted.long ? text.length : reading.ends[last]!]);
    }
  return spans;
}

/**
 * Whether `text` may hold a secret, given as {@link foldedSecret} folds it: its characters are in the
 * text as it is or in one of the readings readers make ({@link foldedReadings}: a pass over the text
 * each, then one substring test per secret; every secret when they are more than are searched).
 * True wherever a reader reads the secret: it picks the few of many (the signing secrets a listing
 * saw, those a process remembers) for {@link secretSpans} and {@link decodedSpans} to search exactly.
 * A secret holding `%` or `&` is not searched in every text for that: the readings hold each layer.
 */
export function mayHold(text: string): (folded: string) => boolean {
  // A plain text is its only reading, folded by letter case alone: searched where it stands, without
  // a folded copy of it (a listing's long record fields, each redacted of the token, made a copy of
  // every one: the hostile fat-records test's peak past its 256 MB).
  // Past a few secrets (the signing secrets a listing saw), one folded copy serves them all.
  if (text !== "" && PLAIN.test(text)) {
    let lower: string | undefined;
    let asked = 0;
    return (folded) => {
      if (folded === "") return false;
      if (lower === undefined && ++asked <= CASELESS_TESTS) return includesCaseless(text, folded);
      lower ??= text.toLowerCase();
      return lower.includes(folded);
    };
  }
  const held = heldTexts(text);
  if (held === undefined) return (folded) => folded !== "";
  return (folded) => folded !== "" && holds(held, folded);
}

/**
 * The texts {@link mayHold} looks for a folded secret in: `text` as it is, folded, then its readings;
 * undefined when they are more than are searched (every secret may be held).
 */
function heldTexts(text: string): string[] | undefined {
  if (text === "") return [];
  const plain = PLAIN.test(text);
  const literal = plain || ASCII.test(text) ? text.toLowerCase() : [...text].map(fold).join("");
  const read = plain ? { readings: [], complete: true } : foldedReadings(text);
  if (!read.complete) return undefined;
  return [literal, ...read.readings.map((reading) => reading.text)];
}

/** Whether one of `held` holds `folded` (a loop, not a closure per test: it runs per secret per text). */
function holds(held: readonly string[], folded: string): boolean {
  for (const text of held) if (text.includes(folded)) return true;
  return false;
}

/** The length of the ends a {@link HeldSecrets} indexes its secrets by. */
const INDEXED_END = 4;

/**
 * Secrets kept by their folded form ({@link foldedSecret}), found in a text as {@link mayHold} finds
 * them, at a cost that follows the text's length rather than how many are kept: each is indexed by
 * the last characters of its folded form, and a text's readings are looked up at every position. A
 * provider process tests every value it remembers (a signing secret per endpoint) on each read.
 */
export class HeldSecrets<T> {
  /** The last INDEXED_END characters of each folded secret → the folded secrets ending so → their values. */
  readonly #byEnd = new Map<string, Map<string, T>>();
  /** Folded secrets shorter than INDEXED_END (a hidden character folded away), tested on every text. */
  readonly #short = new Map<string, T>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  has(folded: string): boolean {
    return (
      (folded.length < INDEXED_END ? this.#short : this.#byEnd.get(folded.slice(-INDEXED_END)))?.has(
        folded,
      ) ?? false
    );
  }

  set(folded: string, value: T): void {
    if (folded === "" || this.has(folded)) return;
    if (folded.length < INDEXED_END) this.#short.set(folded, value);
    else {
      const end = folded.slice(-INDEXED_END);
      let bucket = this.#byEnd.get(end);
      if (bucket === undefined) this.#byEnd.set(end, (bucket = new Map<string, T>()));
      bucket.set(folded, value);
    }
    this.#size++;
  }

  delete(folded: string): void {
    const bucket = folded.length < INDEXED_END ? this.#short : this.#byEnd.get(folded.slice(-INDEXED_END));
    if (bucket?.delete(folded) === true) this.#size--;
  }

  /** The values of the secrets `text` may hold ({@link mayHold}), each once; all of them past MAX_READINGS. */
  in(text: string): T[] {
    if (this.#size === 0 || text === "") return [];
    const held = heldTexts(text);
    const found = new Set<T>();
    if (held === undefined) {
      for (const bucket of [this.#short, ...this.#byEnd.values()])
        for (const value of bucket.values()) found.add(value);
      return [...found];
    }
    this.#short.forEach((value, folded) => {
      if (holds(held, folded)) found.add(value);
    });
    for (const text of held)
      for (let at = INDEXED_END; at <= text.length; at++) {
        const bucket = this.#byEnd.get(text.slice(at - INDEXED_END, at));
        bucket?.forEach((value, folded) => {
          if (!found.has(value) && holds(held, folded)) found.add(value);
        });
      }
    return [...found];
  }
}

/**
 * Whether the plain (printable ASCII) `text` holds `folded` (a {@link foldedSecret}) in any letter
 * case: what `text.toLowerCase().includes(folded)` tells, without the copy. A character of `folded`
 * past ASCII is in no plain text, and matches none of its characters here either.
 */
function includesCaseless(text: string, folded: string): boolean {
  const length = folded.length;
  const first = folded.charCodeAt(0);
  const firstUpper = first >= 0x61 && first <= 0x7a ? first - 0x20 : first;
  for (let at = 0; at + length <= text.length; at++) {
    const code = text.charCodeAt(at);
    if (code !== first && code !== firstUpper) continue;
    let i = 1;
    for (; i < length; i++) {
      const c = text.charCodeAt(at + i);
      if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== folded.charCodeAt(i)) break;
    }
    if (i === length) return true;
  }
  return false;
}
/** Secrets a plain text is searched for in place before one folded copy of it serves the rest. */
const CASELESS_TESTS = 4;

/** A secret as {@link mayHold} takes it: case-folded, without the hidden characters no reader sees. */
export function foldedSecret(secret: string): string {
  let folded = FOLDED.get(secret);
  if (folded === undefined) {
    folded = foldedWhole(secret).slice(0, SEARCHED_CHARS);
    if (FOLDED.size >= MAX_FOLDED) FOLDED.clear();
    FOLDED.set(secret, folded);
  }
  return folded;
}

/**
 * Secrets kept folded: a client redacts every signing secret its listings saw (tens of thousands
 * on a crowded service) from each message, a provider process tests what it remembers on each read.
 */
const MAX_FOLDED = 65_536;
const FOLDED = new Map<string, string>();

// eslint-disable-next-line no-control-regex -- every ASCII character, controls included: toLowerCase folds them all
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Every span of `text` where a person reads one of `secrets`: as the text stands ({@link
 * secretSpans}) or in its decoded reading ({@link decodedSpans}), for the secrets it may hold. With
 * `firstOnly`, at most one: whether the text holds any of them. The one search behind the client's
 * redaction and the text policy.
 */
export function readSpans(text: string, secrets: readonly string[], firstOnly = false): [number, number][] {
  // A text of more readings than are searched is withheld whole (see MAX_READINGS), unsearched.
  if (secrets.length > 0 && !PLAIN.test(text) && !foldedReadings(text).complete) return [[0, text.length]];
  const spans: [number, number][] = [];
  for (const secret of secretsPossiblyIn(text, secrets)) {
    spans.push(...secretSpans(text, secret, { firstOnly }));
    if (!(firstOnly && spans.length > 0)) spans.push(...decodedSpans(text, secret));
    if (firstOnly && spans.length > 0) break;
  }
  return spans;
}

/**
 * Where `text` ends in the first characters of one of `secrets`, as some reader reads it: the first
 * such position in `text`, or `text.length` when it ends in none (0 when it has more readings than
 * are searched). What is shown of a text cut short is cut there, for a secret's rest may lie past
 * all that was read. A reading that ends inside an escape, a character's percent-escaped bytes or
 * unclosed markup ({@link partialTails}) is read without them too, and so is the text cut where they
 * start: the cut may have left `&amp;#82` of `&amp;#8203;` at the end, which one page's reader makes
 * `&#82`, another a hidden character, and which stands after the secret's start as nothing a reader
 * sees.
 */
export function secretStartAtEnd(text: string, secrets: readonly string[]): number {
  if (secrets.length === 0 || text.length === 0) return text.length;
  const folds = secrets.map(foldedSecret);
  let start = text.length;
  const ends = [text.length];
  for (let next = 0; next < ends.length && next < MAX_CUT_SOURCES; next++) {
    const { readings, complete } = foldedReadings(text.slice(0, ends[next]));
    if (!complete) return 0;
    for (const reading of readings) {
      const lengths = partialTails(reading.text);
      for (const length of lengths) {
        const at = secretStartBefore(reading.text, length, folds);
        if (at >= 0) start = Math.min(start, reading.starts[at]!);
      }
      const shortest = lengths.at(-1)!;
      const end = shortest < reading.text.length ? reading.starts[shortest]! : undefined;
      if (end !== undefined && !ends.includes(end)) ends.push(end);
    }
  }
  return start;
}

/** Most texts {@link secretStartAtEnd} reads: the text, and it cut where its readings' partial tails start. */
const MAX_CUT_SOURCES = 8;

/**
 * The fewest first characters of a secret a cut is taken back for (docs/client.md, "Redaction"), or
 * half of a shorter secret. Fewer tell a reader nothing of it, and a text that ends in one of them
 * (any `t`, for a secret `tok_...`) keeps its end.
 */
export const FEWEST_CUT_CHARS = 4;

/** {@link FEWEST_CUT_CHARS}, or half of `folded` if that is fewer (never none). */
function fewestShown(folded: string): number {
  return Math.max(1, Math.min(FEWEST_CUT_CHARS, Math.ceil(folded.length / 2)));
}

/** Where the longest start of one of `folds` that `text.slice(0, end)` ends in begins, or -1. */
function secretStartBefore(text: string, end: number, folds: readonly string[]): number {
  let first = -1;
  for (const folded of folds)
    // The longest start of the secret the text ends in is the one that begins first.
    for (let shown = Math.min(folded.length - 1, end); shown >= fewestShown(folded); shown--) {
      if (!text.startsWith(folded.slice(0, shown), end - shown)) continue;
      first = first < 0 ? end - shown : Math.min(first, end - shown);
      break;
    }
  return first;
}

/**
 * The lengths of `text` and of it without each partial tail in turn: an escape cut short
 * ({@link CUT_ESCAPE}), a character's percent-escaped bytes whose last may be missing (`%E2%80` of
 * `%E2%80%8B`, which a URL's reader shows as they stand), markup left open (`<!--aaa`, which a
 * page's reader renders as nothing).
 */
function partialTails(text: string): number[] {
  const lengths = [text.length];
  for (let rest = text; ;) {
    const open = openMarkupAt(rest);
    const shorter =
      open >= 0
        ? open
        : rest.length - (CUT_ESCAPE.exec(rest) ?? TRAILING_PERCENT_BYTES.exec(rest) ?? [""])[0].length;
    if (shorter === rest.length) return lengths;
    rest = rest.slice(0, shorter);
    lengths.push(shorter);
  }
}

/** A run of percent-escaped bytes at the end of a text, each escape encoded any number of times. */
const TRAILING_PERCENT_BYTES = /(?:%(?:25)*[0-9A-Fa-f]{2})+$/;

/**
 * The escape a text cut short may end inside of (`&#78`, `&#x0000002`, `&sh`, `%4`, `%2525u00`,
 * `\\u00`, `\\u{4`, `\\x4`, a lone `\\`, `<b`): what a reader would decode into another character
 * than the whole escape meant.
 */
const CUT_ESCAPE =
  /(?:&#[xX]?[0-9A-Fa-f]*|&[A-Za-z][A-Za-z0-9]{0,31}|&|%(?:25)*(?:u[0-9A-Fa-f]{0,3}|[0-9A-Fa-f])?|\\(?:u\{?[0-9A-Fa-f]{0,8}|U[0-9A-Fa-f]{0,7}|x\{[0-9A-Fa-f]{0,8}|x[0-9A-Fa-f]?|[0-7]{1,2})?|<[^<>]{0,64})$/;

/** `text` without the escape it may end inside of (see {@link CUT_ESCAPE}). */
export function withoutCutEscape(text: string): string {
  return text.replace(CUT_ESCAPE, "");
}

/** Where the first markup of `text` starts that runs to its end unclosed, or -1. */
function openMarkupAt(text: string): number {
  for (let at = text.indexOf("<"); at >= 0;) {
    const end = markupEnd(text, at);
    if (end === OPEN) return at;
    at = text.indexOf("<", end === undefined ? at + 1 : end);
  }
  return -1;
}

/** Of `secrets`, those `text` may hold (see {@link mayHold}). */
export function secretsPossiblyIn(text: string, secrets: readonly string[]): string[] {
  if (secrets.length === 0) return [];
  const may = mayHold(text);
  return secrets.filter((secret) => may(foldedSecret(secret)));
}

/**
 * Most readings of a text searched: past this many, the text is withheld whole wherever a secret
 * is sought in it (a text of escapes of every kind nested in every order is no name or message).
 */
export const MAX_READINGS = 128;

/** The readings of a text, and whether they are all of them (see {@link MAX_READINGS}). */
interface Readings {
  readonly readings: readonly Decoded[];
  readonly complete: boolean;
}

/**
 * The readings of `text` readers make, case-folded, with their sources. A reader decodes one kind
 * of escape (or markup) at a time, in any order, as often as that changes the text: a URL's reader
 * then a page's (`&#9%30;` is `&#90;`, then `Z`), a page's then a URL's (`&#37;E2%80%8B`), one kind
 * alone (to a page's reader `%0c` is text, whose `c` a URL's reader takes into an escape), none
 * (only hidden characters unseen); and every kind at once, the longest escape at each position
 * ({@link decodedReading}), with markup and without (`<TOK...>` is a tag to one, text to the other).
 * No one reading stands for the others.
 */
function foldedReadings(text: string): Readings {
  let kept = lastReadings.find((last) => last.source === text);
  if (kept === undefined) {
    const found = new Map<string, Decoded>();
    const add = (decoded: Decoded): void => {
      const visible = withoutHidden(decoded);
      if (!found.has(visible.text)) found.set(visible.text, folded(visible));
    };
    add(decodedWithSources(text));
    if (text.includes("<")) add(decodedWithSources(text, ESCAPE_KINDS.replace("<", "")));
    // Every sequence of one-kind passes, breadth first; a text reached twice is read once.
    const seen = new Set([text]);
    let layer: { text: string; decoded: Decoded | undefined }[] = [{ text, decoded: undefined }];
    add({ text, starts: [], ends: [] });
    let complete = true;
    explore: for (let depth = 0; depth <= MAX_PASSES && layer.length > 0; depth++) {
      const next: typeof layer = [];
      for (const from of layer)
        for (const kind of PASSES) {
          if (!from.text.includes(kind.charAt(0))) continue;
          const pass = decodeRound(from.text, kind);
          if (seen.has(pass.text)) continue;
          // A new text past the last pass, or past the most readings: not all are read.
          if (depth === MAX_PASSES || seen.size >= MAX_READINGS) {
            complete = false;
            break explore;
          } else {
            seen.add(pass.text);
            const decoded = composed(from.decoded, pass);
            add(decoded);
            next.push({ text: pass.text, decoded });
          }
        }
      layer = next;
    }
    kept = { source: text, readings: { readings: [...found.values()], complete } };
    lastReadings.unshift(kept);
    lastReadings.length = Math.min(lastReadings.length, KEPT_TEXTS);
  }
  return kept.readings;
}

/**
 * The one-kind passes: each kind of escape, the longest at each position (`%2541` is `A`), and
 * percent-escapes decoded once (`%2541` is `%41`, as `decodeURIComponent` and a URL's parser
 * decode; `%u0041` is no escape to them).
 */
const PERCENT_ONCE = "%1";
/**
 * Backslash escapes of one family only: `\\u` (and JSON's one-letter escapes), as a reader that
 * leaves `\\x0c` as text reads them (Java's properties, a "unicode unescape"); `\\x` and octal, as a
 * reader of bytes that leaves `\\u` as text reads them (Python's bytes literals).
 */
const UNICODE_ESCAPES = "\\u";
const BYTE_ESCAPES = "\\x";
const PASSES = [...ESCAPE_KINDS, PERCENT_ONCE, UNICODE_ESCAPES, BYTE_ESCAPES];

/** The longest reading at a backslash for a reader of one family of backslash escapes. */
function backslashOfKind(input: string, pos: number, kind: string): Reading {
  const next = input.charAt(pos + 1);
  const single = Object.hasOwn(BACKSLASHED, next);
  const ours =
    kind === UNICODE_ESCAPES ? next === "u" || single : next === "x" || /[0-7]/.test(next) || single;
  if (!ours) return { char: "\\", end: pos + 1 };
  return STRICT_IDENTITY.test(next) ? longestAt(input, pos) : strictBackslashAt(input, pos);
}

/** Most one-kind passes in a row: escapes of escapes of escapes, each layer a pass. */
export const MAX_PASSES = 12;

/**
 * The last texts' readings, case-folded, with their sources: a value is searched for several
 * secrets in turn.
 */
const lastReadings: { source: string; readings: Readings }[] = [];

/** `decoded` case-folded, each unit still standing for its source. */
function folded(decoded: Decoded): Decoded {
  return eachCharacter(decoded, fold);
}

/**
 * Printable ASCII without `%`, `&` and `\\`: text that has one reading only, itself (no escape, no
 * hidden character), searched as it is, which is most names and URLs.
 */
const PLAIN = /^[\x20-\x24\x27-\x3b\x3d-\x5b\x5d-\x7e]*$/;

function plainSpans(text: string, wanted: Sought, firstOnly: boolean): [number, number][] {
  const lower = text.toLowerCase();
  const spans: [number, number][] = [];
  for (let at = lower.indexOf(wanted.folded); at >= 0; at = lower.indexOf(wanted.folded, at + 1)) {
    const end = at + wanted.folded.length;
    if (!wanted.digits || standsAsNumber(text, at, end)) spans.push([at, wanted.long ? text.length : end]);
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
  // Not spread into push: a run of `%2525...` yields a reading per `25`, past what a call takes.
  const more =
    char === "%"
      ? percentReadings(text, pos)
      : char === "&"
        ? referenceReadings(text, pos)
        : char === "\\"
          ? backslashReadings(text, pos)
          : char === "<"
            ? markupReadings(text, pos)
            : compatibilityReadings(char, pos);
  for (const reading of more) readings.push(reading);
  return readings;
}

/**
 * A compatibility character as its plain form (NFKC): a full-width, circled or mathematical letter
 * is that letter to a URL's parser (`new URL("https://ｔｏｋ.example").host` is `tok.example`).
 */
function compatibilityReadings(char: string, pos: number): Reading[] {
  // A hidden character stays hidden (a no-break space is a space to NFKC, and still unseen here).
  if (char < "\u00a0" || HIDDEN_CHAR.test(char)) return [];
  const plain = char.normalize("NFKC");
  return plain === char || plain === "" ? [] : [{ char: plain, end: pos + char.length }];
}

/**
 * Markup a page renders as nothing between two letters, read as the HTML tokenizer reads it: a tag
 * (`<wbr>`, `<b>`, `</b>`, `<my-element title="a>b">`, `<b<i>`, whose name holds the `<`), a comment
 * (`<!---->`, the abrupt `<!-->`), a bogus comment (`<?x?>`, `<!x>`, `</#>`, `<![CDATA[]]>`): a
 * reading that stands for no character, however long (a comment of thousands of characters between
 * two halves of a token hides neither from the page's reader). Its end is found by searches of the
 * text that each later `<` takes up where the last left off ({@link nextIndex}), so a text of many
 * `<` costs no more than a few reads of it.
 */
function markupReadings(text: string, pos: number): Reading[] {
  const end = markupEnd(text, pos);
  return end === undefined || end === OPEN ? [] : [{ char: "", end }];
}

/** What {@link markupEnd} returns for markup that starts and runs to the end of the text, unclosed. */
const OPEN = -1;

/**
 * Where the markup at `pos` of `text` (a `<`) ends; {@link OPEN} when it runs to the end of the
 * text unclosed (which a page's reader renders as nothing too); undefined when `<` starts no markup.
 */
function markupEnd(text: string, pos: number): number | undefined {
  if (text.startsWith("<!--", pos)) {
    if (text.startsWith("<!-->", pos)) return pos + 5;
    if (text.startsWith("<!--->", pos)) return pos + 6;
    // Closed by `-->`, or by the `--!>` the tokenizer takes for it.
    const close = firstFound(nextIndex(text, "-->", pos + 4), nextIndex(text, "--!>", pos + 4));
    return close < 0 ? OPEN : close + (text.startsWith("-->", close) ? 3 : 4);
  }
  const next = text.charAt(pos + 1);
  const closing = next === "/";
  const first = closing ? text.charAt(pos + 2) : next;
  // A bogus comment, `</>` among them (no tag, and nothing to the tokenizer's reader).
  if (next === "?" || next === "!" || (closing && first !== "" && !/[A-Za-z]/.test(first))) {
    const close = nextIndex(text, ">", pos + 2);
    return close < 0 ? OPEN : close + 1;
  }
  if (!/[A-Za-z]/.test(first)) return undefined;
  const end = tagEnd(text, closing ? pos + 3 : pos + 2);
  if (closing || end === OPEN) return end;
  // An element whose content a page does not show (`<style>`, `<script>`, `<title>`...) hides it
  // with its tags, to the end of its end tag (to the end of the text without one).
  const name = /^[A-Za-z][^\t\n\f\r />]*/.exec(text.slice(pos + 1, pos + 12))?.[0].toLowerCase() ?? "";
  const endTag = UNSHOWN_CONTENT.get(name);
  if (endTag === undefined) return end;
  if (name === "script") return scriptEnd(text, end);
  if (name === "template") return templateEnd(text, pos, end);
  const close = nextIndex(text, endTag, end);
  return close < 0 ? OPEN : markupEnd(text, close);
}

/**
 * Where the template whose start tag is at `pos` (and ends at `from`) ends, past its end tag: its
 * content is markup, read as the rest is (a `</template>` in a comment, an attribute's value or a
 * script there ends nothing), and templates in it nest. One walk of the text, one piece of markup at
 * a time, matches every template it passes to its end tag, as a stack does; each is then answered
 * from it, so a text of many templates is walked once.
 */
function templateEnd(text: string, pos: number, from: number): number {
  if (templateWalk?.text === text && templateWalk.ends.has(pos)) return templateWalk.ends.get(pos)!;
  const ends = new Map<number, number>();
  const open = [pos];
  let at = text.indexOf("<", from);
  while (at >= 0 && open.length > 0) {
    const closing = text.charAt(at + 1) === "/";
    if (isTagNamed(text, at + (closing ? 2 : 1), "template")) {
      const tag = tagEnd(text, at + (closing ? 3 : 2));
      if (tag === OPEN) break;
      if (closing) ends.set(open.pop()!, tag);
      else open.push(at);
      at = text.indexOf("<", tag);
      continue;
    }
    const markup = markupEnd(text, at);
    at = markup === OPEN ? -1 : text.indexOf("<", markup ?? at + 1);
  }
  // Those left open run to the end of the text: a page shows nothing after them.
  for (const start of open) ends.set(start, OPEN);
  templateWalk = { text, ends };
  return ends.get(pos)!;
}

/** The last walk of {@link templateEnd}: where each template it passed ends. */
let templateWalk: { text: string; ends: Map<number, number> } | undefined;

/** Whether a tag named `name` (in any letter case) starts at `at`, its name ended there. */
function isTagNamed(text: string, at: number, name: string): boolean {
  return (
    text.slice(at, at + name.length).toLowerCase() === name &&
    /^[\t\n\f\r />]$/.test(text.charAt(at + name.length))
  );
}

/**
 * Where a script's end tag ends, its content read as the tokenizer reads script data: after `<!--`
 * it is escaped, and a `<script` there opens a part that a `</script>` only closes back to escaped
 * (`<script><!--<script></script>x</script>` is one script); `-->` ends the escape.
 */
function scriptEnd(text: string, from: number): number {
  const step = /<!--|-->|<(\/?)script(?=[\t\n\f\r />])/gi;
  step.lastIndex = from;
  let state: "data" | "escaped" | "double" = "data";
  for (let found = step.exec(text); found !== null; found = step.exec(text)) {
    const [token, slash] = found;
    if (token === "<!--") state = state === "data" ? "escaped" : state;
    else if (token === "-->") state = "data";
    else if (slash === "/" && state !== "double") return markupEnd(text, found.index) ?? OPEN;
    else if (slash === "/") state = "escaped";
    else if (state === "escaped") state = "double";
  }
  return OPEN;
}

/**
 * Elements whose content a page does not show, and their end tags: raw text a browser keeps out of
 * the page (`<script>`, `<style>`), the tab's `<title>`, a template's content, the fallbacks of
 * `<noscript>`, `<noembed>`, `<noframes>` and `<iframe>`.
 */
const UNSHOWN_CONTENT = new Map(
  ["script", "style", "title", "template", "noscript", "noembed", "noframes", "iframe"].map((name) => [
    name,
    new RegExp(`</${name}[\\t\\n\\f\\r />]`, "gi"),
  ]),
);

/**
 * Where a tag whose name's first letter is just before `from` ends (past its `>`), or {@link OPEN}:
 * walked as the HTML tokenizer walks it, state by state. A quote opens a value only where the
 * tokenizer waits for one (after an attribute's `=`, spaces between): in a name, `<b 'x>`, `<b="x>`,
 * `<b ="x>`, or in an unquoted value, `<b a=b"x>`, it is a character like any other. A tag that
 * starts inside the last tag walked ends where that one does once the two walks meet in the same
 * state at the same place: a text of many `<` inside one long tag is walked about once.
 */
function tagEnd(text: string, from: number): number {
  const last = lastTagAround(text, from);
  // The states walked, grown as the walk goes: most tags are short, and the text may be long.
  let states: Uint8Array = new Uint8Array(Math.min(64, text.length - from));
  let state: number = TAG_NAME;
  let at = from;
  let end = OPEN;
  walk: while (at < text.length) {
    if (last !== undefined && at < last.until && last.states[at - last.from] === state) return last.end;
    states = withRoom(states, at - from + 1, text.length - from);
    states[at - from] = state;
    const char = text.charAt(at);
    const space = char === " " || char === "\t" || char === "\n" || char === "\f" || char === "\r";
    switch (state) {
      case TAG_NAME:
      case UNQUOTED:
        if (char === ">") {
          end = at + 1;
          break walk;
        }
        if (space) state = BEFORE_NAME;
        else if (char === "/" && state === TAG_NAME) state = SELF_CLOSING;
        at++;
        break;
      case BEFORE_NAME:
        if (char === "/" || char === ">") state = AFTER_NAME;
        else if (!space) {
          state = NAME;
          // An `=` there starts the name, and is not the name's end.
          if (char === "=") at++;
        } else at++;
        break;
      case NAME:
        if (space || char === "/" || char === ">") state = AFTER_NAME;
        else {
          if (char === "=") state = BEFORE_VALUE;
          at++;
        }
        break;
      case AFTER_NAME:
        if (char === ">") {
          end = at + 1;
          break walk;
        }
        if (space) at++;
        else if (char === "/" || char === "=") {
          state = char === "/" ? SELF_CLOSING : BEFORE_VALUE;
          at++;
        } else state = NAME;
        break;
      case AFTER_VALUE:
      case SELF_CLOSING:
        if (char === ">") {
          end = at + 1;
          break walk;
        }
        if (state === AFTER_VALUE && (space || char === "/")) {
          state = space ? BEFORE_NAME : SELF_CLOSING;
          at++;
        } else state = BEFORE_NAME;
        break;
      case BEFORE_VALUE:
        if (char === ">") {
          end = at + 1;
          break walk;
        }
        if (char === '"' || char === "'") {
          // The value runs to the same quote: no `>` in it ends the tag.
          const close = nextIndex(text, char, at + 1);
          const until = close < 0 ? text.length : close + 1;
          states = withRoom(states, until - from, text.length - from);
          states.fill(char === '"' ? DOUBLE : SINGLE, at + 1 - from, until - from);
          at = until;
          state = AFTER_VALUE;
        } else if (space) at++;
        else state = UNQUOTED;
        break;
    }
  }
  lastTag = { text, from, until: end === OPEN ? text.length : end, end, states };
  return end;
}

/** The last tag walked, when a tag starting at `from` of `text` lies inside it. */
function lastTagAround(text: string, from: number): typeof lastTag {
  return lastTag !== undefined && lastTag.text === text && from > lastTag.from && from < lastTag.until
    ? lastTag
    : undefined;
}

/** `states`, or a copy of it grown (at least twice as long, at most `most`) to hold `size`. */
function withRoom(states: Uint8Array, size: number, most: number): Uint8Array {
  if (size <= states.length) return states;
  const grown = new Uint8Array(Math.min(most, Math.max(size, states.length * 2)));
  grown.set(states);
  return grown;
}

/** The tokenizer's states inside a tag. */
const [
  TAG_NAME,
  BEFORE_NAME,
  NAME,
  AFTER_NAME,
  BEFORE_VALUE,
  DOUBLE,
  SINGLE,
  UNQUOTED,
  AFTER_VALUE,
  SELF_CLOSING,
] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;

/** The last tag {@link tagEnd} walked: where, its end, and the state the walk was in at each place. */
let lastTag: { text: string; from: number; until: number; end: number; states: Uint8Array } | undefined;

/**
 * Where `needle` (a string, or a global pattern) is next in `text` at or after `from`, or -1,
 * remembered: the last answer for each needle serves every later search from no further than it
 * (and a search that found nothing serves every later one).
 */
function nextIndex(text: string, needle: string | RegExp, from: number): number {
  let last = lastFound.get(needle);
  if (last === undefined || last.text !== text || from < last.from || (last.at >= 0 && from > last.at)) {
    let at: number;
    if (typeof needle === "string") at = text.indexOf(needle, from);
    else {
      needle.lastIndex = from;
      at = needle.exec(text)?.index ?? -1;
    }
    last = { text, from, at };
    lastFound.set(needle, last);
  }
  return last.at;
}

const lastFound = new Map<string | RegExp, { text: string; from: number; at: number }>();

/** The first of two positions found (-1 for none found). */
function firstFound(a: number, b: number): number {
  return a < 0 ? b : b < 0 ? a : Math.min(a, b);
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
    // A byte that starts no UTF-8 character is its Latin-1 one to a reader of bytes (JavaScript's
    // `unescape`, a page shown in Latin-1): `%AD` is a soft hyphen, no one sees it.
    readings.push(utf8From(text, byte, again + 2) ?? { char: String.fromCharCode(byte), end: again + 2 });
  }
  if (text.charAt(pos + 1) === "u") {
    const unit = utf16At(text, pos + 2, "%u");
    if (unit !== undefined) readings.push(unit);
  }
  return readings;
}

/** A character written as UTF-8 bytes, each `%XX` (itself encoded again or not), starting with `lead`. */
function utf8From(text: string, lead: number, after: number): Reading | undefined {
  return utf8Character(lead, after, (end) => {
    if (text.charAt(end) !== "%") return undefined;
    let at = end + 1;
    while (text.startsWith("25", at) && hexAt(text, at + 2, 2) !== undefined) at += 2;
    const byte = hexAt(text, at, 2);
    return byte === undefined ? undefined : { byte, end: at + 2 };
  });
}

/**
 * The character whose UTF-8 form starts with the byte `lead` (its escape ending at `after`), each
 * further byte read by `byteAt` from where the last one's escape ended; undefined when the bytes
 * make no character.
 */
function utf8Character(
  lead: number,
  after: number,
  byteAt: (at: number) => { byte: number; end: number } | undefined,
): Reading | undefined {
  if (lead < 0x80) return { char: String.fromCharCode(lead), end: after };
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (length === 0) return undefined;
  const bytes = [lead];
  let end = after;
  while (bytes.length < length) {
    const next = byteAt(end);
    if (next === undefined || (next.byte & 0xc0) !== 0x80) return undefined;
    bytes.push(next.byte);
    end = next.end;
  }
  const char = Buffer.from(bytes).toString("utf8");
  return char.includes("\ufffd") ? undefined : { char, end };
}

/**
 * `%XX` decoded once, as `decodeURIComponent` decodes it: a UTF-8 sequence of plain `%XX` bytes,
 * no `%25` read further, no `%uXXXX`.
 */
function percentOnce(text: string, pos: number): Reading | undefined {
  const lead = hexAt(text, pos + 1, 2);
  if (lead === undefined) return undefined;
  return utf8Character(lead, pos + 3, (end) => {
    const byte = text.charAt(end) === "%" ? hexAt(text, end + 1, 2) : undefined;
    return byte === undefined ? undefined : { byte, end: end + 3 };
  });
}

/** HTML character references: `&#8203;`, `&#x200b;` (the `;` may be missing, as browsers allow), `&shy;`. */
function referenceReadings(text: string, pos: number): Reading[] {
  NUMERIC_REFERENCE.lastIndex = pos;
  const numeric = NUMERIC_REFERENCE.exec(text);
  if (numeric !== null) {
    const { hex, dec } = numeric.groups!;
    const written = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    // A page's reader puts Windows-1252's characters for 0x80 to 0x9F (`&#153;` is ™).
    const char = characterOf(NUMERIC_REPLACEMENTS[written] ?? written);
    return char === undefined ? [] : [{ char, end: pos + numeric[0].length }];
  }
  NAMED_REFERENCE.lastIndex = pos;
  const named = NAMED_REFERENCE.exec(text);
  if (named === null) return [];
  const [whole, name, semicolon] = named as unknown as [string, string, string];
  if (Object.hasOwn(NAMED, name) && (semicolon === ";" || LEGACY_NAMED.has(name)))
    return [{ char: namedCharacter(name), end: pos + whole.length }];
  // A page's reader takes the longest legacy name that starts a longer run: `&shyQ` is U+00AD, then Q.
  const legacy = LEGACY_LONGEST_FIRST.find((candidate) => name.startsWith(candidate));
  return legacy === undefined ? [] : [{ char: namedCharacter(legacy), end: pos + 1 + legacy.length }];
}

/**
 * `&#78;`, `&#x4E;`, with any number of leading zeros (`&#0000078;`, as a page's reader takes it),
 * the `;` optional. Sticky: read from the position, however long a run of zeros.
 */
const NUMERIC_REFERENCE = /&#(?:[xX]0*(?<hex>[0-9a-fA-F]{1,8})|0*(?<dec>[0-9]{1,10}));?/y;
const NAMED_REFERENCE = /&([A-Za-z][A-Za-z0-9]{0,30})(;?)/y;
function namedCharacter(name: string): string {
  return NAMED[name]!;
}

const LEGACY_LONGEST_FIRST = [...LEGACY_NAMED].sort((a, b) => b.length - a.length);

/** `\uXXXX` (a pair of them for a character outside the BMP), `\u{X...}`, `\UXXXXXXXX`, `\xXX`, `\n`, `\"`. */
const BRACED_ESCAPE = /\\[ux]\{0*([0-9a-fA-F]{1,6})\}/y;

function backslashReadings(text: string, pos: number): Reading[] {
  const kind = text.charAt(pos + 1);
  if ((kind === "u" || kind === "x") && text.charAt(pos + 2) === "{") {
    // `\u{4E}`, with any number of leading zeros (`\u{000000004E}`, as JavaScript takes it), and
    // Perl's and PHP's `\x{4E}`.
    BRACED_ESCAPE.lastIndex = pos;
    const braced = BRACED_ESCAPE.exec(text);
    const char = braced === null ? undefined : characterOf(parseInt(braced[1]!, 16));
    return char === undefined ? [] : [{ char, end: pos + braced![0].length }];
  }
  if (kind === "u") {
    const unit = utf16At(text, pos + 2, "\\u");
    return unit === undefined ? [] : [unit];
  }
  // A character's UTF-8 bytes, each a `\\x` or octal escape (`\\xe2\\x80\\x8b`, `\\342\\200\\213`), as a
  // reader of bytes (C, Python's bytes, a shell's printf) makes them one character.
  const readings: Reading[] = [];
  const bytes = utf8Escaped(text, pos);
  if (bytes !== undefined) readings.push(bytes);
  const width = kind === "U" ? 8 : kind === "x" ? 2 : 0;
  if (width > 0) {
    const code = hexAt(text, pos + 2, width);
    const char = code === undefined ? undefined : characterOf(code);
    if (char !== undefined) readings.push({ char, end: pos + 2 + width });
    return readings;
  }
  // A line continuation is nothing to JavaScript's reader (`\\` then a line break).
  const lineBreak = /^(?:\r\n|[\n\r\u2028\u2029])/.exec(text.slice(pos + 1, pos + 3))?.[0];
  if (lineBreak !== undefined) return [{ char: "", end: pos + 1 + lineBreak.length }];
  // An astral character after a backslash is itself to JavaScript's reader, as any other is.
  const astral = text.codePointAt(pos + 1);
  if (astral !== undefined && astral > 0xffff) return [{ char: String.fromCodePoint(astral), end: pos + 3 }];
  // Source code's octal escapes (`\\132` is Z in C, Python, a shell's $'...' and sloppy JavaScript).
  const octal = /^[0-7]{1,3}/.exec(text.slice(pos + 1, pos + 4))?.[0];
  if (octal !== undefined && octal !== "0" && parseInt(octal, 8) <= 0xff)
    readings.push({ char: String.fromCharCode(parseInt(octal, 8)), end: pos + 1 + octal.length });
  const single = Object.hasOwn(BACKSLASHED, kind) ? BACKSLASHED[kind] : undefined;
  if (single !== undefined) readings.push({ char: single, end: pos + 2 });
  // Any other character after a backslash is itself to a JavaScript string's reader (`\\Z` is Z).
  else if (kind !== "" && !/[\n\r0-7\ud800-\udfff]/.test(kind)) readings.push({ char: kind, end: pos + 2 });
  return readings;
}

/** One byte written as `\\xHH` or as three octal digits at `at`, and where its escape ends. */
function byteEscapeAt(text: string, at: number): { byte: number; end: number } | undefined {
  if (text.charAt(at) !== "\\") return undefined;
  if (text.charAt(at + 1) === "x") {
    const byte = hexAt(text, at + 2, 2);
    return byte === undefined ? undefined : { byte, end: at + 4 };
  }
  const octal = /^[0-7]{3}/.exec(text.slice(at + 1, at + 4))?.[0];
  return octal === undefined || parseInt(octal, 8) > 0xff
    ? undefined
    : { byte: parseInt(octal, 8), end: at + 4 };
}

/** A character of two to four UTF-8 bytes written in byte escapes from `pos` (see {@link byteEscapeAt}). */
function utf8Escaped(text: string, pos: number): Reading | undefined {
  const first = byteEscapeAt(text, pos);
  // A byte below 0xC0 is read by the escape's own reading, as the character of its code.
  if (first === undefined || first.byte < 0xc0) return undefined;
  return utf8Character(first.byte, first.end, (at) => byteEscapeAt(text, at));
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
