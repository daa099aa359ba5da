import { MAX_MESSAGE_CHARS, redact, rewriteField, sanitizeCause, showable } from "../text";
import { MIN_EXTRA_SECRET_CHARS } from "./responses";

/**
 * Redacts `secrets` from an error, in place: its message and every text field it holds from the
 * service (`msg`, `serviceCode`, `traceId`...), and so down its causes. Never throws: a cause that
 * refuses to be rewritten (a frozen error, a getter of its own) is replaced in the error above it by
 * a plain copy with the secrets removed. The error itself cannot be replaced: the client passes its
 * own errors, which take every write, or a cancel's reason, which it never shows.
 */
export function scrubSecrets(error: unknown, all: readonly string[]): void {
  // As when an error is worded: a shorter one is redacted only as a sign_secret field's value
  // (redacted by value, it would cut ordinary text apart), and the message keeps its cap.
  const secrets = all.filter((secret) => secret.length >= MIN_EXTRA_SECRET_CHARS);
  let above: Error | undefined;
  let at: unknown = error;
  for (let depth = 0; depth < 8; depth++) {
    let clean = false;
    let next: unknown;
    try {
      if (!(at instanceof Error)) return;
      clean = scrubbedInPlace(at, secrets);
      next = at.cause;
    } catch {
      // A getter that throws, or a revoked proxy: a link that cannot be read cannot be shown clean.
    }
    if (!clean && above !== undefined) {
      rewriteField(above, "cause", sanitizeCause(at, secrets));
      return;
    }
    above = at as Error;
    at = next;
  }
}

/** Whether every text of `error` itself (not its causes) now shows none of `secrets`. */
function scrubbedInPlace(error: Error, secrets: readonly string[]): boolean {
  let clean = rewriteField(error, "message", showable(redact(error.message, secrets), MAX_MESSAGE_CHARS));
  if (typeof error.stack === "string")
    clean = rewriteField(error, "stack", redact(error.stack, secrets)) && clean;
  const fields = error as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (typeof value !== "string") continue;
    // A trace id that holds a secret is no trace id: absent, as when it held the token.
    const redacted = redact(value, secrets);
    clean = rewriteField(error, key, key === "traceId" && redacted !== value ? undefined : redacted) && clean;
  }
  return clean;
}

/**
 * The signing secrets one listing operation (a `listAll` or `scan`) has returned, each once: its
 * later pages' errors are worded with them redacted, as a create's are with its listings'. Shorter
 * ones than MIN_EXTRA_SECRET_CHARS are left to the sign_secret pattern, as everywhere.
 */
export class ListedSecrets {
  readonly values: string[] = [];
  readonly #seen = new Set<string>();
  /** The secrets written in hex digits, folded: the only ones a documented trace id can show. */
  readonly #hex = new Set<string>();

  add(records: readonly { signSecret: string }[]): void {
    for (const { signSecret } of records) {
      if (signSecret.length < MIN_EXTRA_SECRET_CHARS || this.#seen.has(signSecret)) continue;
      this.#seen.add(signSecret);
      this.values.push(signSecret);
      if (/^[0-9a-f]+$/i.test(signSecret)) this.#hex.add(signSecret.toLowerCase());
    }
  }

  /**
   * Whether a trace id in its documented form (32 hex digits, which no escape and no hidden
   * character can stand among) shows one of the secrets, in any letter case: each of its stretches
   * looked up once, however many secrets a scan of a crowded service has seen.
   */
  inTraceId(traceId: string): boolean {
    if (this.#hex.size === 0) return false;
    const folded = traceId.toLowerCase();
    for (let start = 0; start + MIN_EXTRA_SECRET_CHARS <= folded.length; start++)
      for (let end = start + MIN_EXTRA_SECRET_CHARS; end <= folded.length; end++)
        if (this.#hex.has(folded.slice(start, end))) return true;
    return false;
  }
}
