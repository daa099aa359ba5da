import { WebhookConfigError } from "./errors";
import type { CreateOptions, WebhooksClientOptions } from "./types";

/** The client's configuration after defaults and validation. */
export interface ClientSettings {
  timeoutMs: number;
  createTimeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
  retryBaseDelayMs: number;
  pageSize: number;
  maxPages: number;
  maxScanRecords: number;
  maxScanBytes: number;
  ascending: string;
  createSettleMs: number;
  createListTimeoutMs: number;
  clockSkewMs: number;
  allowInsecureHttp: boolean;
}

/** Defaults of every option; docs/client.md's "Options" table states the same values. */
export const CLIENT_DEFAULTS: Readonly<ClientSettings> = Object.freeze({
  timeoutMs: 10_000,
  createTimeoutMs: 60_000,
  maxRetries: 3,
  maxRetryAfterMs: 30_000,
  retryBaseDelayMs: 250,
  pageSize: 100,
  maxPages: 1000,
  maxScanRecords: 50_000,
  maxScanBytes: 32 * 1024 * 1024,
  ascending: "true",
  createSettleMs: 3000,
  createListTimeoutMs: 60_000,
  clockSkewMs: 60_000,
  allowInsecureHttp: false,
});

/** Validates the options and fills in defaults. Throws {@link WebhookConfigError} naming the option. */
/** The range of `timeoutMs` and `maxRetries`, for the client's options and for a call's own. */
const TIMEOUT_MS = [1, 3_600_000] as const;
const MAX_RETRIES = [0, 100] as const;

/**
 * A call's own options, checked before anything is sent, and copied: what the call uses is what was
 * checked (a getter is read once). Nothing or an object; `signal` an AbortSignal; `redact` texts;
 * `timeoutMs` and `maxRetries` in the client's own ranges (a clear error, not an endless retry);
 * for a create, `allowDuplicate` true or false and `ourCreatorIds` whole numbers.
 */
export function checkedCallOptions<T extends CreateOptions>(
  options: T | undefined,
  operation: "list" | "create",
): T {
  if (options === undefined) return {} as T;
  const copy = ownFields(options, `${operation}'s options`) as T & Record<string, unknown>;
  if (copy.timeoutMs !== undefined) number(copy.timeoutMs, "timeoutMs", ...TIMEOUT_MS);
  if (copy.maxRetries !== undefined) integer(copy.maxRetries, "maxRetries", ...MAX_RETRIES);
  if (copy.signal !== undefined && !isAbortSignal(copy.signal))
    throw new WebhookConfigError(
      `${operation}'s signal must be an AbortSignal (an AbortController's signal)`,
    );
  if (copy.redact !== undefined)
    copy.redact = listOf(copy.redact, (value) => typeof value === "string", `${operation}'s redact`, "texts");
  if (operation === "create") {
    if (copy.allowDuplicate !== undefined && typeof copy.allowDuplicate !== "boolean")
      throw new WebhookConfigError("create's allowDuplicate must be true or false");
    if (copy.ourCreatorIds !== undefined)
      copy.ourCreatorIds = listOf(
        copy.ourCreatorIds,
        Number.isSafeInteger,
        "create's ourCreatorIds",
        "whole numbers",
      );
  }
  return copy;
}

/** An object's own fields, read once; anything else, or an object that cannot be read, is refused. */
function ownFields(value: unknown, what: string): Record<string, unknown> {
  try {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { ...value };
  } catch {
    // A getter that throws, or a revoked proxy.
  }
  throw new WebhookConfigError(`${what} must be an object whose fields can be read, or left out`);
}

function isAbortSignal(value: unknown): boolean {
  try {
    return value instanceof AbortSignal;
  } catch {
    return false;
  }
}

/** A copy of a list whose every item passes `valid`. */
function listOf<T>(value: unknown, valid: (item: unknown) => boolean, what: string, items: string): T[] {
  try {
    if (Array.isArray(value)) {
      const copy: unknown[] = [...(value as unknown[])];
      if (copy.every(valid)) return copy as T[];
    }
  } catch {
    // A proxy or a getter that throws.
  }
  throw new WebhookConfigError(`${what} must be a list of ${items}`);
}

export function clientSettings(options: WebhooksClientOptions): ClientSettings {
  const ascending = options.ascending ?? CLIENT_DEFAULTS.ascending;
  if (typeof ascending !== "string" || ascending.length > 100)
    throw new WebhookConfigError("ascending must be a string of at most 100 characters");
  return {
    timeoutMs: number(options.timeoutMs, "timeoutMs", ...TIMEOUT_MS),
    createTimeoutMs: number(options.createTimeoutMs, "createTimeoutMs", 1, 3_600_000),
    maxRetries: integer(options.maxRetries, "maxRetries", ...MAX_RETRIES),
    maxRetryAfterMs: number(options.maxRetryAfterMs, "maxRetryAfterMs", 0, 3_600_000),
    retryBaseDelayMs: number(options.retryBaseDelayMs, "retryBaseDelayMs", 0, 600_000),
    pageSize: integer(options.pageSize, "pageSize", 1, 10_000),
    maxPages: integer(options.maxPages, "maxPages", 1, 1_000_000),
    maxScanRecords: integer(options.maxScanRecords, "maxScanRecords", 1, 10_000_000),
    maxScanBytes: integer(options.maxScanBytes, "maxScanBytes", 1024, 4 * 1024 * 1024 * 1024),
    ascending,
    createSettleMs: number(options.createSettleMs, "createSettleMs", 0, 600_000),
    createListTimeoutMs: number(options.createListTimeoutMs, "createListTimeoutMs", 1, 3_600_000),
    clockSkewMs: number(options.clockSkewMs, "clockSkewMs", 0, 86_400_000),
    allowInsecureHttp: options.allowInsecureHttp === true,
  };
}

/** Validates the access token (never echoing it). */
export function checkToken(value: unknown): string {
  const token = typeof value === "string" ? value : "";
  if (token.trim() === "")
    throw new WebhookConfigError("accessToken is empty: pass the service's open-API token");
  if (/[\r\n\0]/.test(token)) {
    throw new WebhookConfigError(
      "accessToken contains a line break or NUL character: copy the token again without them",
    );
  }
  return token;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * The base-URL policy, in one place (the client's constructor and the resource's `check` both
 * use it): absolute http(s), no credentials, no query or fragment, plain http only on loopback
 * unless allowed.
 */
export function parseBaseUrl(value: unknown, allowInsecureHttp: boolean): URL {
  const problem = baseUrlProblem(value, allowInsecureHttp);
  if (problem !== undefined) throw new WebhookConfigError(problem);
  return new URL((value as string).trim());
}

/** The reason a base URL is unusable, or undefined. `what` names the setting in the message. */
export function baseUrlProblem(
  value: unknown,
  allowInsecureHttp: boolean,
  what = "baseUrl",
): string | undefined {
  if (typeof value !== "string" || value.trim() === "") {
    return `${what} is empty: set it to the service's address, e.g. https://api.example.com`;
  }
  const rule = `${what} must be an absolute http(s) URL without credentials, query or fragment, e.g. https://api.example.com`;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return `${rule}: this is not an absolute URL`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return `${rule}: use https:// (or http:// on loopback), not ${url.protocol}//`;
  }
  if (url.username !== "" || url.password !== "") {
    return `${rule}: it contains credentials; pass the token as the access token instead`;
  }
  if (url.search !== "" || url.hash !== "" || value.includes("?") || value.includes("#")) {
    return `${rule}: it has a query string or fragment`;
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === "http:" && !loopback && !allowInsecureHttp) {
    // The address is not repeated: it may be a secret (a program's secret base URL), and `what` names where it was set.
    return `${what} is plain http on a non-loopback host: the token would cross the network unencrypted. Use https://, or allow it explicitly (allowInsecureHttp: true / webhooks:allowInsecureHttp / WEBHOOKS_ALLOW_INSECURE_HTTP=1)`;
  }
  return undefined;
}

function number(value: number | undefined, name: keyof ClientSettings, min: number, max: number): number {
  if (value === undefined) return CLIENT_DEFAULTS[name] as number;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new WebhookConfigError(`${name} must be a number from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

function integer(value: number | undefined, name: keyof ClientSettings, min: number, max: number): number {
  const checked = number(value, name, min, max);
  if (!Number.isInteger(checked))
    throw new WebhookConfigError(`${name} must be a whole number, got ${String(value)}`);
  return checked;
}
