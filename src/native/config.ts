import { baseUrlProblem } from "../client";
import { UNKNOWN } from "../core/wire";
import {
  CONFIG_NAMESPACE,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  parseBoolSetting,
  settingValueProblem,
  type ProviderConfig,
  type SettingName,
} from "../core/settings";
import { configString } from "./properties";

/**
 * The native provider's configuration: the stack's `webhooks:*` config for the default provider,
 * or an explicit provider's arguments (`new webhooks.Provider("eu", { baseUrl, accessToken })`,
 * `type: pulumi:providers:webhooks`). Keys arrive as `baseUrl` (arguments) or
 * `webhooks:config:baseUrl` (older engines' variables).
 */
export function nativeConfig(values: Record<string, unknown>): ProviderConfig {
  const picked: ProviderConfig["values"] = {};
  for (const [rawKey, value] of Object.entries(values)) {
    const name = settingName(rawKey);
    if (name !== undefined) picked[name] = configString(value);
  }
  return {
    values: picked,
    describe: (name) => `provider config ${configKey(name)} (or an explicit provider's ${name})`,
    howToSet: (name) =>
      `pulumi config set ${"secret" in SETTINGS[name] ? "--secret " : ""}${configKey(name)} <value>`,
  };
}

function settingName(key: string): SettingName | undefined {
  const bare = key.startsWith(`${CONFIG_NAMESPACE}:config:`)
    ? key.slice(`${CONFIG_NAMESPACE}:config:`.length)
    : key.startsWith(`${CONFIG_NAMESPACE}:`)
      ? key.slice(CONFIG_NAMESPACE.length + 1)
      : key;
  return (SETTING_NAMES as string[]).includes(bare) ? (bare as SettingName) : undefined;
}

/** Problems with provider configuration values, per key, before anything is called. */
export function checkConfig(values: Record<string, unknown>): { property: string; reason: string }[] {
  const failures: { property: string; reason: string }[] = [];
  const config = nativeConfig(values);
  for (const name of SETTING_NAMES) {
    const raw = values[name];
    if (raw === undefined || raw === null || raw === UNKNOWN) continue;
    const text = config.values[name];
    if (text === undefined) continue;
    const problem = settingValueProblem(name, text);
    if (problem !== undefined) failures.push({ property: name, reason: `${name} ${problem}` });
  }
  const baseUrl = config.values.baseUrl;
  if (baseUrl !== undefined) {
    const allow = parseBoolSetting(config.values.allowInsecureHttp ?? "") === true;
    // Plain http on another host may still be allowed through WEBHOOKS_ALLOW_INSECURE_HTTP: decided when used.
    const fromEnv = parseBoolSetting(process.env[SETTINGS.allowInsecureHttp.env] ?? "") === true;
    const problem = baseUrlProblem(baseUrl, allow || fromEnv, "baseUrl");
    if (problem !== undefined) failures.push({ property: "baseUrl", reason: problem });
  }
  const token = config.values.accessToken;
  if (token !== undefined && token.trim() === "")
    failures.push({
      property: "accessToken",
      reason: "accessToken is empty: set it, or leave it out to use WEBHOOKS_ACCESS_TOKEN",
    });
  return failures;
}
