import type { WebhookEndpointRecord } from "../../client";
import { charOrEscape } from "../../text";

/**
 * Where a command writes, and what it may know about the terminal. Results go to stdout (a table
 * for people, JSON for scripts); progress, notices and errors go to stderr. Commands take a sink
 * instead of touching `process`, so their logic runs in tests without spawning.
 */
export interface Sink {
  stdout(text: string): void;
  stderr(text: string): void;
  /** stderr is a terminal: progress may be shown (and redrawn in place). */
  readonly stderrIsTTY: boolean;
  /** stdin is a terminal: a command may ask for confirmation. */
  readonly stdinIsTTY: boolean;
  /** Asks a yes/no question on the terminal; resolves false when there is none. */
  confirm?(question: string): Promise<boolean>;
}

/** A sink that collects everything, for tests and for callers that post-process output. */
export function memorySink(
  options: { stderrIsTTY?: boolean; stdinIsTTY?: boolean; answer?: boolean } = {},
): Sink & { out: string; err: string } {
  const sink = {
    out: "",
    err: "",
    stderrIsTTY: options.stderrIsTTY ?? false,
    stdinIsTTY: options.stdinIsTTY ?? false,
    stdout(text: string) {
      sink.out += text;
    },
    stderr(text: string) {
      sink.err += text;
    },
    confirm: async () => options.answer ?? false,
  };
  return sink;
}

/** Widest a service-supplied cell may be in a table, in characters. */
export const MAX_CELL = { name: 48, url: 72, person: 32 } as const;

/**
 * Characters a terminal hides, reorders or draws like another one: C0 and C1 controls and DEL,
 * format characters (zero-width, bidirectional, the byte-order mark, tags), line and paragraph
 * separators, spaces other than U+0020, the other default-ignorable code points (variation
 * selectors, fillers), noncharacters (U+FFFE, U+FDD0, ...) and lone surrogates. `orders` and
 * `orders` + U+200B must never look the same, so these are shown as escapes, never removed.
 */
const HIDDEN_SOURCE = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}`;
/** Every hidden character of a text (see {@link HIDDEN_SOURCE}). */
export const HIDDEN = new RegExp(HIDDEN_SOURCE, "gu");
/** Whether one character is hidden. */
export const HIDDEN_CHAR = new RegExp(`^(?:${HIDDEN_SOURCE})$`, "u");

/** `\u200b` for a character of the BMP (a lone surrogate included), `\u{e0041}` above it: JavaScript's escapes. */
export function codeEscape(char: string): string {
  const code = char.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

const CELL_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\" };

/** Longest prefix of a service text a cell looks at (the cell shows far less). */
const CELL_SCAN_CHARS = 1_000_000;

/**
 * Service text for a table cell, harmless to the terminal and never mistaken for another text:
 * - a secret (the token) is redacted as a person reads it (see {@link redactShown}), so a token
 *   split by a hidden character does not come back whole;
 * - every other hidden character is shown as an escape (`\u200b`, `\n`, `\u001b`) and a
 *   backslash as `\\`, so that `orders` and `orders` + U+200B differ on screen, and no control
 *   character reaches the terminal;
 * - the length is capped at `maxBytes` UTF-8 bytes, never inside an escape, a cut marked with `…`.
 */
export function cell(text: string, maxBytes: number, secrets: readonly string[] = []): string {
  const head = text.length > CELL_SCAN_CHARS ? text.slice(0, CELL_SCAN_CHARS) : text;
  return redactShown(escapedWithin(redactShown(head, secrets), maxBytes), secrets);
}

const ELLIPSIS = "…";
const ELLIPSIS_BYTES = 3;

/** `text` with hidden characters escaped (see {@link cell}), cut to at most `maxBytes` UTF-8 bytes. */
function escapedWithin(text: string, maxBytes: number): string {
  const pieces: string[] = [];
  let bytes = 0;
  let fitsWithEllipsis = -1;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    // Printable ASCII but the backslash is shown as it is: the common case, decided without a pattern.
    const plain = code >= 0x20 && code < 0x7f && code !== 0x5c;
    const piece = plain ? char : (CELL_ESCAPES[char] ?? (HIDDEN_CHAR.test(char) ? codeEscape(char) : char));
    // An escape is ASCII; a character shown as it is takes its UTF-8 length (no lone surrogate gets here: those are escaped).
    const size = piece !== char || code < 0x80 ? piece.length : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (fitsWithEllipsis < 0 && bytes + size > maxBytes - ELLIPSIS_BYTES) fitsWithEllipsis = pieces.length;
    bytes += size;
    if (bytes > maxBytes) return `${pieces.slice(0, Math.max(0, fitsWithEllipsis)).join("")}${ELLIPSIS}`;
    pieces.push(piece);
  }
  return pieces.join("");
}

/**
 * What may stand between two characters of a secret, in service text or in what we print, without
 * making it any less readable to a person: hidden characters, and the escapes that show them
 * (`\u200b`, `\u{e0041}`, YAML's `\U000e0041`).
 */
const SHOWN_GAP = String.raw`(?:${HIDDEN_SOURCE}|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]{1,6}\}|\\U[0-9a-fA-F]{8})*`;
const SHOWN_PATTERNS = new Map<string, { any: RegExp; all: RegExp }>();

/** A secret as a person reads it: in any letter case, a character or its percent-escape (which a URL's reader decodes), hidden characters or their escapes between its characters. */
function shownPatterns(secret: string): { any: RegExp; all: RegExp } {
  let patterns = SHOWN_PATTERNS.get(secret);
  if (patterns === undefined) {
    const source = [...secret].map(charOrEscape).join(SHOWN_GAP);
    patterns = { any: new RegExp(source, "iu"), all: new RegExp(source, "giu") };
    if (SHOWN_PATTERNS.size >= 64) SHOWN_PATTERNS.clear();
    SHOWN_PATTERNS.set(secret, patterns);
  }
  return patterns;
}

/**
 * Whether `text` holds one of `secrets` as a person reads it: in any letter case, also when hidden
 * characters or their escapes split it (`cli_tok_` U+200B `7d41...` is still the token to whoever
 * reads or copies it).
 */
export function holdsSecretShown(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => mayHold(text, secret) && shownPatterns(secret).any.test(text));
}

/** Cheap first test: each character of a secret takes at least one UTF-16 unit of the text (most names are shorter than a token). */
function mayHold(text: string, secret: string): boolean {
  return secret.length > 0 && text.length >= codePoints(secret);
}

const CODE_POINTS = new Map<string, number>();
function codePoints(secret: string): number {
  let count = CODE_POINTS.get(secret);
  if (count === undefined) {
    count = [...secret].length;
    if (CODE_POINTS.size >= 64) CODE_POINTS.clear();
    CODE_POINTS.set(secret, count);
  }
  return count;
}

/**
 * `text` with every secret, as a person reads it (see {@link holdsSecretShown}), replaced by
 * `[REDACTED]`, hidden characters inside it included; the rest unchanged, to the character. Used on
 * service text before it is shown, and as the last filter on everything `webhooks` prints.
 */
export function redactShown(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets)
    if (mayHold(out, secret) && shownPatterns(secret).any.test(out))
      out = out.replace(shownPatterns(secret).all, "[REDACTED]");
  return out;
}

/** A plain-text table: a header row, then one line per row, columns padded to the widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => [...(row[i] ?? "")].length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) =>
        i === cells.length - 1 ? text : text + " ".repeat(Math.max(0, (widths[i] ?? 0) - [...text].length)),
      )
      .join("  ")
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join("\n")}\n`;
}

/**
 * Each UTF-16 unit of a hidden character as `\uXXXX` (JSON has no `\u{...}`). C0 controls are left:
 * JSON.stringify escapes those inside strings, and the ones outside are its own line breaks.
 */
function jsonEscape(char: string): string {
  if (char < " ") return char;
  let out = "";
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/**
 * JSON for scripts: the exact values (a script must be able to act on the real name), with every
 * hidden character (see {@link HIDDEN_SOURCE}) written as a `\u` escape, so the same text is also
 * safe to look at.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(NOT_PLAIN, (char) => (HIDDEN_CHAR.test(char) ? jsonEscape(char) : char))}\n`;
}

/** Anything but printable ASCII and the line feed: the few characters worth testing for hidden ones (a listing's JSON is megabytes). */
const NOT_PLAIN = /[^\n\x20-\x7e]/gu;

/** A JSON string literal of `text`, hidden characters escaped (for quoting a value in a message). */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(HIDDEN, jsonEscape);
}

/** Milliseconds since the epoch as an ISO time; "-" for a value no date can hold. */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : "-";
}

export type SecretField = "webhookName" | "webhookUrl";
/** The fields of a listed endpoint that a stack's state holds secret (see `CliConnection.secretFields`). */
export interface SecretFields {
  fieldsOf(record: WebhookEndpointRecord): ReadonlySet<SecretField> | undefined;
}

/** The record with each field a stack's state holds secret shown as `[secret]`, never as the service has it. */
export function hideSecretFields(
  record: WebhookEndpointRecord,
  fields: Iterable<"webhookName" | "webhookUrl"> | undefined,
): WebhookEndpointRecord {
  const hidden = [...(fields ?? [])];
  if (hidden.length === 0) return record;
  return { ...record, ...Object.fromEntries(hidden.map((field) => [field, "[secret]"])) };
}

/**
 * A record as `--json` shows it: the camelCase record fields, `signSecret` only when asked for, and
 * `secrets` (the token) redacted from every text field: a service may echo the token in a name or
 * a URL (see {@link redactShown}).
 */
export function recordView(
  record: WebhookEndpointRecord,
  showSecrets: boolean,
  secrets: readonly string[] = [],
): Record<string, unknown> {
  const { signSecret, ...rest } = record;
  const text = (value: string) => redactShown(value, secrets);
  const view = {
    ...rest,
    webhookName: text(rest.webhookName),
    webhookUrl: text(rest.webhookUrl),
    creatorName: text(rest.creatorName),
    operatorName: text(rest.operatorName),
  };
  return showSecrets ? { ...view, signSecret: text(signSecret) } : view;
}

/** "name (id)" of a principal, cleaned for a table. */
export function principal(name: string, id: number): string {
  return `${cell(name, MAX_CELL.person)} (${id})`;
}

/**
 * "listed 300 endpoints…" on stderr while a listing pages, only when stderr is a terminal (redrawn
 * in place) or when asked for with `--progress` (one line per update).
 */
export class Progress {
  #shown = false;
  constructor(
    private readonly sink: Sink,
    private readonly enabled: boolean,
  ) {}

  static for(sink: Sink, forced: boolean): Progress {
    return new Progress(sink, forced || sink.stderrIsTTY);
  }

  update(text: string): void {
    if (!this.enabled) return;
    if (this.sink.stderrIsTTY) {
      this.sink.stderr(`\r\x1b[2K${text}`);
      this.#shown = true;
    } else {
      this.sink.stderr(`${text}\n`);
    }
  }

  /** Clears a line drawn in place. */
  done(): void {
    if (this.#shown) this.sink.stderr("\r\x1b[2K");
    this.#shown = false;
  }
}
