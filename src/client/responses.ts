import type { z } from "zod";
import { SUCCESS_CODE, TRACE_ID_PATTERN, type ApiOperation } from "../api/contract";
import {
  WebhookApiError,
  WebhookAuthError,
  WebhookInvalidResponseError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  type WebhookErrorDetails,
} from "./errors";
import { MAX_QUOTED_CHARS, redact, showable } from "./redact";
import { describeIssue, looseEnvelopeSchema } from "./schemas";
import type { RawResponse } from "./transport";

/** What a response is interpreted with: the token (to redact) and where it came from (to name). */
export interface InterpretContext {
  token: string;
  tokenSource: string;
}

/**
 * Turns one raw response into the parsed success envelope, or throws the typed error that
 * {@link errorFromResponse} picks. A documented success needs one schema pass.
 */
export function interpretResponse<S extends z.ZodType>(
  operation: ApiOperation,
  raw: RawResponse,
  schema: S,
  context: InterpretContext,
): z.infer<S> & { trace_id: string } {
  let json: unknown;
  let parsed = false;
  if (raw.text.trim() !== "") {
    try {
      json = JSON.parse(raw.text);
      parsed = true;
    } catch {
      // A body that is not JSON (or nests past what the parser allows) is an unusable response.
      parsed = false;
    }
  }
  const success = parsed && raw.status >= 200 && raw.status < 300 && isSuccessCode(json);
  if (success) {
    const result = schema.safeParse(json);
    if (result.success) {
      const data = result.data as z.infer<S> & { trace_id: string };
      data.trace_id = documentedTraceId(data.trace_id) ?? "";
      return data;
    }
    const { field, problem } = describeIssue(result.error);
    throw new WebhookInvalidResponseError(`${operation} returned a response whose ${field} ${problem}`, {
      ...detailsOf(operation, raw, json, context),
      field,
    });
  }
  throw errorFromResponse(operation, raw, parsed ? json : undefined, parsed, context);
}

/**
 * The one factory from an unsuccessful response to the error class: the HTTP status when it is
 * not 2xx, else the envelope's code family (a service may report errors inside HTTP 200).
 */
export function errorFromResponse(
  operation: ApiOperation,
  raw: RawResponse,
  json: unknown,
  parsed: boolean,
  context: InterpretContext,
): WebhookApiError {
  const details = detailsOf(operation, raw, json, context);
  const said = describeServiceAnswer(details);
  const httpError = raw.status < 200 || raw.status >= 300;
  if (!httpError) {
    if (!parsed) {
      return new WebhookInvalidResponseError(
        `${operation} returned HTTP ${raw.status} with ${raw.text.trim() === "" ? "an empty body" : "a body that is not JSON"}`,
        details,
      );
    }
    if (details.serviceCode === undefined) {
      return new WebhookInvalidResponseError(`${operation} returned a body without the envelope's code field`, { ...details, field: "code" });
    }
  }
  if (httpError && raw.status >= 300 && raw.status < 400) {
    return new WebhookRequestRefusedError(
      `${operation} was answered with a redirect (HTTP ${raw.status}); the token is only ever sent to the configured base URL, so it was not followed: set the base URL to the service's final address`,
      details,
    );
  }
  const family = httpError ? String(raw.status) : (details.serviceCode ?? "").slice(0, 3);
  if (family === "401" || family === "403") {
    return new WebhookAuthError(
      `${operation} was refused: the access token was not accepted${said}. The token came from ${context.tokenSource}; replace it there with a valid open-API token`,
      details,
    );
  }
  if (family === "429") {
    return new WebhookRateLimitError(`${operation} was rate limited by the service${said}`, {
      ...details,
      retryAfterMs: parseRetryAfter(headerValue(raw.headers, "retry-after")),
    });
  }
  if (family.startsWith("5")) return new WebhookServerError(`${operation} failed on the service${said}`, details);
  return new WebhookRequestRefusedError(`${operation} was refused by the service${said}`, details);
}

function isSuccessCode(json: unknown): boolean {
  if (typeof json !== "object" || json === null) return false;
  const code = (json as { code?: unknown }).code;
  return code === SUCCESS_CODE || code === Number(SUCCESS_CODE);
}

/** What the service said, cleaned: the token redacted, control characters removed, lengths capped. */
function detailsOf(operation: ApiOperation, raw: RawResponse, json: unknown, context: InterpretContext): WebhookErrorDetails {
  const loose = json === undefined ? undefined : looseEnvelopeSchema.safeParse(json);
  const envelope = loose?.success ? loose.data : undefined;
  const secrets = [context.token];
  const rawMsg = typeof envelope?.msg === "string" ? envelope.msg : typeof envelope?.message === "string" ? envelope.message : undefined;
  const rawCode = envelope?.code === undefined ? undefined : String(envelope.code);
  // The trace id is only taken in its documented form (32 hex characters), from the envelope, the
  // x-trace-id header, or what survives of a cut-short body; anything else is reported as absent.
  const traceId =
    documentedTraceId(envelope?.trace_id) ??
    documentedTraceId(headerValue(raw.headers, "x-trace-id")) ??
    /"trace_id"\s*:\s*"([0-9a-fA-F]{32})"/.exec(raw.text.slice(0, 4096))?.[1];
  return {
    operation,
    status: raw.status,
    traceId: traceId === undefined ? undefined : redact(traceId, secrets),
    serviceCode: rawCode === undefined ? undefined : showable(redact(rawCode, secrets), 64),
    msg: rawMsg === undefined ? undefined : showable(redact(rawMsg, secrets), MAX_QUOTED_CHARS),
  };
}

function documentedTraceId(value: unknown): string | undefined {
  return typeof value === "string" && TRACE_ID_PATTERN.test(value) ? value : undefined;
}

function describeServiceAnswer(details: WebhookErrorDetails): string {
  const parts = [`HTTP ${details.status}`];
  if (details.serviceCode !== undefined) parts.push(`code ${details.serviceCode}`);
  if (details.msg) parts.push(JSON.stringify(details.msg));
  return ` (${parts.join(", ")})`;
}

function headerValue(headers: RawResponse["headers"], name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first !== "" ? first : undefined;
}

/** `Retry-After` is either delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}(\.\d{1,6})?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (trimmed.length > 64) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
