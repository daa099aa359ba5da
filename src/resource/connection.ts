import { createHash } from "node:crypto";
import { WebhooksClient } from "../client/client";
import { WebhookConfigError } from "../client/errors";
import type { ConnectionInputs } from "./inputs";

export const CONFIG_BASE_URL = "webhooks:baseUrl";
export const CONFIG_ACCESS_TOKEN = "webhooks:accessToken";
export const CONFIG_ALLOW_INSECURE_HTTP = "webhooks:allowInsecureHttp";
/** Opt-in recovery after an interrupted run: see `adoptRecentWindowMs`. */
export const CONFIG_ADOPT_RECENT_MINUTES = "webhooks:adoptRecentMinutes";
export const ENV_ADOPT_RECENT_MINUTES = "WEBHOOKS_ADOPT_RECENT_MINUTES";
export const ENV_BASE_URL = "WEBHOOKS_BASE_URL";
export const ENV_ACCESS_TOKEN = "WEBHOOKS_ACCESS_TOKEN";
export const ENV_ALLOW_INSECURE_HTTP = "WEBHOOKS_ALLOW_INSECURE_HTTP";
/** Client tuning for pipelines and tests: milliseconds per HTTP attempt. */
export const ENV_TIMEOUT_MS = "WEBHOOKS_TIMEOUT_MS";
/** Client tuning: retries per call. */
export const ENV_MAX_RETRIES = "WEBHOOKS_MAX_RETRIES";
/** Client tuning: milliseconds to keep looking for the result of an ambiguous create. */
export const ENV_CREATE_SETTLE_MS = "WEBHOOKS_CREATE_SETTLE_MS";
/** For a service whose page size limit is below the default 100: records asked for per page. */
export const ENV_PAGE_SIZE = "WEBHOOKS_PAGE_SIZE";
/** For a service that wants another form of `ascending` (its accepted values are undocumented). */
export const ENV_ASCENDING = "WEBHOOKS_ASCENDING";

/** Stack config as `configure` received it: full keys such as `webhooks:baseUrl`. */
export type StackConfig = Readonly<Record<string, string | undefined>>;

interface Resolved {
  baseUrl: string;
  accessToken: string;
  tokenSource: string;
  allowInsecureHttp: boolean;
}

/**
 * Resolves each setting on its own, first found wins: the resource's `connection` input, then
 * stack config, then the environment. A missing setting names all three places.
 */
export function resolveConnection(
  resourceConnection: ConnectionInputs | undefined,
  config: StackConfig,
  env: NodeJS.ProcessEnv = process.env,
): Resolved {
  const baseUrl = pick(resourceConnection?.baseUrl, "the resource's connection.baseUrl input", config[CONFIG_BASE_URL], `stack config ${CONFIG_BASE_URL}`, env[ENV_BASE_URL], `environment variable ${ENV_BASE_URL}`);
  const token = pick(resourceConnection?.accessToken, "the resource's connection.accessToken input", config[CONFIG_ACCESS_TOKEN], `stack config ${CONFIG_ACCESS_TOKEN}`, env[ENV_ACCESS_TOKEN], `environment variable ${ENV_ACCESS_TOKEN}`);
  const missing: string[] = [];
  if (!baseUrl) {
    missing.push(
      `the API base URL is not set: give the resource connection.baseUrl, or run \`pulumi config set ${CONFIG_BASE_URL} https://...\`, or set ${ENV_BASE_URL}`,
    );
  }
  if (!token) {
    missing.push(
      `the access token is not set: give the resource connection.accessToken, or run \`pulumi config set --secret ${CONFIG_ACCESS_TOKEN} <token>\`, or set ${ENV_ACCESS_TOKEN}`,
    );
  }
  if (!baseUrl || !token) throw new WebhookConfigError(missing.join("; "));
  const allow =
    resourceConnection?.allowInsecureHttp ??
    truthy(config[CONFIG_ALLOW_INSECURE_HTTP]) ??
    truthy(env[ENV_ALLOW_INSECURE_HTTP]) ??
    false;
  return { baseUrl: baseUrl.value, accessToken: token.value, tokenSource: token.source, allowInsecureHttp: allow };
}

function pick(...pairs: (string | undefined)[]): { value: string; source: string } | undefined {
  for (let i = 0; i < pairs.length; i += 2) {
    const value = pairs[i];
    if (typeof value === "string" && value.trim() !== "") return { value: value.trim(), source: pairs[i + 1] as string };
  }
  return undefined;
}

function truthy(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  return ["1", "true", "yes"].includes(value.toLowerCase());
}

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new WebhookConfigError(`${name} must be a number of milliseconds or a count, got "${raw}"`);
  return value;
}

const clients = new Map<string, WebhooksClient>();

/**
 * One client per distinct connection in this process, so every resource shares keep-alive
 * connections and identical concurrent list calls are coalesced. The key holds a hash of the
 * token, never the token.
 */
export function clientFor(resolved: Resolved, env: NodeJS.ProcessEnv = process.env): WebhooksClient {
  const timeoutMs = envNumber(env, ENV_TIMEOUT_MS);
  const maxRetries = envNumber(env, ENV_MAX_RETRIES);
  const createSettleMs = envNumber(env, ENV_CREATE_SETTLE_MS);
  const pageSize = envNumber(env, ENV_PAGE_SIZE);
  const ascending = env[ENV_ASCENDING];
  const tuning = {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
    ...(createSettleMs === undefined ? {} : { createSettleMs }),
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(ascending === undefined || ascending === "" ? {} : { ascending }),
  };
  const tokenHash = createHash("sha256").update(resolved.accessToken).digest("hex");
  const key = JSON.stringify([resolved.baseUrl, tokenHash, resolved.allowInsecureHttp, resolved.tokenSource, tuning]);
  let client = clients.get(key);
  if (!client) {
    client = new WebhooksClient({
      baseUrl: resolved.baseUrl,
      accessToken: resolved.accessToken,
      tokenSource: resolved.tokenSource,
      allowInsecureHttp: resolved.allowInsecureHttp,
      ...tuning,
    });
    clients.set(key, client);
  }
  return client;
}

/**
 * The opt-in window for adopting, instead of creating, an endpoint with exactly the declared name
 * and URL created within the last N minutes: the endpoint an interrupted run created but never
 * recorded. Stack config `webhooks:adoptRecentMinutes`, else `WEBHOOKS_ADOPT_RECENT_MINUTES`;
 * 0 (the default) turns it off.
 */
export function adoptRecentWindowMs(config: StackConfig, env: NodeJS.ProcessEnv = process.env): number {
  const raw = config[CONFIG_ADOPT_RECENT_MINUTES] ?? env[ENV_ADOPT_RECENT_MINUTES];
  if (raw === undefined || raw.trim() === "") return 0;
  const minutes = Number(raw);
  if (!Number.isFinite(minutes) || minutes < 0) {
    throw new WebhookConfigError(`${CONFIG_ADOPT_RECENT_MINUTES} / ${ENV_ADOPT_RECENT_MINUTES} must be a number of minutes, got "${raw}"`);
  }
  return minutes * 60_000;
}
