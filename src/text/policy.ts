/**
 * The text policy for what we print or record from the outside world (a service's records, a
 * stack's state): which of its values may be shown, which become a secret marker, and which may not
 * be pasted or recorded at all. The CLI's tables and `--json`, `webhooks adopt`, and the native
 * face's import Read decide through these functions, on each value before it is formatted: what we
 * write ourselves (a table's headers, a verdict, a message's words) is never searched for secrets,
 * so no secret, however short or common a word, can alter it or break the JSON around it.
 * Internal: not exported from the package's entry.
 */

import { HIDDEN_SOURCE } from "./hidden";
import { charOrEscape } from "./redact";

/**
 * What a secret value becomes in machine output (`--json`): an object, which no field of ours ever
 * holds otherwise (record fields are numbers and strings), so a script tells it from any value with
 * one test (`typeof value === "object"`, or jq's `type == "object"`) and the JSON stays JSON.
 */
export interface SecretMarker {
  readonly secret: true;
}
export const SECRET_MARKER: SecretMarker = Object.freeze({ secret: true });

/** What a secret value becomes in a table for people: the same word `[secret]` Pulumi shows. */
export const SECRET_CELL = "[secret]";

/**
 * Shortest secret recognised inside a longer text, in characters (white space aside). A shorter one
 * (a secret `1`, `id`, `on`) would find itself in every text and tell nothing; it is still never
 * shown as a whole value (see {@link shownValue}).
 */
export const MIN_SECRET_CHARS = 4;

/**
 * What may stand between two characters of a secret, in service text or in what we print, without
 * making it any less readable to a person: hidden characters, and the escapes that show them
 * (`\u200b`, `\u{e0041}`, YAML's `\U000e0041`).
 */
const SHOWN_GAP = String.raw`(?:${HIDDEN_SOURCE}|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]{1,6}\}|\\U[0-9a-fA-F]{8})*`;
const SHOWN_PATTERNS = new Map<string, { any: RegExp; all: RegExp }>();

/**
 * A secret as a person reads it: in any letter case, a character or its escape (which a URL's or a
 * page's reader decodes), hidden characters or their escapes between its characters. A secret of
 * digits only where it stands as a number: a secret `1001` is in `order-1001`, not in `21001`.
 */
function shownPatterns(secret: string): { any: RegExp; all: RegExp } {
  let patterns = SHOWN_PATTERNS.get(secret);
  if (patterns === undefined) {
    const body = [...secret].map(charOrEscape).join(SHOWN_GAP);
    const source = /^\d+$/.test(secret) ? `(?<!\\d)${body}(?!\\d)` : body;
    patterns = { any: new RegExp(source, "iu"), all: new RegExp(source, "giu") };
    if (SHOWN_PATTERNS.size >= 64) SHOWN_PATTERNS.clear();
    SHOWN_PATTERNS.set(secret, patterns);
  }
  return patterns;
}

/** Whether a secret is long enough to be looked for inside other text (see {@link MIN_SECRET_CHARS}). */
export function recognisableInText(secret: string): boolean {
  return secret.trim().length >= MIN_SECRET_CHARS;
}

/**
 * Cheap first test: each character of a secret takes at least one UTF-16 unit of the text (most names are
 * shorter than a token).
 */
function mayHold(text: string, secret: string): boolean {
  return recognisableInText(secret) && text.length >= codePoints(secret);
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
 * Whether `text` holds one of `secrets` as a person reads it: in any letter case, also when hidden
 * characters or their escapes split it (`cli_tok_` U+200B `7d41...` is still the token to whoever
 * reads or copies it). Only secrets of at least {@link MIN_SECRET_CHARS} characters are looked for.
 */
export function holdsSecretShown(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => mayHold(text, secret) && shownPatterns(secret).any.test(text));
}

/**
 * `text`, a value from the outside world, with every secret in it (as a person reads it, see
 * {@link holdsSecretShown}) replaced by `[REDACTED]`, hidden characters inside it included; the rest
 * unchanged, to the character. Never for text we wrote: our words are not searched for secrets.
 */
export function redactShown(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets)
    if (mayHold(out, secret) && shownPatterns(secret).any.test(out))
      out = out.replace(shownPatterns(secret).all, "[REDACTED]");
  return out;
}

/**
 * The secrets a command keeps out of what it prints: `inText`, looked for inside every text value
 * from the outside world (the token, a stack's secret values); `whole`, values shown by no field
 * whose whole value they are, however short (a secret `principalId` of `7` hides a `creatorId` of 7).
 */
export interface ShownSecrets {
  inText: readonly string[];
  whole?: readonly string[] | undefined;
  /**
   * The signing secrets a stack holds, also in `inText`: secret in every field, but the `signSecret`
   * field a person asks for (`--show-secrets`) shows them (see {@link askedFor}).
   */
  signing?: readonly string[] | undefined;
}

/**
 * The secrets a field the person asked to see (`list --show-secrets`'s `signSecret`) keeps out:
 * every one but the signing secrets, which are what was asked for. Any other field still hides them.
 */
export function askedFor(secrets: ShownSecrets): ShownSecrets {
  if (secrets.signing === undefined || secrets.signing.length === 0) return secrets;
  const signing = new Set(secrets.signing);
  const keep = (values: readonly string[] | undefined) => values?.filter((value) => !signing.has(value));
  return { inText: keep(secrets.inText) ?? [], whole: keep(secrets.whole) };
}

/** Whether a value from the outside world is, as a whole, one of the secrets (a text in any letter case). */
export function isSecretValue(value: string | number, secrets: ShownSecrets): boolean {
  const text = String(value).trim().toLowerCase();
  const equal = (secret: string) => secret.trim().toLowerCase() === text;
  return secrets.inText.some(equal) || (secrets.whole ?? []).some(equal);
}

/** Whether a value from the outside world shows a secret: is one, or (a text) holds one. */
export function showsSecret(value: string | number, secrets: ShownSecrets): boolean {
  // A number is only ever equal to a secret: a secret 12 is not in the creation time 1712000000000.
  return (
    isSecretValue(value, secrets) || (typeof value === "string" && holdsSecretShown(value, secrets.inText))
  );
}

/** A value from the outside world as `--json` writes it: itself, or {@link SECRET_MARKER} when it shows a secret. */
export function shownValue<T extends string | number>(value: T, secrets: ShownSecrets): T | SecretMarker {
  return showsSecret(value, secrets) ? SECRET_MARKER : value;
}

/**
 * Why text from the outside world may not be pasted into a program or recorded in state, or
 * undefined when it may: one of `fields` shows one of `secrets` (see {@link showsSecret}), and a
 * declaration or a state holding it would hold that secret in plain text. `whose` names the secret
 * ("the access token this command connects with"); the reason says what to do.
 */
export function pasteRefusal(
  fields: readonly { label: string; text: string }[],
  secrets: ShownSecrets,
  whose: string,
): string | undefined {
  const holding = fields.filter((field) => showsSecret(field.text, secrets)).map((f) => f.label);
  if (holding.length === 0) return undefined;
  return `its ${holding.join(" and ")} ${holding.length > 1 ? "hold" : "holds"} ${whose}, so no declaration of it can be printed, and no state of it recorded, without that secret in plain text (a program and its Pulumi state would hold it); have the endpoint renamed on the service`;
}
