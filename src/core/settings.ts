import { createHash } from "node:crypto";
import { WebhookConfigError, baseUrlProblem, type WebhooksClientOptions } from "../client";
import {
  CONFIG_NAMESPACE,
  RETIRED_SETTINGS,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  type SettingName,
} from "./settings-table";

export {
  CONFIG_NAMESPACE,
  RETIRED_SETTINGS,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  type SettingName,
} from "./settings-table";

/** Provider configuration: raw values by setting name, and how to name where they came from. */
export interface ProviderConfig {
  values: Partial<Record<SettingName, string | undefined>>;
  /** Names the place a setting is configured, e.g. "stack config webhooks:baseUrl". */
  describe(name: SettingName): string;
  /** How to set it there, e.g. "pulumi config set --secret webhooks:accessToken <token>". */
  howToSet(name: SettingName): string;
}

/** Stack config as the dynamic provider's `configure` receives it (full keys). */
export function stackConfig(get: (key: string) => string | undefined): ProviderConfig {
  const values: ProviderConfig["values"] = {};
  for (const name of SETTING_NAMES) values[name] = get(configKey(name));
  return {
    values,
    describe: (name) => `stack config ${configKey(name)}`,
    howToSet: (name) =>
      SETTINGS[name].kind === "string" && "secret" in SETTINGS[name]
        ? `pulumi config set --secret ${configKey(name)} <value>`
        : `pulumi config set ${configKey(name)} <value>`,
  };
}

export const EMPTY_CONFIG: ProviderConfig = stackConfig(() => undefined);

/** Settings given on the dynamic resource itself (its `connection` input). */
export interface ConnectionInputs {
  baseUrl?: string;
  accessToken?: string;
  /** Allow plain http:// to a non-loopback host. @default false */
  allowInsecureHttp?: boolean;
}

/** Everything needed to reach one service as one principal. */
export interface Connection {
  /** Identifies the connection in caches: base URL, a hash of the token, every client setting. Never the token. */
  key: string;
  client: WebhooksClientOptions & { tokenSource: string };
  /**
   * The token's principal as configured (`principalId`): the creator_id of the endpoints it makes.
   * Only for a token from the same configuration (a resource's own token is another principal's).
   */
  principalId?: number;
}

/**
 * Resolves each setting on its own, first found wins: the resource's `connection` input, then the
 * provider configuration, then the environment. A missing base URL or token names every place.
 */
export function resolveConnection(
  config: ProviderConfig,
  resource: ConnectionInputs | undefined,
  env: NodeJS.ProcessEnv,
  /** Names the resource's own settings in messages; undefined where a resource has none (native). */
  resourceLabel?: string,
): Connection {
  const baseUrl = first(
    [resource?.baseUrl, `${resourceLabel ?? "the resource's connection"}.baseUrl input`],
    [config.values.baseUrl, config.describe("baseUrl")],
    [env[SETTINGS.baseUrl.env], `environment variable ${SETTINGS.baseUrl.env}`],
  );
  const token = first(
    [resource?.accessToken, `${resourceLabel ?? "the resource's connection"}.accessToken input`],
    [config.values.accessToken, config.describe("accessToken")],
    [env[SETTINGS.accessToken.env], `environment variable ${SETTINGS.accessToken.env}`],
  );
  const missing: string[] = [];
  if (!baseUrl) {
    missing.push(
      `the API base URL is not set: ${resourceLabel === undefined ? "" : `give ${resourceLabel}.baseUrl, or `}run \`${config.howToSet("baseUrl").replace("<value>", "https://...")}\`, or set ${SETTINGS.baseUrl.env}`,
    );
  }
  if (!token) {
    missing.push(
      `the access token is not set: ${resourceLabel === undefined ? "" : `give ${resourceLabel}.accessToken, or `}run \`${config.howToSet("accessToken").replace("<value>", "<token>")}\`, or set ${SETTINGS.accessToken.env}`,
    );
  }
  if (!baseUrl || !token) throw new WebhookConfigError(missing.join("; "));
  const allowInsecureHttp = resource?.allowInsecureHttp ?? bool(config, env, "allowInsecureHttp") ?? false;
  const problem = baseUrlProblem(baseUrl.value, allowInsecureHttp, baseUrl.source);
  if (problem !== undefined) throw new WebhookConfigError(problem);
  const tuning: Partial<WebhooksClientOptions> = {};
  for (const name of ["timeoutMs", "maxRetries", "createSettleMs", "pageSize"] as const) {
    const value = num(config, env, name);
    if (value !== undefined) tuning[name] = value;
  }
  const ascending = str(config, env, "ascending");
  if (ascending !== undefined) tuning.ascending = ascending;
  const client = {
    baseUrl: baseUrl.value,
    accessToken: token.value,
    tokenSource: token.source,
    allowInsecureHttp,
    ...tuning,
  };
  const principalId = resource?.accessToken === undefined ? num(config, env, "principalId") : undefined;
  const tokenHash = createHash("sha256").update(token.value).digest("hex");
  const key = JSON.stringify([
    baseUrl.value.replace(/\/+$/, ""),
    tokenHash,
    allowInsecureHttp,
    tuning,
    principalId ?? null,
  ]);
  return { key, client, ...(principalId === undefined ? {} : { principalId }) };
}

/** The service a base URL names, in one form (see text/service.ts): what state records as an endpoint's service. */
export { serviceOf } from "../text";

/**
 * Every access token the settings hold, from each place, whether or not a connection resolves
 * from them: what a message that quotes resource or service text must keep out.
 */
export function accessTokensIn(
  config: ProviderConfig,
  resource: ConnectionInputs | undefined,
  env: NodeJS.ProcessEnv,
): string[] {
  const found = new Set<string>();
  const fromResource = typeof resource === "object" && resource !== null ? resource.accessToken : undefined;
  for (const value of [fromResource, config.values.accessToken, env[SETTINGS.accessToken.env]]) {
    if (typeof value === "string" && value.trim() !== "") found.add(value).add(value.trim());
  }
  return [...found];
}

/** The retired settings a configuration still sets, with what replaced each. */
export function retiredSettingsInUse(
  get: (key: string) => string | undefined,
  env: NodeJS.ProcessEnv,
): string[] {
  const found: string[] = [];
  for (const [name, retired] of Object.entries(RETIRED_SETTINGS)) {
    const where = [
      get(`${CONFIG_NAMESPACE}:${name}`) ? `${CONFIG_NAMESPACE}:${name}` : "",
      env[retired.env] ? retired.env : "",
    ].filter(Boolean);
    if (where.length > 0) found.push(`${where.join(" and ")} is no longer used: ${retired.instead}`);
  }
  return found;
}

function first(...pairs: [string | undefined, string][]): { value: string; source: string } | undefined {
  for (const [value, source] of pairs) {
    if (typeof value === "string" && value.trim() !== "") return { value: value.trim(), source };
  }
  return undefined;
}

function raw(
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  name: SettingName,
): { value: string; source: string } | undefined {
  return first(
    [config.values[name], config.describe(name)],
    [env[SETTINGS[name].env], `environment variable ${SETTINGS[name].env}`],
  );
}

/** A boolean setting's text: 1/true/yes or 0/false/no, any case; undefined for anything else. */
export function parseBoolSetting(text: string): boolean | undefined {
  const value = text.trim().toLowerCase();
  if (["1", "true", "yes"].includes(value)) return true;
  if (["0", "false", "no"].includes(value)) return false;
  return undefined;
}

/**
 * Why `text` is not a value of setting `name` ("must be ..."), or undefined when it is. The one rule
 * for each kind. The value is not repeated: it may be a secret (any setting may be set with
 * `--secret`), and the message names where it was set.
 */
export function settingValueProblem(name: SettingName, text: string): string | undefined {
  if (SETTINGS[name].kind === "boolean" && parseBoolSetting(text) === undefined)
    return "must be true or false (or 1/0, yes/no)";
  const setting = SETTINGS[name];
  if (setting.kind === "number") {
    const value = text.trim() === "" ? NaN : Number(text.trim());
    const whole = "integer" in setting && setting.integer;
    if (
      !Number.isFinite(value) ||
      value < setting.min ||
      value > setting.max ||
      (whole && !Number.isInteger(value))
    ) {
      return `must be a ${whole ? "whole " : ""}number of ${setting.unit} from ${setting.min} to ${setting.max}`;
    }
  }
  return undefined;
}

function bool(config: ProviderConfig, env: NodeJS.ProcessEnv, name: SettingName): boolean | undefined {
  const found = raw(config, env, name);
  if (found === undefined) return undefined;
  const problem = settingValueProblem(name, found.value);
  if (problem !== undefined) throw new WebhookConfigError(`${found.source} ${problem}`);
  return parseBoolSetting(found.value);
}

function num(config: ProviderConfig, env: NodeJS.ProcessEnv, name: SettingName): number | undefined {
  const found = raw(config, env, name);
  if (found === undefined) return undefined;
  const problem = settingValueProblem(name, found.value);
  if (problem !== undefined) throw new WebhookConfigError(`${found.source} ${problem}`);
  return Number(found.value);
}

function str(config: ProviderConfig, env: NodeJS.ProcessEnv, name: SettingName): string | undefined {
  return raw(config, env, name)?.value;
}
