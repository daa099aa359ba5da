import { MAX_MESSAGE_CHARS, showable } from "../text";

/**
 * The error family of {@link WebhooksClient}, in two branches under {@link WebhookError}:
 * - {@link WebhookApiError} and its subclasses: a request to the service failed, was refused or
 *   answered with something that cannot be trusted. They carry what the service said when it said
 *   anything: `serviceCode`, `msg`, `traceId` and the HTTP `status`.
 * - {@link WebhookConfigError}: the client or the provider is configured wrongly (a bad base URL, an
 *   empty token, an option out of range, a setting missing). Found before any request is sent: it
 *   is a local mistake, not the service's answer.
 * Every error has a stable string `code` (ours, safe to branch on). No error ever carries the
 * access token: messages are written from scratch, request headers are never attached, and an
 * underlying failure is kept as a sanitized `cause`.
 */

/** The `code` of a {@link WebhookApiError}: one per subclass. */
export type WebhookApiErrorCode =
  | "WEBHOOK_API_ERROR"
  | "WEBHOOK_REQUEST_REFUSED"
  | "WEBHOOK_AUTH_FAILED"
  | "WEBHOOK_RATE_LIMITED"
  | "WEBHOOK_SERVER_ERROR"
  | "WEBHOOK_INVALID_RESPONSE"
  | "WEBHOOK_CONNECTION_FAILED"
  | "WEBHOOK_TIMEOUT"
  | "WEBHOOK_ABORTED"
  | "WEBHOOK_CREATE_UNCERTAIN"
  | "WEBHOOK_ENDPOINT_EXISTS"
  | "WEBHOOK_PAGING_FAILED";

/** The `code` of any {@link WebhookError}: the API errors' and the configuration error's. */
export type WebhookErrorCode = WebhookApiErrorCode | "WEBHOOK_CONFIG_INVALID";

/**
 * The base of every error the client raises on purpose: catch it for any of them, or catch
 * {@link WebhookApiError} for the service's failures and {@link WebhookConfigError} for
 * misconfiguration.
 */
export abstract class WebhookError extends Error {
  override name = "WebhookError";
  abstract readonly code: WebhookErrorCode;

  protected constructor(message: string, cause?: unknown) {
    // Bounded and free of control characters whatever was quoted in it (a service's text, a
    // setting's value).
    super(showable(message, MAX_MESSAGE_CHARS), cause === undefined ? undefined : { cause });
  }
}

export interface WebhookErrorDetails {
  /** The service's own result code from the envelope, when a parsable envelope came back. */
  serviceCode?: string | undefined;
  /** The service's own message from the envelope. */
  msg?: string | undefined;
  /** The envelope's `trace_id` (or the `x-trace-id` header) for the failing request. */
  traceId?: string | undefined;
  /** HTTP status of the response, when there was one. */
  status?: number | undefined;
  /** Which operation failed. */
  operation?: "list" | "create" | undefined;
  /** The underlying failure, sanitized: same name, code and message, minus anything secret. */
  cause?: unknown;
}

/** A request to the service failed, was refused, or was answered with something that cannot be trusted. */
export class WebhookApiError extends WebhookError {
  override name = "WebhookApiError";
  readonly code: WebhookApiErrorCode = "WEBHOOK_API_ERROR";
  readonly serviceCode: string | undefined;
  readonly msg: string | undefined;
  readonly traceId: string | undefined;
  readonly status: number | undefined;
  readonly operation: "list" | "create" | undefined;

  constructor(message: string, details: WebhookErrorDetails = {}) {
    super(withTrace(message, details.traceId), details.cause);
    this.serviceCode = details.serviceCode;
    this.msg = details.msg;
    this.traceId = details.traceId;
    this.status = details.status;
    this.operation = details.operation;
  }
}

function withTrace(message: string, traceId: string | undefined): string {
  return traceId ? `${message} (trace_id ${traceId})` : message;
}

/** The service understood the request and refused it (validation, uniqueness, unknown code). */
export class WebhookRequestRefusedError extends WebhookApiError {
  override name = "WebhookRequestRefusedError";
  override readonly code = "WEBHOOK_REQUEST_REFUSED" as const;
}

/** The service refused the access token (401/403 or an equivalent envelope code). */
export class WebhookAuthError extends WebhookApiError {
  override name = "WebhookAuthError";
  override readonly code = "WEBHOOK_AUTH_FAILED" as const;
}

/** The service asked us to slow down (429 or an equivalent envelope code). */
export class WebhookRateLimitError extends WebhookApiError {
  override name = "WebhookRateLimitError";
  override readonly code = "WEBHOOK_RATE_LIMITED" as const;
  /** What `Retry-After` asked for, in milliseconds, when the response carried it. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, details: WebhookErrorDetails & { retryAfterMs?: number | undefined } = {}) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** The service failed (5xx or an equivalent envelope code). */
export class WebhookServerError extends WebhookApiError {
  override name = "WebhookServerError";
  override readonly code = "WEBHOOK_SERVER_ERROR" as const;
}

/** The response could not be trusted: not JSON, cut short, or not the documented shape. */
export class WebhookInvalidResponseError extends WebhookApiError {
  override name = "WebhookInvalidResponseError";
  override readonly code = "WEBHOOK_INVALID_RESPONSE" as const;
  /** Path of the first field that failed the schema, e.g. `data.data[2].webhook_id`. */
  readonly field: string | undefined;
  constructor(message: string, details: WebhookErrorDetails & { field?: string | undefined } = {}) {
    super(message, details);
    this.field = details.field;
  }
}

/** The connection failed. `requestSent` says whether the request may have reached the service. */
export class WebhookConnectionError extends WebhookApiError {
  override name = "WebhookConnectionError";
  override readonly code: "WEBHOOK_CONNECTION_FAILED" | "WEBHOOK_TIMEOUT" = "WEBHOOK_CONNECTION_FAILED";
  readonly requestSent: boolean;
  constructor(message: string, details: WebhookErrorDetails & { requestSent: boolean }) {
    super(message, details);
    this.requestSent = details.requestSent;
  }
}

/** No complete response within the time allowed. */
export class WebhookTimeoutError extends WebhookConnectionError {
  override name = "WebhookTimeoutError";
  override readonly code = "WEBHOOK_TIMEOUT" as const;
}

/** The caller's `AbortSignal` fired. */
export class WebhookAbortError extends WebhookApiError {
  override name = "WebhookAbortError";
  override readonly code = "WEBHOOK_ABORTED" as const;
}

/**
 * A create's outcome could not be settled: the endpoint may exist on the service. Nothing was
 * retried, because a blind retry could make a duplicate that can never be deleted.
 */
export class WebhookCreateUncertainError extends WebhookApiError {
  override name = "WebhookCreateUncertainError";
  override readonly code = "WEBHOOK_CREATE_UNCERTAIN" as const;
  /** IDs of endpoints that match the requested name and URL and may be the one just created. */
  readonly candidateIds: readonly number[];
  constructor(message: string, details: WebhookErrorDetails & { candidateIds?: readonly number[] } = {}) {
    super(message, details);
    this.candidateIds = details.candidateIds ?? [];
  }
}

/**
 * An endpoint with the requested name and URL already exists, so a create was not sent: a second
 * one could never be deleted. `existingIds` are the endpoints found. `answeredBy`, when set: the
 * create was sent and the service answered with endpoint `existingIds[0]`, made by this creator, not
 * our principal (a service that keeps names unique answers with the endpoint it has); not taken.
 */
export class WebhookEndpointExistsError extends WebhookApiError {
  override name = "WebhookEndpointExistsError";
  override readonly code = "WEBHOOK_ENDPOINT_EXISTS" as const;
  readonly existingIds: readonly number[];
  readonly answeredBy: number | undefined;
  constructor(
    message: string,
    details: WebhookErrorDetails & { existingIds: readonly number[]; answeredBy?: number },
  ) {
    super(message, details);
    this.existingIds = details.existingIds;
    this.answeredBy = details.answeredBy;
  }
}

/**
 * Paging could not go on safely: a repeated cursor, a page that repeats itself, or a cap (pages,
 * records or bytes in one listing). A page larger than the `limit` asked for is a
 * {@link WebhookInvalidResponseError}.
 */
export class WebhookPagingError extends WebhookApiError {
  override name = "WebhookPagingError";
  override readonly code = "WEBHOOK_PAGING_FAILED" as const;
}

/**
 * The client or the provider is configured wrongly: a bad base URL, an empty token, an option out of
 * range, a connection setting missing. Raised before any request is sent, so it is not a
 * {@link WebhookApiError}; its message names the setting and what to do, never the token.
 */
export class WebhookConfigError extends WebhookError {
  override name = "WebhookConfigError";
  override readonly code = "WEBHOOK_CONFIG_INVALID" as const;

  constructor(message: string) {
    super(message);
  }
}
