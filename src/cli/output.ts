import { redact, showable } from "../client/redact";
import type { WebhookEndpointRecord } from "../client/types";

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
export function memorySink(options: { stderrIsTTY?: boolean; stdinIsTTY?: boolean; answer?: boolean } = {}): Sink & { out: string; err: string } {
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
 * Service text for a table cell: control and invisible characters removed first (a token split by
 * one must not come back whole), then the token redacted, then the length capped.
 */
export function cell(text: string, maxChars: number, secrets: readonly string[] = []): string {
  return showable(redact(showable(text, 1_000_000), secrets), maxChars);
}

/** A plain-text table: a header row, then one line per row, columns padded to the widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => [...(row[i] ?? "")].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) => (i === cells.length - 1 ? text : text + " ".repeat(Math.max(0, (widths[i] ?? 0) - [...text].length))))
      .join("  ")
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join("\n")}\n`;
}

// Characters JSON.stringify leaves as they are but that a terminal hides or reorders: DEL and C1
// controls, zero-width and bidirectional marks, line and paragraph separators.
const JSON_UNSAFE = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

/**
 * JSON for scripts: the exact values (a script must be able to act on the real name), with every
 * character a terminal would hide written as a `\u` escape, so the same text is also safe to look at.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}

/** A JavaScript/TypeScript or YAML double-quoted string literal of `text` (YAML 1.2 reads JSON strings). */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Milliseconds since the epoch as an ISO time; "-" for a value no date can hold. */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : "-";
}

/** A record as `--json` shows it: the camelCase record fields, `signSecret` only when asked for. */
export function recordView(record: WebhookEndpointRecord, showSecrets: boolean): Record<string, unknown> {
  const { signSecret, ...rest } = record;
  return showSecrets ? { ...rest, signSecret } : rest;
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
