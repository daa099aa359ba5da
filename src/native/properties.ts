import { SECRET_SIG, SIG_KEY, UNKNOWN } from "../core/wire";

export { configString, unwrapSecrets } from "../core/wire";

/**
 * Property values as the engine sends them to a provider that accepts secrets: plain JSON, with
 * secrets wrapped as `{ [SIG]: SECRET_SIG, value }` and values not known yet (preview) as the
 * unknown marker string.
 */

/** Wraps a value as a secret for the engine. */
export function secret(value: unknown): Record<string, unknown> {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** Whether a value is, or holds somewhere inside it, a secret wrapper. */
export function holdsSecret(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (typeof value !== "object" || value === null) return false;
  const object = value as Record<string, unknown>;
  if (object[SIG_KEY] === SECRET_SIG) return true;
  return Object.values(object).some(holdsSecret);
}

/**
 * The parts of a structure the provider writes itself, by the output that holds it: never a
 * program's or a service's value, so never secret (a provenance's `how` is a word such as
 * `created`, its `stack` the name every URN of the state shows).
 */
const OWN_PARTS: Record<string, readonly string[]> = { provenance: ["how", "stack"] };

/**
 * What the engine marked secret in a request's properties: the top-level names that hold a secret,
 * and every value inside a secret wrapper, as text (strings as they are, numbers in decimal; a
 * boolean's "true" would only cut ordinary words apart in messages, and no message shows one).
 *
 * A wrapper around a whole structure (the native face makes `createdAs` secret when its URL is,
 * `provenance` when the base URL is) does not say which of its values was the secret: its values
 * are taken, but not the parts the provider writes itself ({@link OWN_PARTS}) nor a value the same
 * properties hold in plain text elsewhere (the name `e` beside a secret URL is the plain
 * `webhookName`), which would otherwise be redacted from every message as if it were secret.
 */
export function secretsIn(properties: Record<string, unknown>): { names: string[]; values: string[] } {
  const names = Object.keys(properties).filter((key) => holdsSecret(properties[key]));
  const plain = new Set<string>();
  const whole: string[] = [];
  const inStructures: string[] = [];
  type Inside = "no" | "whole" | "structure";
  const collect = (value: unknown, inside: Inside, own: readonly string[]): void => {
    if (Array.isArray(value)) for (const item of value) collect(item, inside, own);
    else if (typeof value === "object" && value !== null) {
      const object = value as Record<string, unknown>;
      if (object[SIG_KEY] === SECRET_SIG) {
        const wrapped = object.value;
        collect(wrapped, typeof wrapped === "object" && wrapped !== null ? "structure" : "whole", own);
      } else
        for (const [key, inner] of Object.entries(object))
          if (!(inside === "structure" && own.includes(key))) collect(inner, inside, own);
    } else if (typeof value === "string" || typeof value === "number") {
      const text = String(value);
      if (inside === "no") plain.add(text);
      else if (text !== "" && text !== UNKNOWN) (inside === "whole" ? whole : inStructures).push(text);
    }
  };
  for (const [key, value] of Object.entries(properties)) collect(value, "no", OWN_PARTS[key] ?? []);
  const values = [...whole, ...inStructures.filter((text) => !plain.has(text))];
  return { names, values: [...new Set(values)] };
}
