export { WebhooksClient } from "./client";
export {
  WebhookAbortError,
  WebhookApiError,
  WebhookAuthError,
  WebhookConfigError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  WebhookTimeoutError,
  type WebhookErrorCode,
  type WebhookErrorDetails,
} from "./errors";
export { LIST_PATH, CREATE_PATH } from "../api/contract";
export type * from "./types";
