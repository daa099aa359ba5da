// From what a caller passes (code, a JSON config file, the admin route) to the options in force:
// profile first, explicit options over it, defaults for the rest, all through the one schema.
import type { z } from "zod";
import { optionsSchema, type EmulatorOptions, type ResolvedOptions } from "./options";
import { EMULATOR_PROFILES } from "./profiles";
// Declared with the public types (./types), whose declaration files import no zod.
import { EmulatorConfigError, type EffectiveOptions } from "./types";

export { EmulatorConfigError, type EffectiveOptions };

/** The defaults, as `startEmulator({})` resolves them (less the clock and the random admin token). */
export const DEFAULT_OPTIONS: Readonly<Omit<ResolvedOptions, "now" | "adminToken">> = deepFreeze(
  (({ now: _now, adminToken: _adminToken, ...rest }) => rest)(optionsSchema.parse({})),
);

const FIXED_AT_START = ["port", "host", "persistPath"] as const;

/** Applies profile and defaults. Throws {@link EmulatorConfigError} on any unusable value. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  return settle({}, validateOptions(options, "options"));
}

/**
 * Applies a run-time change on top of the current options. A `profile` in the change is applied
 * first and the change's other options override it.
 */
export function reconfigure(current: ResolvedOptions, change: unknown): ResolvedOptions {
  const checked = validateOptions(change, "configure");
  for (const key of FIXED_AT_START) {
    if (checked[key] !== undefined && checked[key] !== current[key]) {
      throw new EmulatorConfigError(`${key} cannot change while the emulator runs`);
    }
  }
  return settle(current, checked);
}

export function effectiveOptions(options: ResolvedOptions): EffectiveOptions {
  const { now: _now, accessToken: _accessToken, adminToken: _adminToken, principals, ...rest } = options;
  return {
    ...structuredClone(rest),
    accessToken: "<redacted>",
    adminToken: "<redacted>",
    principals: principals.map((principal) => ({ token: "<redacted>", creator: { ...principal.creator } })),
  };
}

/**
 * Checks an options object and returns only the options it sets (no defaults), so it can be laid
 * over others. Unknown keys are refused so that a misspelt option does not silently leave the
 * default in place.
 */
export function validateOptions(value: unknown, where: string): EmulatorOptions {
  const parsed: Record<string, unknown> = parseWith(optionsSchema, value, where);
  const given = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(parsed)
      .filter((key) => given[key] !== undefined)
      .map((key) => [key, parsed[key]]),
  );
}

/** Parses with a schema of ours; every problem becomes one EmulatorConfigError naming the value. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new EmulatorConfigError(result.error.issues.map((issue) => describeIssue(issue, where)).join("; "));
}

function settle(base: Partial<ResolvedOptions>, checked: EmulatorOptions): ResolvedOptions {
  const { profile, ...explicit } = checked;
  const preset = profile === undefined ? {} : profileOptions(profile);
  const { profile: _none, ...resolved } = parseWith(
    optionsSchema,
    { ...base, ...preset, ...explicit },
    "options",
  );
  const tokens = new Set([resolved.accessToken]);
  for (const [index, principal] of resolved.principals.entries()) {
    if (tokens.has(principal.token)) {
      throw new EmulatorConfigError(
        `options.principals[${index}].token must differ from accessToken and from the other principals' tokens`,
      );
    }
    tokens.add(principal.token);
  }
  return resolved;
}

function profileOptions(name: string): EmulatorOptions {
  const preset = Object.hasOwn(EMULATOR_PROFILES, name) ? EMULATOR_PROFILES[name] : undefined;
  if (preset === undefined) {
    throw new EmulatorConfigError(
      `unknown profile "${name}" (known: ${Object.keys(EMULATOR_PROFILES).join(", ")})`,
    );
  }
  const { profile: _nested, ...options } = validateOptions(preset, `profile ${name}`);
  return options;
}

function describeIssue(issue: z.core.$ZodIssue, where: string): string {
  const at =
    where + issue.path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => `${at}.${key} is not ${unknownKeyNoun(issue.path)}`).join("; ");
  }
  return `${at} ${issue.message}`;
}

function unknownKeyNoun(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "an emulator option";
  const parent = path[path.length - 1];
  if (parent === "faults") return "a route (list, create)";
  if (path[path.length - 2] === "faults") return "a fault option";
  if (parent === "kinds") return "a fault kind";
  return `a field of ${String(parent)}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The default access token, known to everyone: it must not be reachable from the network. */
export const WELL_KNOWN_TOKEN = "emulator-token";

/** The refusal to listen where other machines can reach the emulator with the well-known token. */
export function nonLoopbackWithoutToken(address: string, how: string): string {
  return `host ${address} is not a loopback interface: other machines could reach the emulator, and "${WELL_KNOWN_TOKEN}" (the default access token) is known to everyone. Choose an access token (${how}), or listen on 127.0.0.1`;
}
