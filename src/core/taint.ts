import { redact } from "../text";

/**
 * What a program marked secret, as one provider call sees it: the names of the inputs that were
 * secret, and every secret value (text) to keep out of the messages the call builds. A secret is a
 * taint, not a field: a value the program marked secret stays out of every message, whichever
 * field (or service text) it shows up in.
 */
export interface Taint {
  /** Inputs the program marked secret (`webhookName`, `webhookUrl`, `adoptWebhookId`, ...). */
  names: readonly string[];
  /** The secret values, as text: redacted from every message, in any letter case and as JSON escapes them. */
  values: readonly string[];
}

export const NO_TAINT: Taint = Object.freeze({ names: [], values: [] });

/** Both taints at once. */
export function joinTaints(...taints: readonly Taint[]): Taint {
  return {
    names: [...new Set(taints.flatMap((taint) => taint.names))],
    values: [...new Set(taints.flatMap((taint) => taint.values))],
  };
}

/**
 * `text` with every tainted value redacted: as it is, and as JSON writes it inside a string (a
 * message that quotes a value escapes its quotes and backslashes, which would otherwise hide it
 * from a plain search).
 */
export function scrubbed(text: string, values: readonly string[]): string {
  if (values.length === 0) return text;
  const forms = new Set<string>();
  let out = text;
  for (const value of values) {
    // White space alone is no secret worth cutting every message apart for.
    if (value.trim() === "") continue;
    if (NUMBER.test(value)) {
      // A secret number (a setting marked secret) only where it stands as a number: "3" must not
      // cut "endpoint 1305" apart, but "after 3 retries" must not show it.
      out = out.replace(new RegExp(`(?<![\\d.])${value.replace(".", "\\.")}(?![\\d.])`, "g"), "[REDACTED]");
      continue;
    }
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  // Longest first: a value that contains another is redacted whole.
  return redact(
    out,
    [...forms].sort((a, b) => b.length - a.length),
  );
}

const NUMBER = /^\d+(?:\.\d+)?$/;

/**
 * Whether a property's value shows a tainted text value (in any letter case, or as JSON escapes
 * it): a name or URL the service stored in another form, an object that holds one. Numbers are
 * not searched (a secret "12" does not make webhook 1200 secret).
 */
export function showsTainted(value: unknown, values: readonly string[]): boolean {
  if (typeof value !== "string" && (typeof value !== "object" || value === null)) return false;
  const text = (typeof value === "string" ? value : JSON.stringify(value)).toLowerCase();
  return values.some(
    (secret) =>
      secret.trim() !== "" &&
      !NUMBER.test(secret) &&
      (text.includes(secret.toLowerCase()) ||
        text.includes(JSON.stringify(secret).slice(1, -1).toLowerCase())),
  );
}

/** The error, its message (and, for an endpoint recorded despite a failure, its reasons) scrubbed of `values`. */
export function scrubbedError(error: unknown, values: readonly string[]): unknown {
  if (values.length === 0) return error;
  if (!(error instanceof Error)) return new Error(scrubbed(String(error), values));
  error.message = scrubbed(error.message, values);
  const reasons = (error as { reasons?: unknown }).reasons;
  if (Array.isArray(reasons))
    (error as unknown as { reasons: unknown[] }).reasons = reasons.map((reason: unknown) =>
      typeof reason === "string" ? scrubbed(reason, values) : reason,
    );
  if (typeof error.stack === "string") error.stack = `${error.name}: ${error.message}`;
  return error;
}
