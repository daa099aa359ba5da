import { randomBytes } from "node:crypto";

export const LIST_PATH = "/open-api/v1/webhooks";
export const CREATE_PATH = "/open-api/v1/webhooks/create";

/** A refusal of the API; rendered as an error envelope in the configured error style. */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    /** HTTP status under `errorStyle: "http"`. */
    readonly status: number,
    /** Envelope `code`; always a string, like the success code "200". */
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

// Codes are the HTTP status followed by a two-digit detail, the pattern the document's examples
// suggest ("40001", "40101", ...); "40009" is the one the brief fixes for duplicate names.
export const apiErrors = {
  badRequest: (msg: string) => new ApiError(400, "40001", msg),
  unauthorized: () => new ApiError(401, "40101", "invalid or missing access token"),
  notFound: () => new ApiError(404, "40401", "not found"),
  methodNotAllowed: () => new ApiError(405, "40501", "method not allowed", { allow: "POST" }),
  nameExists: () => new ApiError(409, "40009", "webhook name already exists"),
  payloadTooLarge: (limit: number) => new ApiError(413, "41301", `request body exceeds ${limit} bytes`),
  unsupportedMediaType: () => new ApiError(415, "41501", "Content-Type must be application/json"),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, "42901", "rate limit exceeded", { "retry-after": String(retryAfterSeconds) }),
  internal: () => new ApiError(500, "50001", "internal server error"),
  unavailable: () => new ApiError(503, "50301", "service unavailable"),
};

/** A fresh 32-lowercase-hex trace id, as the service returns. */
export function newTraceId(): string {
  return randomBytes(16).toString("hex");
}

export interface Envelope {
  code: string;
  msg: string;
  trace_id: string;
  data: unknown;
}

export function successEnvelope(msg: "SUCCESS" | "Success", traceId: string, data: unknown): Envelope {
  return { code: "200", msg, trace_id: traceId, data };
}

export function errorEnvelope(error: ApiError, traceId: string): Envelope {
  return { code: error.code, msg: error.message, trace_id: traceId, data: null };
}
