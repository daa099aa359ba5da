/**
 * The client's exports, for the package's entry (src/index.ts names the public ones) and for the
 * rest of the package, which imports the client from here only.
 */
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

// For the core, the faces and the CLI; not exported from the package's entry.
export { CLIENT_DEFAULTS, baseUrlProblem } from "./options";
export { oppositeOrder } from "./paging";
export {
  maySameEndpoint,
  nameProblems,
  sameEndpoint,
  sameName,
  sameUrl,
  urlProblems,
  type EndpointAddress,
} from "./rules";
