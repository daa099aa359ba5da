/**
 * Token redaction and the display of text that came from a service. Internal: not exported from
 * the package's entry.
 *
 * - The token is removed by value from everything we build from the outside world (messages,
 *   service codes, causes), because a hostile or broken server can echo it anywhere.
 * - Service text shown to a person is bounded and has no control characters: a server could
 *   otherwise print megabytes into a pipeline log or drive the terminal with escape sequences.
 */

import { HIDDEN } from "./hidden";
import {
  SEARCHED_CHARS,
  decodedReading,
  readSpans,
  redactSpans,
  secretStartAtEnd,
  withoutCutEscape,
} from "./reading";
import { serviceOf } from "./service";

/**
 * Longest error message we ever build, in UTF-8 bytes (so also in characters): "at most 2 KB"
 * holds for any script, CJK included, and the 2,000-character promise with it. The name is kept
 * for its importers; every length cap in this file counts UTF-8 bytes.
 */
export const MAX_MESSAGE_CHARS = 2000;
/** The same cap, under the name that says what it counts. */
export const MAX_MESSAGE_BYTES = MAX_MESSAGE_CHARS;
/** Longest piece of service text quoted inside a message (a `msg`, a name, a URL), in UTF-8 bytes. */
export const MAX_QUOTED_CHARS = 300;

const UNSHOWABLE = HIDDEN;

/**
 * The value of a `sign_secret` field quoted in service text, in the forms a service may quote a
 * record in: JSON (`"sign_secret":"..."`, also escaped inside a JSON string), `sign_secret=...`,
 * `sign_secret: ...`, and the camelCase `signSecret`. Group 1 is everything before the value; a
 * value already redacted (a secret known by value) is left alone.
 */
const SIGN_SECRET_FIELD =
  /(?<!\/)(sign[_-]?secret\\?["']?(?:\s*(?:=>|[:=])|>)\s*(?:\[\s*)?\\?["']?)(?!\[?REDACTED\])([^"'\\\s,;&}\][<>]+)/gi;

/**
 * The values of `sign_secret` fields in `text` as a reader decodes it (./reading): a record quoted
 * in HTML-escaped or URL-encoded JSON (`&quot;sign_secret&quot;:&quot;...`), in XML
 * (`<sign_secret>...`, not its closing tag), in a PHP-like `'sign_secret' => '...'`; each is then
 * redacted by value, wherever it stands in the text as written.
 */
function signSecretValues(text: string): string[] {
  const values = new Set<string>();
  for (const reading of [text, decodedReading(text)])
    for (const match of reading.matchAll(SIGN_SECRET_FIELD))
      if (looksLikeSecret(match[2]!)) values.add(match[2]!);
  return [...values];
}

/**
 * Whether the word after a `sign_secret` field is a value to redact: one with a digit, or of 12
 * characters or more. A service's own words there (`sign_secret: must be at least 32 characters`,
 * `sign_secret=required`) are left as they are, here and wherever else the message uses them.
 */
function looksLikeSecret(value: string): boolean {
  return /\d/.test(value) || value.length >= 12;
}

/**
 * `text` with every occurrence of each secret replaced by `[REDACTED]`, the rest unchanged to the
 * character. For the credentials this process holds (the access token, a base URL held secret and
 * {@link secretForms its forms}), which are redacted wherever a reader finds them, whatever their
 * length: as a person reads the text (./reading, the same search the text policy uses), in any
 * letter case, written in escapes, split by hidden characters or their escapes (a secret of digits
 * as the text policy finds it: src/text/reading.ts, NUMBER_SECRET_DIGITS). A service, or a person
 * naming an endpoint, may echo a token anywhere.
 */
export function redact(text: string, secrets: readonly string[]): string {
  return redactSpans(text, readSpans(text, secrets.flatMap(withUnescapedForm)));
}

/**
 * A secret and, for one that holds JSON's escapes (`tk_9\\"Zq`, `ab\\\\cd`), the text they stand for
 * (`tk_9"Zq`, `ab\\cd`): JSON's quoting of that text, and util.inspect's, write the secret out whole.
 */
function withUnescapedForm(secret: string): string[] {
  if (!secret.includes("\\")) return [secret];
  try {
    const unescaped = JSON.parse(`"${secret}"`) as string;
    return unescaped === secret || unescaped === "" ? [secret] : [secret, unescaped];
  } catch {
    return [secret];
  }
}

/**
 * How many characters of text one character of a secret may take once written in escapes and split
 * by escaped hidden characters (`%25E2%2580%258B%2541` is 20): a text is read this far past what is
 * shown, so that a secret starting inside the shown part is seen whole.
 */
const ESCAPED_CHAR_LENGTH = 32;

/** Removes control and invisible characters and caps the UTF-8 length, marking a cut with `…` (within the cap). */
export function showable(text: string, maxBytes: number = MAX_QUOTED_CHARS): string {
  return cleanServiceText(text, [], maxBytes);
}

/**
 * Text from the outside world, made safe to show: control and invisible characters removed
 * FIRST (a token split by a newline or a zero-width space must not come back whole), then every
 * secret redacted, and the value of any `sign_secret` field quoted in it, then the length capped
 * at `maxBytes` UTF-8 bytes, cut at a code point boundary. Only as much of a huge text is read as
 * the result can show, plus enough to redact a secret that starts inside it.
 */
export function cleanServiceText(text: string, secrets: readonly string[], maxBytes: number): string {
  const longestSecret = secrets.reduce((longest, secret) => Math.max(longest, secret.length), 0);
  // Every character takes at least one byte, so this many characters fill the cap.
  const wanted = maxBytes + ESCAPED_CHAR_LENGTH * Math.min(longestSecret, SEARCHED_CHARS) + 1;
  let clean = "";
  let read = 0;
  while (read < text.length && clean.length < wanted) {
    let end = Math.min(text.length, read + 4096);
    // Never split a surrogate pair across chunks: an invisible astral character (a tag, a
    // variation selector) must be seen whole to be removed.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    clean += text.slice(read, end).replace(UNSHOWABLE, "");
    read = end;
  }
  const redacted = redact(clean, [...secrets, ...signSecretValues(clean)]).replace(
    SIGN_SECRET_FIELD,
    (field: string, before: string, value: string) =>
      looksLikeSecret(value) ? `${before}[REDACTED]` : field,
  );
  if (read >= text.length && fitsBytes(redacted, maxBytes)) return redacted;
  const room = Math.max(0, maxBytes - ELLIPSIS_BYTES);
  // The cut is read again: it may have made an escape of what it cut (`&#785;` cut to `&#78`, which
  // a page's reader takes for `N`), so an escape it ends inside is left out, and what is left is
  // redacted once more.
  const cut = redact(withoutCutEscape(prefixWithinBytes(redacted, room)), secrets);
  return `${withoutSecretStart(prefixWithinBytes(cut, room), secrets)}…`;
}

/**
 * `cut` without a tail that a secret could continue: what is shown of a text cut short may end in
 * the first characters of a secret whose rest lies past all that was read (its characters spread
 * apart by more escaped hidden characters than the window reads), and without the escape it may end
 * inside of. Each of the two may leave the other at the end (an escape before the secret's start, a
 * secret's start before the escape), so both are taken off until neither is left.
 */
function withoutSecretStart(cut: string, secrets: readonly string[]): string {
  const forms = secrets.flatMap(withUnescapedForm);
  let shown = withoutCutEscape(cut);
  for (let round = 0; round < MAX_TRIM_ROUNDS; round++) {
    const start = secretStartAtEnd(shown, forms);
    if (start === shown.length) return shown;
    shown = withoutCutEscape(shown.slice(0, start));
  }
  // A tail that keeps yielding one more escape or start: nothing of it is shown.
  return "";
}

/**
 * Most rounds of {@link withoutSecretStart}: each takes off an escape or a secret's start
 * (docs/client.md, "Redaction").
 */
export const MAX_TRIM_ROUNDS = 4;

const ELLIPSIS_BYTES = 3;

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Whether the UTF-8 form of `text` (a lone surrogate as U+FFFD, 3 bytes) is at most `maxBytes`. */
function fitsBytes(text: string, maxBytes: number): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes (a pair is 4 for 2 units).
  if (text.length * 3 <= maxBytes) return true;
  if (text.length > maxBytes) return false;
  return Buffer.byteLength(text, "utf8") <= maxBytes;
}

/** The longest prefix of `text` whose UTF-8 form is at most `maxBytes`, ending on a code point boundary. */
export function prefixWithinBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    const pair = isHighSurrogate(unit) && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/**
 * Service text as it may appear inside a message: cleaned (see {@link cleanServiceText}) and quoted,
 * at most `maxBytes` between its quotes as quoted. JSON's escaping doubles a backslash or a quote,
 * so a text of them cleaned to the cap would quote to twice it: such a text is cleaned to less room,
 * in proportion to what its quoting added, until the quoted piece fits.
 */
export function quoteServiceText(
  text: string,
  secrets: readonly string[] = [],
  maxBytes: number = MAX_QUOTED_CHARS,
): string {
  let room = maxBytes;
  for (let round = 0; ; round++) {
    const quoted = quotedOnce(text, secrets, room);
    const inside = Buffer.byteLength(quoted, "utf8") - 2;
    if (inside <= maxBytes || room === 0) return quoted;
    room = round < MAX_QUOTE_ROUNDS ? Math.min(room - 1, Math.floor((room * maxBytes) / inside)) : 0;
  }
}

/** Most times {@link quoteServiceText} cleans a text to less room before it gives it none. */
const MAX_QUOTE_ROUNDS = 8;

function quotedOnce(text: string, secrets: readonly string[], room: number): string {
  // Redacted again once quoted: JSON's escaping of a quote or backslash can rebuild a token that
  // holds one (a name `ab"cd` quotes as `"ab\"cd"`, which contains the token `ab\"cd`).
  const quoted = redact(JSON.stringify(cleanServiceText(text, secrets, room)), secrets);
  // A quoted text withheld from a point on (or whole: more readings than are searched) lost its
  // closing quote (or both) to the marker; it is still a quoted piece.
  const open = quoted.startsWith('"') ? "" : '"';
  const close = quoted.length > 1 && quoted.endsWith('"') ? "" : '"';
  return `${open}${quoted}${close}`;
}

/**
 * Copies an underlying failure into a plain Error with every occurrence of the secrets removed,
 * keeping `name`, `code` and `message` (and up to two levels of `cause`), so that `cause` chains are
 * useful for debugging but cannot leak the token.
 */
export function sanitizeCause(error: unknown, secrets: readonly string[], depth = 0): Error | undefined {
  // Whatever the caller passed (a cancel's reason is anyone's object): a getter that throws, or a
  // revoked proxy that throws on any look, is a cause that could not be read, never this call's throw.
  try {
    return copiedCause(error, secrets, depth);
  } catch {
    return new Error("[a cause that could not be read]");
  }
}

function copiedCause(error: unknown, secrets: readonly string[], depth: number): Error | undefined {
  if (error === undefined || error === null) return undefined;
  const scrub = (text: string): string => cleanServiceText(text, secrets, MAX_MESSAGE_CHARS);
  if (!(error instanceof Error))
    return new Error(scrub(typeof error === "string" ? error : (safeJson(error) ?? typeof error)));
  const copy = new Error(scrub(String(error.message)));
  copy.name = cleanServiceText(String(error.name), secrets, 100);
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") (copy as Error & { code?: string }).code = scrub(code);
  if (depth < 2 && error.cause !== undefined) {
    const inner = sanitizeCause(error.cause, secrets, depth + 1);
    if (inner) (copy as Error & { cause?: unknown }).cause = inner;
  }
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

/**
 * Sets `key` on an error (or any object) to `value`, as an own property where the prototype has only
 * a getter (a DOMException's `message`). False, and nothing thrown, when the object refuses (frozen,
 * or a getter that is its own): a caller that redacts in place then drops or copies what it could not.
 */
export function rewriteField(target: object, key: string, value: unknown): boolean {
  const fields = target as Record<string, unknown>;
  try {
    fields[key] = value;
  } catch {
    // An accessor without a setter, or a property that is read-only, in strict mode.
  }
  try {
    if (Object.is(fields[key], value)) return true;
    const enumerable = Object.getOwnPropertyDescriptor(target, key)?.enumerable ?? false;
    Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable });
    return true;
  } catch {
    // Frozen, a getter of its own that throws, or a proxy that refuses.
    return false;
  }
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * The forms a secret takes in text: itself and, for a URL, the service it names as state records
 * it ({@link serviceOf}: a provenance), its origin and host (and its host name, when it is a name),
 * and for an IPv6 host the address and port as Node.js names them, without brackets. A message
 * about a connection names the host it failed to reach ("list request to <host> failed: ENOTFOUND
 * <host>", "connect EHOSTUNREACH 2001:db8::1:443"), never the whole URL, so a base URL held secret
 * must be redacted by its host too.
 */
export function secretForms(value: string): string[] {
  const forms = [value];
  if (!/^https?:\/\//i.test(value.trim())) return forms;
  try {
    const url = new URL(value.trim());
    // The host alone too: a failed DNS lookup names it without the port, and a TLS error names an
    // address alone ("IP: 127.0.0.2 is not in the cert's list"); an IPv6 address without its
    // brackets, as Node.js names a peer ("connect ECONNREFUSED 2001:db8::1:443"). Not localhost,
    // which names no one.
    const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
    const address = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const hosts = url.hostname.startsWith("[")
      ? [`${address}:${port}`, address]
      : /^localhost$/i.test(url.hostname)
        ? []
        : [url.hostname];
    for (const form of [serviceOf(value), url.origin, url.host, ...hosts])
      if (form.length >= 4 && !forms.includes(form)) forms.push(form);
  } catch {
    // Not a URL after all: the value alone.
  }
  return forms;
}
