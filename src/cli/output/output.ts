import type { WebhookEndpointRecord } from "../../client";
import {
  HIDDEN,
  HIDDEN_SOURCE,
  SECRET_CELL,
  SECRET_MARKER,
  askedFor,
  holdsSecretShown,
  isSecretValue,
  redactShown,
  showsSecret,
  shownValue,
  type SecretMarker,
  type ShownSecrets,
} from "../../text";

export { holdsSecretShown, redactShown };

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
 * Characters a terminal hides, reorders or draws like another one (src/text/hidden.ts).
 * `orders` and `orders` + U+200B must never look the same, so these are shown as escapes, never
 * removed.
 */
export { HIDDEN };
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
    // An escape is ASCII; a character shown as it is takes its UTF-8 length (no lone surrogate gets here:
    // those are escaped).
    const size = piece !== char || code < 0x80 ? piece.length : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (fitsWithEllipsis < 0 && bytes + size > maxBytes - ELLIPSIS_BYTES) fitsWithEllipsis = pieces.length;
    bytes += size;
    if (bytes > maxBytes) return `${pieces.slice(0, Math.max(0, fitsWithEllipsis)).join("")}${ELLIPSIS}`;
    pieces.push(piece);
  }
  return pieces.join("");
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

/**
 * Anything but printable ASCII and the line feed: the few characters worth testing for hidden ones (a
 * listing's JSON is megabytes).
 */
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

/** The fields of a record a stack's state may hold secret (see {@link SecretFields}). */
export type HiddenFields = ReadonlySet<SecretField> | readonly SecretField[] | undefined;

function isHidden(hidden: HiddenFields, field: SecretField): boolean {
  return hidden !== undefined && ("has" in hidden ? hidden.has(field) : hidden.includes(field));
}

/** A record's field as `--json` writes it: its value, or the secret marker. */
export type Shown<T> = T | SecretMarker;

/**
 * A record as `--json` shows it: the camelCase record fields, `signSecret` only when asked for.
 * Each field passes the text policy on its own (src/text/policy.ts): one the stack's state holds
 * secret (`hidden`), or whose value shows a secret (the token echoed in a name, a secret
 * `principalId` as the creator), is the secret marker `{"secret": true}`; the others are exactly
 * the service's. `webhookId` is always shown: an endpoint's id is no secret (Pulumi never holds a
 * resource's ID secret), and a script needs it.
 */
export function recordView(
  record: WebhookEndpointRecord,
  showSecrets: boolean,
  secrets: ShownSecrets,
  hidden?: HiddenFields,
): Record<string, Shown<string | number>> {
  const { signSecret, ...rest } = record;
  const text = (field: SecretField) =>
    isHidden(hidden, field) ? SECRET_MARKER : shownValue(rest[field], secrets);
  const view: Record<string, Shown<string | number>> = {
    webhookId: rest.webhookId,
    webhookName: text("webhookName"),
    webhookUrl: text("webhookUrl"),
    creatorId: shownValue(rest.creatorId, secrets),
    creatorName: shownValue(rest.creatorName, secrets),
    createTime: shownValue(rest.createTime, secrets),
    operatorId: shownValue(rest.operatorId, secrets),
    operatorName: shownValue(rest.operatorName, secrets),
    operateTime: shownValue(rest.operateTime, secrets),
  };
  return showSecrets ? { ...view, signSecret: shownValue(signSecret, askedFor(secrets)) } : view;
}

/**
 * A record's text field in a table: `[secret]` when the stack's state holds it secret, else the
 * service's text as a {@link cell}, any secret in it shown as `[REDACTED]`.
 */
export function textCell(
  record: WebhookEndpointRecord,
  field: SecretField,
  maxBytes: number,
  secrets: ShownSecrets,
  hidden?: HiddenFields,
): string {
  return isHidden(hidden, field) ? SECRET_CELL : shownCell(record[field], maxBytes, secrets);
}

/**
 * Text from the outside world in a table: `[secret]` when it is a secret's whole value (however
 * short), else a {@link cell} with every secret in it shown as `[REDACTED]`.
 */
export function shownCell(text: string, maxBytes: number, secrets: ShownSecrets): string {
  return isSecretValue(text, secrets) ? SECRET_CELL : cell(text, maxBytes, secrets.inText);
}

/** A time from the service in a table: ISO, or `[secret]` when its value is a secret's. */
export function timeCell(ms: number, secrets: ShownSecrets): string {
  return showsSecret(ms, secrets) ? SECRET_CELL : isoTime(ms);
}

/** "name (id)" of a principal, cleaned for a table; `[secret]` for a part that is a secret's value. */
export function principal(name: string, id: number, secrets: ShownSecrets = { inText: [] }): string {
  return `${shownCell(name, MAX_CELL.person, secrets)} (${showsSecret(id, secrets) ? SECRET_CELL : id})`;
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
