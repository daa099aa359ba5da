import { FAULT_KINDS } from "./faults";
import { EMULATOR_PROFILES } from "./profiles";
import type {
  EffectiveOptions,
  EmulatorOptions,
  FaultKind,
  FaultOptions,
  ListField,
  ResolvedOptions,
  RouteFaults,
} from "./types";

/** An option value that cannot be used; the message names the option. */
export class EmulatorConfigError extends Error {
  override readonly name = "EmulatorConfigError";
}

export const DEFAULT_OPTIONS: Readonly<Omit<ResolvedOptions, "now">> = Object.freeze({
  port: 0,
  host: "127.0.0.1",
  accessToken: "emulator-token",
  filterMatch: "exact",
  paging: "cursor",
  defaultPageSize: 20,
  maxPageSize: 100,
  limitAboveMax: "clamp",
  uniqueNames: false,
  errorStyle: "http",
  ascending: "any",
  defaultOrder: "asc",
  requiredListFields: Object.freeze([]) as unknown as ListField[],
  maxNameLength: 128,
  maxUrlLength: 2048,
  maxBodyBytes: 65536,
  creator: Object.freeze({ id: 1001, name: "open-api" }),
  latencyMs: 0,
  persistPath: undefined,
  faults: Object.freeze({}),
  seed: 1,
  requestLogLimit: 10000,
});

const LIST_FIELDS: readonly ListField[] = ["cursor", "limit", "webhook_name", "webhook_url", "ascending"];
const FIXED_AT_START = ["port", "host", "persistPath"] as const;

/** Applies profile and defaults. Throws {@link EmulatorConfigError} on any unusable value. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const checked = validateOptions(options, "options");
  const base: ResolvedOptions = { ...copyOptions(DEFAULT_OPTIONS), now: Date.now };
  return mergeChecked(base, checked);
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
  return mergeChecked(current, checked);
}

export function effectiveOptions(options: ResolvedOptions): EffectiveOptions {
  const { now: _now, accessToken: _token, ...rest } = options;
  return { ...copyOptions(rest), accessToken: "<redacted>" };
}

function mergeChecked(base: ResolvedOptions, checked: EmulatorOptions): ResolvedOptions {
  const { profile, ...explicit } = checked;
  let merged = base;
  if (profile !== undefined) {
    const preset = EMULATOR_PROFILES[profile];
    if (preset === undefined) {
      throw new EmulatorConfigError(
        `unknown profile "${profile}" (known: ${Object.keys(EMULATOR_PROFILES).join(", ")})`,
      );
    }
    const { profile: _nested, ...presetOptions } = validateOptions(preset, `profile ${profile}`);
    merged = { ...merged, ...copyOptions(presetOptions) };
  }
  merged = { ...merged, ...copyOptions(explicit) };
  if (merged.defaultPageSize < 1 || merged.maxPageSize < 1) {
    throw new EmulatorConfigError("defaultPageSize and maxPageSize must be at least 1");
  }
  return merged;
}

// Deep copies plain data so callers cannot mutate the emulator's options through objects they
// passed in or received; functions (the clock) are kept as they are.
function copyOptions<T extends object>(options: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    out[key] = typeof value === "function" || value === undefined ? value : structuredClone(value);
  }
  return out as T;
}

/**
 * Checks an options object coming from code, a JSON config file or the admin route. Unknown keys
 * are refused so that a misspelt option does not silently leave the default in place.
 */
export function validateOptions(value: unknown, where: string): EmulatorOptions {
  const input = asObject(value, where);
  const out: EmulatorOptions = {};
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    const name = `${where}.${key}`;
    switch (key) {
      case "profile":
        out.profile = str(name, raw);
        break;
      case "port":
        out.port = int(name, raw, 0, 65535);
        break;
      case "host":
        out.host = str(name, raw, true);
        break;
      case "accessToken":
        out.accessToken = str(name, raw, true);
        break;
      case "filterMatch":
        out.filterMatch = oneOf(name, raw, ["exact", "partial", "ignored"] as const);
        break;
      case "paging":
        out.paging = oneOf(name, raw, ["none", "cursor", "next-cursor", "has-more"] as const);
        break;
      case "defaultPageSize":
        out.defaultPageSize = int(name, raw, 1);
        break;
      case "maxPageSize":
        out.maxPageSize = int(name, raw, 1);
        break;
      case "limitAboveMax":
        out.limitAboveMax = oneOf(name, raw, ["clamp", "error"] as const);
        break;
      case "uniqueNames":
        out.uniqueNames = bool(name, raw);
        break;
      case "errorStyle":
        out.errorStyle = oneOf(name, raw, ["http", "envelope-200"] as const);
        break;
      case "ascending":
        out.ascending = oneOf(name, raw, ["true-false-string", "asc-desc", "any", "ignored"] as const);
        break;
      case "defaultOrder":
        out.defaultOrder = oneOf(name, raw, ["asc", "desc"] as const);
        break;
      case "requiredListFields":
        if (!Array.isArray(raw)) throw new EmulatorConfigError(`${name} must be an array`);
        out.requiredListFields = raw.map((field, i) => oneOf(`${name}[${i}]`, field, LIST_FIELDS));
        break;
      case "maxNameLength":
        out.maxNameLength = int(name, raw, 1);
        break;
      case "maxUrlLength":
        out.maxUrlLength = int(name, raw, 1);
        break;
      case "maxBodyBytes":
        out.maxBodyBytes = int(name, raw, 1);
        break;
      case "creator": {
        const creator = asObject(raw, name);
        out.creator = { id: int(`${name}.id`, creator.id, 0), name: str(`${name}.name`, creator.name) };
        break;
      }
      case "latencyMs":
        out.latencyMs = int(name, raw, 0);
        break;
      case "now":
        if (typeof raw !== "function") throw new EmulatorConfigError(`${name} must be a function`);
        out.now = raw as () => number;
        break;
      case "persistPath":
        out.persistPath = str(name, raw, true);
        break;
      case "faults":
        out.faults = faultOptions(name, raw);
        break;
      case "seed":
        out.seed = int(name, raw, 0, 0xffffffff);
        break;
      case "requestLogLimit":
        out.requestLogLimit = int(name, raw, 0);
        break;
      default:
        throw new EmulatorConfigError(`${name} is not an emulator option`);
    }
  }
  return out;
}

function faultOptions(name: string, raw: unknown): FaultOptions {
  const input = asObject(raw, name);
  const out: FaultOptions = {};
  for (const [route, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (route !== "list" && route !== "create") {
      throw new EmulatorConfigError(`${name}.${route} is not a route (list, create)`);
    }
    out[route] = routeFaults(`${name}.${route}`, value);
  }
  return out;
}

function routeFaults(name: string, raw: unknown): RouteFaults {
  const input = asObject(raw, name);
  for (const key of Object.keys(input)) {
    if (!["rate", "kinds", "retryAfterSeconds", "slowMs", "truncation"].includes(key)) {
      throw new EmulatorConfigError(`${name}.${key} is not a fault option`);
    }
  }
  const rate = input.rate;
  if (typeof rate !== "number" || !(rate >= 0 && rate <= 1)) {
    throw new EmulatorConfigError(`${name}.rate must be a number from 0 to 1`);
  }
  const out: RouteFaults = { rate };
  if (input.kinds !== undefined) {
    const kinds = asObject(input.kinds, `${name}.kinds`);
    const weights: Partial<Record<FaultKind, number>> = {};
    for (const [kind, weight] of Object.entries(kinds)) {
      const fault = oneOf(`${name}.kinds key`, kind, FAULT_KINDS);
      if (typeof weight !== "number" || !Number.isFinite(weight) || weight < 0) {
        throw new EmulatorConfigError(`${name}.kinds.${kind} must be a non-negative number`);
      }
      weights[fault] = weight;
    }
    if (!Object.values(weights).some((weight) => weight > 0)) {
      throw new EmulatorConfigError(`${name}.kinds must give at least one kind a positive weight`);
    }
    out.kinds = weights;
  }
  if (input.retryAfterSeconds !== undefined) out.retryAfterSeconds = int(`${name}.retryAfterSeconds`, input.retryAfterSeconds, 0);
  if (input.slowMs !== undefined) out.slowMs = int(`${name}.slowMs`, input.slowMs, 0);
  if (input.truncation !== undefined) {
    out.truncation = oneOf(`${name}.truncation`, input.truncation, ["content-length", "chunked-end"] as const);
  }
  return out;
}

function asObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new EmulatorConfigError(`${name} must be an object`);
  }
  return value as Record<string, unknown>;
}

function str(name: string, value: unknown, nonEmpty = false): string {
  if (typeof value !== "string" || (nonEmpty && value.length === 0)) {
    throw new EmulatorConfigError(`${name} must be a ${nonEmpty ? "non-empty " : ""}string`);
  }
  return value;
}

function bool(name: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw new EmulatorConfigError(`${name} must be a boolean`);
  return value;
}

function int(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new EmulatorConfigError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new EmulatorConfigError(`${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
  }
  return value as T;
}
