// What goes over the wire besides the records: paths (from the contract), error codes, envelopes,
// trace ids, the one JSON body parser and the token check.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { SUCCESS_CODE, SUCCESS_MSG } from "../api/contract";
import type { ErrorStyle } from "./options";

export { CREATE_PATH, LIST_PATH } from "../api/contract";

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
  foreignHost: () =>
    new ApiError(
      403,
      "40301",
      "this emulator listens on loopback and answers only requests whose Host is localhost, 127.0.0.1 or [::1] (a page served from another name must not reach it: DNS rebinding)",
    ),
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

/** A response decided by the API layer, before any post-processing fault alters how it is sent. */
export interface Outcome {
  status: number;
  payload: Envelope;
  headers: Readonly<Record<string, string>>;
}

export function successOutcome(operation: keyof typeof SUCCESS_MSG, traceId: string, data: unknown): Outcome {
  return {
    status: 200,
    payload: { code: SUCCESS_CODE, msg: SUCCESS_MSG[operation], trace_id: traceId, data },
    headers: {},
  };
}

export function errorEnvelope(error: ApiError, traceId: string): Envelope {
  return { code: error.code, msg: error.message, trace_id: traceId, data: null };
}

/** The error as the configured error style sends it: its HTTP status, or HTTP 200 with its code. */
export function errorOutcome(error: ApiError, traceId: string, style: ErrorStyle): Outcome {
  return {
    status: style === "envelope-200" ? 200 : error.status,
    payload: errorEnvelope(error, traceId),
    headers: error.headers,
  };
}

/** A request body read as JSON, once; the views below give each caller what it needs of it. */
export type JsonBody = { kind: "empty" } | { kind: "invalid" } | { kind: "json"; value: unknown };

/** The one JSON body parser of the emulator, for API and admin requests alike. */
export function parseJsonBody(bytes: Buffer): JsonBody {
  if (bytes.length === 0) return { kind: "empty" };
  try {
    return { kind: "json", value: JSON.parse(bytes.toString("utf8")) as unknown };
  } catch {
    return { kind: "invalid" };
  }
}

/** The body as the request log keeps it: the parsed value, or null when absent or not JSON. */
export function loggedBody(body: JsonBody): unknown {
  return body.kind === "json" ? body.value : null;
}

/**
 * The body as a JSON object, else a 400. An empty body is invalid JSON unless `empty` says what it
 * means (admin routes read it as `{}`).
 */
export function bodyObject(body: JsonBody, empty?: Record<string, unknown>): Record<string, unknown> {
  if (body.kind === "empty" && empty !== undefined) return empty;
  if (body.kind !== "json") throw apiErrors.badRequest("request body must be valid JSON");
  return requireObject(body.value, "request body");
}

export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw apiErrors.badRequest(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

export function isJsonContentType(header: string | undefined): boolean {
  return header?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

/**
 * True when `Authorization` carries the token, raw or after `Bearer `. Compared in constant time:
 * the emulator may listen where others can time it.
 */
export function presentsToken(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const bearer = /^bearer\s+(.*)$/i.exec(header.trim())?.[1];
  return sameSecret(header, token) || (bearer !== undefined && sameSecret(bearer, token));
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * A Host header naming this machine's loopback (with any port): what a request to an emulator bound
 * to loopback carries, unless a page of another origin reached it by DNS rebinding.
 */
export const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

/**
 * Whether a request names exactly one Host, and a loopback one (two Host headers are refused, whichever
 * comes first).
 */
export function namesLoopbackHost(req: {
  headers: { host?: string | undefined };
  rawHeaders: readonly string[];
}): boolean {
  const hosts = req.rawHeaders.filter(
    (_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "host",
  ).length;
  return hosts === 1 && LOOPBACK_HOST.test(req.headers.host ?? "");
}
