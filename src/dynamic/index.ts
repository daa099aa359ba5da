export { WebhookEndpoint, type WebhookEndpointArgs, type WebhookConnectionArgs } from "./webhook-endpoint";
export type { WebhookEndpointOutputs } from "../core/state";
