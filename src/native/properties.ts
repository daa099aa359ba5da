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
 * What the engine marked secret in a request's properties: the top-level names that hold a secret,
 * and every value inside a secret wrapper, as text (strings as they are, numbers in decimal; a
 * boolean's "true" would only cut ordinary words apart in messages, and no message shows one).
 */
export function secretsIn(properties: Record<string, unknown>): { names: string[]; values: string[] } {
  const names = Object.keys(properties).filter((key) => holdsSecret(properties[key]));
  const values: string[] = [];
  const collect = (value: unknown, inside: boolean): void => {
    if (Array.isArray(value)) for (const item of value) collect(item, inside);
    else if (typeof value === "object" && value !== null) {
      const object = value as Record<string, unknown>;
      if (object[SIG_KEY] === SECRET_SIG) collect(object.value, true);
      else for (const inner of Object.values(object)) collect(inner, inside);
    } else if (inside && (typeof value === "string" || typeof value === "number")) {
      const text = String(value);
      if (text !== "" && text !== UNKNOWN) values.push(text);
    }
  };
  collect(properties, false);
  return { names, values: [...new Set(values)] };
}
