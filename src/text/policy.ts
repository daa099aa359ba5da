/**
 * The text policy for what we print or record from the outside world (a service's records, a
 * stack's state): which of its values may be shown, which become a secret marker, and which may not
 * be pasted or recorded at all. The CLI's tables and `--json`, `webhooks adopt`, and the native
 * face's import Read decide through these functions, on each value before it is formatted: what we
 * write ourselves (a table's headers, a verdict, a message's words) is never searched for secrets,
 * so no secret, however short or common a word, can alter it or break the JSON around it.
 * Internal: not exported from the package's entry.
 */

import { readSpans, redactSpans } from "./reading";

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

/** Whether a secret is long enough to be looked for inside other text (see {@link MIN_SECRET_CHARS}). */
export function recognisableInText(secret: string): boolean {
  return secret.trim().length >= MIN_SECRET_CHARS;
}

/**
 * Whether `text` holds one of `secrets` as a person reads it (./reading): in any letter case, a
 * character or an escape of it (which a URL's, a page's or a JSON reader decodes), hidden characters
 * or their escapes between its characters (`cli_tok_` U+200B `7d41...`, `cli_tok_&#8203;7d41...` and
 * `cli_tok_%E2%80%8B7d41...` are still the token to whoever reads or copies them). A secret of
 * digits only where it stands as a number: a secret `1001` is in `order-1001`, not in `21001`. Only
 * secrets of at least {@link MIN_SECRET_CHARS} characters are looked for.
 */
export function holdsSecretShown(text: string, secrets: readonly string[]): boolean {
  return readSpans(text, secrets.filter(recognisableInText), true).length > 0;
}

/**
 * `text`, a value from the outside world, with every secret in it (as a person reads it, see
 * {@link holdsSecretShown}) replaced by `[REDACTED]`, hidden characters and escapes inside it
 * included; the rest unchanged, to the character. Never for text we wrote: our words are not
 * searched for secrets.
 */
export function redactShown(text: string, secrets: readonly string[]): string {
  return redactSpans(text, readSpans(text, secrets.filter(recognisableInText)));
}

/**
 * A message we built around values (a check failure, an error, a notice) with every secret redacted:
 * one of at least {@link MIN_SECRET_CHARS} characters wherever a person reads it ({@link
 * redactShown}); a shorter one only where it stands as a whole value, so that it never cuts the
 * message's words apart: a number standing as a number (a secret `3` in "after 3 retries", not in
 * "endpoint 1305"), any other quoted whole (`"e"`, `'e'`, `` `e` ``, JSON's `\"e\"`), or the
 * message itself.
 */
export function redactMessage(text: string, secrets: readonly string[]): string {
  const spans = readSpans(text, secrets.filter(recognisableInText));
  for (const secret of secrets)
    if (!recognisableInText(secret) && secret.trim() !== "")
      spans.push(...wholeValueSpans(text, secret.trim()));
  return redactSpans(text, spans);
}

/** Where a short secret stands as a whole value in a message (see {@link redactMessage}). */
function wholeValueSpans(text: string, secret: string): [number, number][] {
  if (text.trim().toLowerCase() === secret.toLowerCase()) return [[0, text.length]];
  const literal = secret.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
  if (/^\d+(?:\.\d+)?$/.test(secret))
    return [...text.matchAll(new RegExp(String.raw`(?<![\d.])${literal}(?![\d.])`, "g"))].map((match) => [
      match.index,
      match.index + match[0].length,
    ]);
  // Between a pair of quotes, also as JSON escapes them inside a string (`\"e\"`).
  const quoted = new RegExp(String.raw`(\\?)(["'\x60])(${literal})\1\2|“(${literal})”|‘(${literal})’`, "giu");
  return [...text.matchAll(quoted)].map((match) => {
    const start = match.index + (match[2] === undefined ? 1 : match[1]!.length + 1);
    return [start, start + (match[3] ?? match[4] ?? match[5])!.length];
  });
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
  if (isSecretValue(value, secrets)) return true;
  if (typeof value !== "string") return false;
  if (holdsSecretShown(value, secrets.inText)) return true;
  // A secret that holds a quote, a backslash or a control character: JSON's escaping of the value
  // (--json, adopt's declarations) can write it out whole (a value `ab"cd` is written `"ab\"cd"`).
  const escapable = secrets.inText.filter((secret) => JSON.stringify(secret).length !== secret.length + 2);
  return escapable.length > 0 && holdsSecretShown(JSON.stringify(value), escapable);
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
