/**
 * Token redaction and the display of text that came from a service. Internal: not exported from
 * the package's entry.
 *
 * - The token is removed by value from everything we build from the outside world (messages,
 *   service codes, causes), because a hostile or broken server can echo it anywhere.
 * - Service text shown to a person is bounded and has no control characters: a server could
 *   otherwise print megabytes into a pipeline log or drive the terminal with escape sequences.
 */

/** Longest error message we ever build, in characters. */
export const MAX_MESSAGE_CHARS = 2000;
/** Longest piece of service text quoted inside a message (a `msg`, a name, a URL). */
export const MAX_QUOTED_CHARS = 300;

// C0 controls, DEL, C1 controls, and the invisible or reordering characters (zero-width, bidi).
// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

/** Replaces every occurrence of each secret with `[REDACTED]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 0 && out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

/** Removes control and invisible characters and caps the length, marking a cut with `…` (within the cap). */
export function showable(text: string, maxChars: number = MAX_QUOTED_CHARS): string {
  return cleanServiceText(text, [], maxChars);
}

/**
 * Text from the outside world, made safe to show: control and invisible characters removed
 * FIRST (a token split by a newline or a zero-width space must not come back whole), then every
 * secret redacted, then the length capped. Only as much of a huge text is read as the result
 * can show, plus enough to redact a secret that starts inside it.
 */
export function cleanServiceText(text: string, secrets: readonly string[], maxChars: number): string {
  const longestSecret = secrets.reduce((longest, secret) => Math.max(longest, secret.length), 0);
  const wanted = maxChars + 2 * longestSecret + 1;
  let clean = "";
  let read = 0;
  while (read < text.length && clean.length < wanted) {
    clean += text.slice(read, read + 4096).replace(UNSHOWABLE, "");
    read += 4096;
  }
  const redacted = redact(clean, secrets);
  const cut = redacted.length > maxChars || read < text.length;
  return cut ? `${redacted.slice(0, Math.max(0, maxChars - 1))}…` : redacted;
}

/** Service text as it may appear inside a message: cleaned (see {@link cleanServiceText}) and quoted. */
export function quoteServiceText(text: string, secrets: readonly string[] = [], maxChars: number = MAX_QUOTED_CHARS): string {
  return JSON.stringify(cleanServiceText(text, secrets, maxChars));
}

/**
 * Copies an underlying failure into a plain Error with every occurrence of the secrets removed,
 * keeping `name`, `code` and `message` (and up to two levels of `cause`), so that `cause` chains are
 * useful for debugging but cannot leak the token.
 */
export function sanitizeCause(error: unknown, secrets: readonly string[], depth = 0): Error | undefined {
  if (error === undefined || error === null) return undefined;
  const scrub = (text: string): string => cleanServiceText(text, secrets, MAX_MESSAGE_CHARS);
  if (!(error instanceof Error)) return new Error(scrub(typeof error === "string" ? error : (safeJson(error) ?? typeof error)));
  const copy = new Error(scrub(error.message));
  copy.name = cleanServiceText(error.name, secrets, 100);
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") (copy as Error & { code?: string }).code = scrub(code);
  if (depth < 2 && error.cause !== undefined) {
    const inner = sanitizeCause(error.cause, secrets, depth + 1);
    if (inner) (copy as Error & { cause?: unknown }).cause = inner;
  }
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
