/**
 * pulumi-webhook-endpoints: the `WebhookEndpoint` Pulumi dynamic resource and the typed
 * `WebhooksClient` it is built on. The emulator lives at `pulumi-webhook-endpoints/emulator`, the
 * native provider's Node.js SDK at `pulumi-webhook-endpoints/native`.
 */
// The client's public names, one by one: its index also serves the rest of the package.
export {
  CREATE_PATH,
  LIST_PATH,
  WebhookAbortError,
  WebhookApiError,
  WebhookAuthError,
  WebhookConfigError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  WebhookTimeoutError,
  WebhooksClient,
  type CallOptions,
  type Continuation,
  type CreateOptions,
  type CreateParams,
  type CreateResult,
  type ListFilter,
  type ListingEnd,
  type ListPage,
  type ListParams,
  type ScanResult,
  type WebhookApiErrorCode,
  type WebhookEndpointRecord,
  type WebhookErrorCode,
  type WebhookErrorDetails,
  type WebhooksClientOptions,
} from "./client";
export * from "./dynamic";
