/**
 * The engine's markers in property values, as Pulumi's wire format has them: a secret is an object
 * whose {@link SIG_KEY} field holds {@link SECRET_SIG} (with `value`, or in a state export
 * `ciphertext` or `plaintext`), and a value not known yet (a preview) is the string {@link UNKNOWN}.
 *
 * `@pulumi/pulumi` exports the same three from `runtime/rpc` (`specialSigKey`, `specialSecretSig`,
 * `unknownValue`); they are written here rather than imported because that module loads the SDK's
 * gRPC stack (about 190 modules and 75 ms), which the CLI, the core and a `destroy` never need.
 * test/core/wire.test.ts holds them equal to the SDK's.
 */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether a property value is the engine's secret wrapper. */
export function isSecretWrapper(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG
  );
}

/** The value with every secret wrapper removed (the engine keeps them secret on its side). */
export function unwrapSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (typeof value !== "object" || value === null) return value;
  const object = value as Record<string, unknown>;
  if (object[SIG_KEY] === SECRET_SIG) return unwrapSecrets(object.value);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(object)) out[key] = unwrapSecrets(inner);
  return out;
}

/** A config value as a string (config arguments may arrive as JSON values), or undefined. */
export function configString(value: unknown): string | undefined {
  const plain = unwrapSecrets(value);
  if (plain === undefined || plain === null || plain === UNKNOWN) return undefined;
  if (typeof plain === "string") return plain;
  if (typeof plain === "number" || typeof plain === "boolean") return String(plain);
  return JSON.stringify(plain);
}

/** The parts of a resource's URN: `urn:pulumi:<stack>::<project>::<type>::<name>`. */
export interface UrnParts {
  stack: string;
  project: string;
  /** The qualified type (`parent$type` for a child). */
  type: string;
  /** The resource name: everything after the type, which may itself hold `::`. */
  name: string;
}

/** A URN's parts, or undefined for text that is not one. Stacks and projects hold no `:`, types no `::`. */
export function parseUrn(urn: string): UrnParts | undefined {
  const match = /^urn:pulumi:([^:]+)::([^:]+)::(.+?)::(.*)$/s.exec(urn);
  return match ? { stack: match[1]!, project: match[2]!, type: match[3]!, name: match[4]! } : undefined;
}

/** The resource name of a URN (the text itself when it is none). */
export function urnName(urn: string): string {
  return parseUrn(urn)?.name ?? urn;
}

/** `<project>/<stack>` of a URN, or undefined. */
export function stackOfUrn(urn: string): string | undefined {
  const parts = parseUrn(urn);
  return parts === undefined ? undefined : `${parts.project}/${parts.stack}`;
}

/**
 * The signature of a resource reference, `{ [SIG_KEY]: RESOURCE_REFERENCE_SIG, urn, id? }` (a
 * component's has no `id`; the engine adds `packageVersion`): `specialResourceSig` in
 * `@pulumi/pulumi`'s `runtime/rpc`. `pulumi stack rename` rewrites the URNs of the references in a
 * state (Pulumi 3.254 and later) as it rewrites its resources' own; `pulumi state move` leaves
 * those in the moved resources' properties as they were.
 */
export const RESOURCE_REFERENCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";

/** A reference to the resource at `urn`, in the form a state stores and the engine reads from a provider's outputs. */
export function resourceReference(urn: string): Record<string, string> {
  return { [SIG_KEY]: RESOURCE_REFERENCE_SIG, urn };
}

/** The URN a resource reference holds; undefined for anything else. */
export function referencedUrn(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const object = value as Record<string, unknown>;
  return object[SIG_KEY] === RESOURCE_REFERENCE_SIG && typeof object.urn === "string"
    ? object.urn
    : undefined;
}

/**
 * The URN of the root resource of stack `<project>/<stack>`: `pulumi:pulumi:Stack`, named
 * `<project>-<stack>` by every SDK.
 */
export function rootStackUrn(stack: string): string | undefined {
  const match = /^([^/:]+)\/([^/:]+)$/.exec(stack);
  return match
    ? `urn:pulumi:${match[2]}::${match[1]}::pulumi:pulumi:Stack::${match[1]}-${match[2]}`
    : undefined;
}
