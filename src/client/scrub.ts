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
  for (
    let at: unknown = error, depth = 0;
    at instanceof Error && depth < 8;
    above = at, at = at.cause, depth++
  ) {
    if (scrubbedInPlace(at, secrets) || above === undefined) continue;
    rewriteField(above, "cause", sanitizeCause(at, secrets));
    return;
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
