import { SUCCESS_CODE, TRACE_ID_PATTERN, type ApiOperation } from "../api/contract";
import { MAX_QUOTED_CHARS, cleanServiceText, redact } from "../text";
import {
  WebhookApiError,
  WebhookAuthError,
  WebhookInvalidResponseError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  type WebhookErrorDetails,
} from "./errors";
import { describeIssue, schemas, type ResponseShape } from "./schemas";
import type { RawResponse } from "./transport";

/** What a response is interpreted with: the token (to redact) and where it came from (to name). */
export interface InterpretContext {
  token: string;
  tokenSource: string;
  /**
   * Other secrets redacted from the service's text, like the token: the signing secrets of the
   * records the client has seen in the same operation (a create's listings), since a service may
   * quote such a record in its refusal. Read when the response is interpreted, so a list that
   * grows during the operation covers every listing made before the answer came.
   */
  secrets?: readonly string[] | undefined;
  /**
   * Values the caller holds secret (see `CallOptions.redact`): redacted like the token, whatever
   * their length, since the caller marked them.
   */
  redact?: readonly string[] | undefined;
  /**
   * The signing secrets a listing operation's earlier pages returned (`ListedSecrets` in scrub.ts):
   * redacted like `secrets`, and a trace id that shows one is absent.
   */
  listed?: { readonly values: readonly string[]; inTraceId(traceId: string): boolean } | undefined;
}

/** Shortest extra secret (see {@link InterpretContext.secrets}) redacted by value. */
export const MIN_EXTRA_SECRET_CHARS = 8;

/**
 * Turns one raw response into the parsed success envelope, or throws the typed error that
 * {@link errorFromResponse} picks. A documented success needs one check (`expected.match`); the schema
 * runs only for an answer that does not match, to decide it and name its problem.
 */
export function interpretResponse<T extends { trace_id: string }>(
  operation: ApiOperation,
  raw: RawResponse,
  expected: ResponseShape<T>,
  context: InterpretContext,
): T {
  let json: unknown;
  let parsed = false;
  // A body past the structural bounds is never parsed: it counts as a body that is not JSON, and
  // the status decides the rest (a 4xx stays a refusal).
  const shape = jsonShapeProblem(raw.text);
  if (raw.text.trim() !== "" && shape === undefined) {
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
    const matched = expected.match(json);
    if (matched !== undefined) return withDocumentedTraceId(matched, context);
    const result = expected.schema().safeParse(json);
    if (result.success) return withDocumentedTraceId(result.data, context);
    const { field, problem } = describeIssue(result.error);
    const error = new WebhookInvalidResponseError(
      `${operation} returned a response whose ${field} ${problem}`,
      {
        ...detailsOf(operation, raw, json, context),
        field,
      },
    );
    throw fromResponse(error, json);
  }
  throw fromResponse(
    errorFromResponse(operation, raw, parsed ? json : undefined, parsed, context, shape),
    json,
  );
}

/** Errors made from the service's own envelope (see {@link answeredByService}). */
const SERVICE_ANSWERS = new WeakSet<WebhookApiError>();

/**
 * Whether the error was made from the service's own envelope: a JSON object whose top-level `code`
 * is readable and not blank and whose top-level `trace_id` has the documented form. A gateway's or
 * proxy's own JSON is not known to carry both; a trace id only in a header (which a gateway may
 * add) or nested in the body does not count.
 */
export function answeredByService(error: WebhookApiError): boolean {
  return SERVICE_ANSWERS.has(error);
}

/** The error made from `json`, remembered as the service's own answer when it is its envelope. */
function fromResponse<E extends WebhookApiError>(error: E, json: unknown): E {
  if (isServiceEnvelope(json)) SERVICE_ANSWERS.add(error);
  return error;
}

function isServiceEnvelope(json: unknown): boolean {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return false;
  const { code, trace_id } = json as { code?: unknown; trace_id?: unknown };
  const readable =
    (typeof code === "string" && code.trim() !== "" && code.trim() !== "null") ||
    (typeof code === "number" && Number.isFinite(code));
  return readable && documentedTraceId(trace_id) !== undefined;
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
  shapeProblem?: string,
): WebhookApiError {
  const details = detailsOf(operation, raw, json, context);
  const said = describeServiceAnswer(details, context.token);
  const httpError = raw.status < 200 || raw.status >= 300;
  if (!httpError) {
    if (!parsed) {
      const body =
        raw.text.trim() === ""
          ? "an empty body"
          : shapeProblem !== undefined
            ? `a body that ${shapeProblem}`
            : "a body that is not JSON";
      return new WebhookInvalidResponseError(
        `${operation} returned HTTP ${raw.status} with ${body}`,
        details,
      );
    }
    if (details.serviceCode === undefined) {
      return new WebhookInvalidResponseError(
        `${operation} returned a body without the envelope's code field`,
        { ...details, field: "code" },
      );
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
  if (family.startsWith("5"))
    return new WebhookServerError(`${operation} failed on the service${said}`, details);
  return new WebhookRequestRefusedError(`${operation} was refused by the service${said}`, details);
}

/**
 * Bounds on a body's JSON structure, checked before parsing: the byte cap alone does not bound
 * memory, since a few MB of `{}`, of nested arrays, or of one object with a million short keys
 * parse into hundreds of MB. A page of records is a few containers per record, a few levels deep,
 * and about 11 values per record (the record in its array, and its ten fields): at the largest
 * page size (10,000 records) 110,006 values, so the value bound leaves room for undocumented
 * fields and is far above any realistic page, while 8 MB of tiny values stays under it.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_CONTAINERS = 200_000;
/** Most values (object members plus array elements, counted over the whole body). */
export const MAX_JSON_VALUES = 200_000;

const tooManyValues = `holds more than ${MAX_JSON_VALUES} values (object members and array elements), far more than any page of records`;

/** Why the text's JSON structure is past the bounds, or undefined (also for text that is not JSON). */
export function jsonShapeProblem(text: string): string | undefined {
  let depth = 0;
  let containers = 0;
  let values = 0;
  // Right after `{` or `[`: the next significant character starts the first value, unless it closes.
  let opened = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (opened) {
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      opened = false;
      if (c !== 0x7d && c !== 0x5d && ++values > MAX_JSON_VALUES) return tooManyValues;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x2c) {
      // A comma outside strings starts another member or element.
      if (++values > MAX_JSON_VALUES) return tooManyValues;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
      if (++containers > MAX_JSON_CONTAINERS)
        return `holds more than ${MAX_JSON_CONTAINERS} objects and arrays`;
      opened = true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

function isSuccessCode(json: unknown): boolean {
  if (typeof json !== "object" || json === null) return false;
  const code = (json as { code?: unknown }).code;
  return code === SUCCESS_CODE || code === Number(SUCCESS_CODE);
}

/** What the service said, cleaned: the token redacted, control characters removed, lengths capped. */
function detailsOf(
  operation: ApiOperation,
  raw: RawResponse,
  json: unknown,
  context: InterpretContext,
): WebhookErrorDetails {
  const loose = json === undefined ? undefined : schemas().looseEnvelope.safeParse(json);
  const envelope = loose?.success ? loose.data : undefined;
  // Extra secrets of fewer than MIN_EXTRA_SECRET_CHARS characters are left to the sign_secret field
  // pattern: redacting them by value would cut ordinary text apart ("409" around a secret "0").
  const secrets = [
    context.token,
    ...(context.redact ?? []),
    ...(context.secrets ?? []).filter((secret) => secret.length >= MIN_EXTRA_SECRET_CHARS),
    ...(context.listed?.values ?? []),
  ];
  const rawMsg =
    typeof envelope?.msg === "string"
      ? envelope.msg
      : typeof envelope?.message === "string"
        ? envelope.message
        : undefined;
  // Each field on its own: an unreadable code does not discard the message or the trace id.
  const rawCode =
    typeof envelope?.code === "string" ||
    (typeof envelope?.code === "number" && Number.isFinite(envelope.code))
      ? String(envelope.code)
      : undefined;
  // The trace id is only taken in its documented form (32 hex characters), from the envelope, the
  // x-trace-id header, or what survives of a cut-short body; anything else is reported as absent.
  const traceId =
    documentedTraceId(envelope?.trace_id) ??
    documentedTraceId(headerValue(raw.headers, "x-trace-id")) ??
    /"trace_id"\s*:\s*"([0-9a-fA-F]{32})"/.exec(raw.text.slice(0, 4096))?.[1];
  return {
    operation,
    status: raw.status,
    // One that holds the token or a secret is no trace id: reported as absent.
    traceId: traceId === undefined || redact(traceId, secrets) !== traceId ? undefined : traceId,
    serviceCode: rawCode === undefined ? undefined : cleanServiceText(rawCode, secrets, 64),
    msg: rawMsg === undefined ? undefined : cleanServiceText(rawMsg, secrets, MAX_QUOTED_CHARS),
  };
}

/**
 * The envelope with its trace id kept only in the documented form, and only when it does not hold
 * the token or a secret the caller marked or the operation saw (a token or signing secret of 32 hex
 * characters has the trace id's form); else empty.
 */
function withDocumentedTraceId<T extends { trace_id: string }>(envelope: T, context: InterpretContext): T {
  const traceId = documentedTraceId(envelope.trace_id);
  const secrets = [context.token, ...(context.redact ?? []), ...(context.secrets ?? [])];
  envelope.trace_id =
    traceId === undefined ||
    redact(traceId, secrets) !== traceId ||
    context.listed?.inTraceId(traceId) === true
      ? ""
      : traceId;
  return envelope;
}

function documentedTraceId(value: unknown): string | undefined {
  return typeof value === "string" && TRACE_ID_PATTERN.test(value) ? value : undefined;
}

function describeServiceAnswer(details: WebhookErrorDetails, token: string): string {
  const parts = [`HTTP ${details.status}`];
  if (details.serviceCode !== undefined) parts.push(`code ${details.serviceCode}`);
  // Redacted again once quoted: JSON's escaping can rebuild a token that holds a quote or a backslash.
  if (details.msg) parts.push(redact(JSON.stringify(details.msg), [token]));
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
