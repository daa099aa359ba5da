import { redactMessage, rewriteField, showsSecret } from "../text";

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
 * `text`, a message a provider call built, with every tainted value redacted by the text policy the
 * CLI follows (src/text/policy.ts, docs/operator-cli.md "Secrets in what `webhooks` prints"): a value
 * of at least MIN_SECRET_CHARS characters wherever a person reads it (any letter case, escaped as a
 * URL, a page or JSON escapes it, hidden characters between its letters); a shorter one only where
 * it stands as a whole value (a number as a number, anything else quoted), so that a secret `e`
 * never cuts the message's words apart.
 */
export function scrubbed(text: string, values: readonly string[]): string {
  return values.length === 0 ? text : redactMessage(text, values);
}

/**
 * Whether a property's value shows a tainted value, by the text policy the CLI follows: a text
 * equal to one (however short, in any letter case) or holding one of at least MIN_SECRET_CHARS
 * characters as a person reads it (a secret `1001` in `order-1001`, not in `21001`), or an object
 * with such a text among its values (its keys are ours). Numbers are not searched: the endpoint's id
 * is never secret, and the principal ids equal to a secret principalId are marked by name.
 */
export function showsTainted(value: unknown, values: readonly string[]): boolean {
  if (values.length === 0) return false;
  if (typeof value === "string")
    return showsSecret(value, { inText: values.filter((secret) => secret.trim() !== "") });
  if (Array.isArray(value)) return value.some((item) => showsTainted(item, values));
  if (typeof value === "object" && value !== null)
    return Object.values(value).some((inner) => showsTainted(inner, values));
  return false;
}

/**
 * The error, its message (and, for an endpoint recorded despite a failure, its reasons) scrubbed of
 * `values`: in place, or, for an error that refuses the writes (a frozen one, a DOMException's
 * message), a plain Error with its name and the scrubbed message.
 */
export function scrubbedError(error: unknown, values: readonly string[]): unknown {
  if (values.length === 0) return error;
  if (!(error instanceof Error)) return new Error(scrubbed(String(error), values));
  const message = scrubbed(error.message, values);
  let clean = rewriteField(error, "message", message);
  const reasons = (error as { reasons?: unknown }).reasons;
  if (Array.isArray(reasons))
    clean =
      rewriteField(
        error,
        "reasons",
        reasons.map((reason: unknown) => (typeof reason === "string" ? scrubbed(reason, values) : reason)),
      ) && clean;
  if (typeof error.stack === "string")
    clean = rewriteField(error, "stack", `${error.name}: ${message}`) && clean;
  if (clean) return error;
  const copy = new Error(message);
  rewriteField(copy, "name", scrubbed(String(error.name), values));
  copy.stack = `${copy.name}: ${message}`;
  return copy;
}
