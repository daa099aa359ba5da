import { baseUrlProblem } from "../client";
import { UNKNOWN } from "../core/wire";
import { SETTINGS, SETTING_NAMES, parseBoolSetting, settingValueProblem } from "../core/settings";
import { nativeConfig } from "../core/provider-config";

export { nativeConfig };

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
