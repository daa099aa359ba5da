export { WebhooksClient } from "./client";
export {
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
  type WebhookApiErrorCode,
  type WebhookErrorCode,
  type WebhookErrorDetails,
} from "./errors";
export { LIST_PATH, CREATE_PATH } from "../api/contract";
export type * from "./types";
