export {
  ProviderCore,
  driftNotice,
  type DiffOutcome,
  type ProviderCoreOptions,
  type ReadOutcome,
} from "./provider-core";
export { EndpointCreatedButFailedError, ProviderError } from "./errors";
export { isKnown, validateInputs, type CheckFailure, type WebhookEndpointInputs } from "./inputs";
export type { WebhookEndpointOutputs } from "./state";
export {
  CONFIG_NAMESPACE,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  resolveConnection,
  retiredSettingsInUse,
  stackConfig,
  type Connection,
  type ConnectionInputs,
  type ProviderConfig,
  type SettingName,
} from "./settings";
export { SECRET_SIG, SIG_KEY, UNKNOWN, isSecretWrapper } from "./wire";
