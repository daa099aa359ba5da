import { PACKAGE } from "./resource";

// The settings table, apart from their resolution (settings.ts), so that the program side of the
// dynamic resource can read it without loading the client.

/**
 * Where each provider setting comes from, written once for both faces, the operator CLI and the
 * docs: the provider's own configuration (stack config `webhooks:<name>` for the dynamic resource,
 * provider config or an explicit provider's arguments for the native one), then the environment.
 * The dynamic resource's `connection` input comes first of all for the three it can hold.
 */
export const SETTINGS = {
  baseUrl: { env: "WEBHOOKS_BASE_URL", kind: "string" },
  accessToken: { env: "WEBHOOKS_ACCESS_TOKEN", kind: "string", secret: true },
  allowInsecureHttp: { env: "WEBHOOKS_ALLOW_INSECURE_HTTP", kind: "boolean" },
  // `tuning`: the client's option of the same name, passed to it as it is. The ranges are the
  // client's (client/options.ts): a value outside them is refused where it is set (check,
  // CheckConfig), naming the setting, not at the first call.
  timeoutMs: {
    tuning: true,
    env: "WEBHOOKS_TIMEOUT_MS",
    kind: "number",
    min: 1,
    max: 3_600_000,
    integer: true,
    unit: "milliseconds",
  },
  maxRetries: {
    tuning: true,
    env: "WEBHOOKS_MAX_RETRIES",
    kind: "number",
    min: 0,
    max: 100,
    integer: true,
    unit: "retries",
  },
  createSettleMs: {
    tuning: true,
    env: "WEBHOOKS_CREATE_SETTLE_MS",
    kind: "number",
    min: 0,
    max: 600_000,
    integer: true,
    unit: "milliseconds",
  },
  pageSize: {
    tuning: true,
    env: "WEBHOOKS_PAGE_SIZE",
    kind: "number",
    min: 1,
    max: 10_000,
    integer: true,
    unit: "records per page",
  },
  ascending: { tuning: true, env: "WEBHOOKS_ASCENDING", kind: "string" },
  // The creator_id the service gives endpoints made with the configured token (the API cannot say
  // which principal a token is): a create answered with another creator's endpoint is refused.
  principalId: {
    env: "WEBHOOKS_PRINCIPAL_ID",
    kind: "number",
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    integer: true,
    unit: "creator id",
  },
} as const;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];
/** The settings that are the client's options of the same name. */
export type TuningSetting = {
  [K in SettingName]: (typeof SETTINGS)[K] extends { tuning: true } ? K : never;
}[SettingName];
export const TUNING_SETTINGS = SETTING_NAMES.filter(
  (name): name is TuningSetting => (SETTINGS[name] as { tuning?: boolean }).tuning === true,
);
/**
 * The settings secret wherever they are set (`secret: true`): the provider keeps their values out of
 * every message whether or not the stack holds them with `--secret`.
 */
export const ALWAYS_SECRET_SETTINGS = SETTING_NAMES.filter(
  (name) => (SETTINGS[name] as { secret?: boolean }).secret === true,
);
/** The config namespace of both faces: the Pulumi package's name. */
export const CONFIG_NAMESPACE = PACKAGE;
/** `webhooks:baseUrl`, ... */
export function configKey(name: SettingName): string {
  return `${CONFIG_NAMESPACE}:${name}`;
}

/** No longer read: kept so that a stack still setting it is told what replaced it. */
export const RETIRED_SETTINGS = {
  adoptRecentMinutes: {
    env: "WEBHOOKS_ADOPT_RECENT_MINUTES",
    instead:
      "create never takes an existing endpoint silently any more: after an interrupted run, run `webhooks recover` in the project, or set adoptWebhookId on the resource",
  },
} as const;
