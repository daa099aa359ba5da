import {
  CONFIG_NAMESPACE,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  type ProviderConfig,
  type SettingName,
} from "./settings";
import { configString } from "./wire";

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
