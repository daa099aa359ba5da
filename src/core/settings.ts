import { createHash } from "node:crypto";
import { WebhookConfigError, baseUrlProblem, type WebhooksClientOptions } from "../client";
import type { PrincipalClaim } from "./principal";
import {
  CONFIG_NAMESPACE,
  RETIRED_SETTINGS,
  SETTINGS,
  SETTING_NAMES,
  TUNING_SETTINGS,
  configKey,
  type SettingName,
  type TuningSetting,
} from "./settings-table";

export {
  CONFIG_NAMESPACE,
  RETIRED_SETTINGS,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  type SettingName,
} from "./settings-table";

/**
 * Where a setting was found: the dynamic resource's own `connection` input, the provider's
 * configuration (stack config for the dynamic resource and the native default provider, an explicit
 * provider's arguments), or the environment.
 */
export type SettingPlace = "resource" | "config" | "environment";

/**
 * Which `principalId` speaks for the token, by where the token was found: a principalId names the
 * creator of the endpoints made with the token of its own configuration, never another's. The one
 * rule for both faces and the CLI; docs/configuration.md's table is tested against it.
 */
export const PRINCIPAL_FOR_TOKEN = {
  // A dynamic resource's own connection.accessToken: that input has no principalId, and the stack's
  // and the environment's speak of other tokens.
  resource: [],
  // The configuration's own token (stack config, an explicit or the default provider's settings):
  // that configuration's principalId only, never WEBHOOKS_PRINCIPAL_ID, which speaks of the
  // environment's token.
  config: ["config"],
  // WEBHOOKS_ACCESS_TOKEN (the configuration sets no token): the configuration's principalId, which
  // then speaks of the token it takes from the environment, else WEBHOOKS_PRINCIPAL_ID.
  environment: ["config", "environment"],
} as const satisfies Record<SettingPlace, readonly Exclude<SettingPlace, "resource">[]>;

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
   * The token's principal as its configuration names it (`principalId`): the creator_id of the
   * endpoints it makes. Which principalId speaks for which token: {@link PRINCIPAL_FOR_TOKEN}.
   */
  principal?: PrincipalClaim;
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
    [resource?.baseUrl, `${resourceLabel ?? "the resource's connection"}.baseUrl input`, "resource"],
    [config.values.baseUrl, config.describe("baseUrl"), "config"],
    [env[SETTINGS.baseUrl.env], `environment variable ${SETTINGS.baseUrl.env}`, "environment"],
  );
  const token = first(
    [resource?.accessToken, `${resourceLabel ?? "the resource's connection"}.accessToken input`, "resource"],
    [config.values.accessToken, config.describe("accessToken"), "config"],
    [env[SETTINGS.accessToken.env], `environment variable ${SETTINGS.accessToken.env}`, "environment"],
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
  const tuning: Pick<WebhooksClientOptions, TuningSetting> = {};
  for (const name of TUNING_SETTINGS) {
    const value = SETTINGS[name].kind === "number" ? num(config, env, name) : str(config, env, name);
    if (value !== undefined) (tuning as Record<TuningSetting, unknown>)[name] = value;
  }
  const client = {
    baseUrl: baseUrl.value,
    accessToken: token.value,
    tokenSource: token.source,
    allowInsecureHttp,
    ...tuning,
  };
  const principal = principalFor(token.place, config, env);
  const tokenHash = createHash("sha256").update(token.value).digest("hex");
  const key = JSON.stringify([
    baseUrl.value.replace(/\/+$/, ""),
    tokenHash,
    allowInsecureHttp,
    tuning,
    principal?.id ?? null,
  ]);
  return { key, client, ...(principal === undefined ? {} : { principal }) };
}

/** The principalId that speaks for a token found at `tokenPlace` ({@link PRINCIPAL_FOR_TOKEN}), validated. */
function principalFor(
  tokenPlace: SettingPlace,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
): PrincipalClaim | undefined {
  const places: readonly SettingPlace[] = PRINCIPAL_FOR_TOKEN[tokenPlace];
  const found = first(
    ...places.map((place): [string | undefined, string, SettingPlace] =>
      place === "config"
        ? [config.values.principalId, config.describe("principalId"), "config"]
        : [env[SETTINGS.principalId.env], `environment variable ${SETTINGS.principalId.env}`, "environment"],
    ),
  );
  if (found === undefined) return undefined;
  const problem = settingValueProblem("principalId", found.value);
  if (problem !== undefined) throw new WebhookConfigError(`${found.source} ${problem}`);
  return {
    id: Number(found.value),
    source: found.source,
    howToSet:
      found.place === "config"
        ? config.howToSet("principalId")
        : `export ${SETTINGS.principalId.env}=<value>`,
  };
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

function first(
  ...candidates: [string | undefined, string, SettingPlace][]
): { value: string; source: string; place: SettingPlace } | undefined {
  for (const [value, source, place] of candidates) {
    if (typeof value === "string" && value.trim() !== "") return { value: value.trim(), source, place };
  }
  return undefined;
}

function raw(
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  name: SettingName,
): { value: string; source: string } | undefined {
  return first(
    [config.values[name], config.describe(name), "config"],
    [env[SETTINGS[name].env], `environment variable ${SETTINGS[name].env}`, "environment"],
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
