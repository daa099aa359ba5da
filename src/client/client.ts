import type { z } from "zod";
import {
  WebhookApiError,
  WebhookAuthError,
  WebhookConfigError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  redact,
  type WebhookErrorDetails,
} from "./errors";
import {
  createEnvelopeSchema,
  describeIssue,
  listEnvelopeSchema,
  looseEnvelopeSchema,
  type ApiRecord,
} from "./schemas";
import { Transport, type RawResponse } from "./transport";
import type {
  CallOptions,
  Continuation,
  CreateParams,
  CreateResult,
  ListPage,
  ListParams,
  ScanResult,
  WebhookEndpointRecord,
  WebhooksClientOptions,
} from "./types";

export const LIST_PATH = "/open-api/v1/webhooks";
export const CREATE_PATH = "/open-api/v1/webhooks/create";

const DEFAULTS = {
  timeoutMs: 10_000,
  maxRetries: 3,
  maxRetryAfterMs: 30_000,
  retryBaseDelayMs: 250,
  pageSize: 100,
  maxPages: 1000,
  ascending: "true",
  createSettleMs: 3000,
  clockSkewMs: 60_000,
} as const;
const MAX_BACKOFF_MS = 8000;
const MAX_MSG_CHARS = 300;

type Operation = "list" | "create";
type Settings = Required<Omit<WebhooksClientOptions, "dispatcher" | "tokenSource" | "baseUrl" | "accessToken">>;

/**
 * A typed client for the webhook endpoint API (list and create). It never retries a create
 * blindly, never trusts the server's filters to be exact, and never puts the token anywhere
 * but the `Authorization` header.
 */
export class WebhooksClient {
  readonly baseUrl: string;
  readonly #settings: Settings;
  readonly #token: string;
  readonly #tokenSource: string;
  readonly #transport: Transport;
  readonly #inflightLists = new Map<string, Promise<ListPage>>();

  constructor(options: WebhooksClientOptions) {
    const token = typeof options.accessToken === "string" ? options.accessToken : "";
    if (token.trim() === "") {
      throw new WebhookConfigError("accessToken is empty: pass the service's open-API token");
    }
    if (/[\r\n\0]/.test(token)) {
      throw new WebhookConfigError("accessToken contains a line break or NUL character: copy the token again without them");
    }
    const origin = parseBaseUrl(options.baseUrl, options.allowInsecureHttp === true);
    this.baseUrl = origin.href.replace(/\/$/, "");
    this.#token = token;
    this.#tokenSource = options.tokenSource ?? "the client's accessToken option";
    this.#settings = {
      timeoutMs: positive(options.timeoutMs, DEFAULTS.timeoutMs, "timeoutMs"),
      maxRetries: nonNegative(options.maxRetries, DEFAULTS.maxRetries, "maxRetries"),
      maxRetryAfterMs: nonNegative(options.maxRetryAfterMs, DEFAULTS.maxRetryAfterMs, "maxRetryAfterMs"),
      retryBaseDelayMs: nonNegative(options.retryBaseDelayMs, DEFAULTS.retryBaseDelayMs, "retryBaseDelayMs"),
      pageSize: positive(options.pageSize, DEFAULTS.pageSize, "pageSize"),
      maxPages: positive(options.maxPages, DEFAULTS.maxPages, "maxPages"),
      ascending: options.ascending ?? DEFAULTS.ascending,
      createSettleMs: nonNegative(options.createSettleMs, DEFAULTS.createSettleMs, "createSettleMs"),
      clockSkewMs: nonNegative(options.clockSkewMs, DEFAULTS.clockSkewMs, "clockSkewMs"),
      allowInsecureHttp: options.allowInsecureHttp === true,
    };
    this.#transport = new Transport(origin, token, this.#settings.timeoutMs, options.dispatcher);
  }

  /**
   * Lists one page. Retried on 429 (honouring `Retry-After`), 5xx, connection failures and
   * unusable bodies, with jittered exponential backoff, at most `maxRetries` times. Identical
   * calls in flight at the same moment share one request.
   */
  async list(params: ListParams = {}, options: CallOptions = {}): Promise<ListPage> {
    const body = {
      cursor: params.cursor ?? "",
      limit: params.limit ?? this.#settings.pageSize,
      webhook_name: params.webhookName ?? "",
      webhook_url: params.webhookUrl ?? "",
      ascending: params.ascending === undefined ? this.#settings.ascending : String(params.ascending),
    };
    if (options.signal) return this.#listOnce(body, options);
    const key = JSON.stringify([body, options.timeoutMs, options.maxRetries]);
    const inflight = this.#inflightLists.get(key);
    if (inflight) return inflight;
    const promise = this.#listOnce(body, options).finally(() => this.#inflightLists.delete(key));
    this.#inflightLists.set(key, promise);
    return promise;
  }

  /**
   * Every page matching the filter, following whatever continuation the server gives: a cursor
   * field, a has-more flag (the next cursor is then the last record's id), or none (a short or
   * empty page ends the listing). A repeated cursor, a page that only repeats records already
   * seen, or more than `maxPages` pages stops with a `WebhookPagingError`.
   */
  async *listAll(filter: Omit<ListParams, "cursor"> = {}, options: CallOptions = {}): AsyncGenerator<ListPage, void, undefined> {
    const limit = filter.limit ?? this.#settings.pageSize;
    const seenCursors = new Set<string>([""]);
    const seenIds = new Set<number>();
    let cursor = "";
    for (let pageNumber = 1; ; pageNumber++) {
      if (pageNumber > this.#settings.maxPages) {
        throw new WebhookPagingError(
          `listing stopped after ${this.#settings.maxPages} pages (maxPages); narrow the filter or raise maxPages`,
          { operation: "list" },
        );
      }
      const page = await this.list({ ...filter, cursor, limit }, options);
      const fresh = page.records.filter((record) => !seenIds.has(record.webhookId));
      if (page.records.length > 0 && fresh.length === 0) {
        throw new WebhookPagingError(
          `page ${pageNumber} repeated records already listed: the service ignored the paging position, so the listing may be incomplete; narrow the filter`,
          { operation: "list", traceId: page.traceId },
        );
      }
      for (const record of fresh) seenIds.add(record.webhookId);
      yield page;

      const next = nextCursor(page, limit);
      if (next === undefined) return;
      if (seenCursors.has(next)) {
        throw new WebhookPagingError(
          `the service returned a paging cursor it had already returned (page ${pageNumber}); stopping instead of looping`,
          { operation: "list", traceId: page.traceId },
        );
      }
      seenCursors.add(next);
      cursor = next;
    }
  }

  /** Collects every record of `listAll(filter)`, each id once (pages may overlap). */
  async scan(filter: Omit<ListParams, "cursor"> = {}, options: CallOptions = {}): Promise<ScanResult> {
    const byId = new Map<number, WebhookEndpointRecord>();
    let pages = 0;
    let traceId = "";
    for await (const page of this.listAll(filter, options)) {
      pages++;
      traceId = page.traceId;
      for (const record of page.records) if (!byId.has(record.webhookId)) byId.set(record.webhookId, record);
    }
    return { records: [...byId.values()], pages, traceId };
  }

  /**
   * Creates an endpoint. Never retried blindly: a failure that certainly happened before the
   * service acted (connection refused, 429, 503) may be retried; an ambiguous one (timeout or
   * dropped connection after sending, a 5xx that may have been processed, an unusable body) is
   * settled by listing by name and matching exact name and URL among endpoints created since the
   * attempt began. One match is the result; none (after `createSettleMs`) makes a retry safe;
   * anything else is a `WebhookCreateUncertainError` saying the endpoint may exist.
   */
  async create(params: CreateParams, options: CallOptions = {}): Promise<CreateResult> {
    const body = { webhook_name: params.webhookName, webhook_url: params.webhookUrl };
    const maxRetries = options.maxRetries ?? this.#settings.maxRetries;
    const startedAt = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const raw = await this.#transport.post(CREATE_PATH, body, this.#sendOptions("create", options));
        const envelope = this.#interpret("create", raw, createEnvelopeSchema);
        return { record: toRecord(envelope.data), traceId: envelope.trace_id, recovered: false, attempts: attempt + 1 };
      } catch (error) {
        const outcome = classifyCreateFailure(error);
        if (outcome === "refused" || !(error instanceof WebhookApiError)) throw error;
        if (outcome === "ambiguous") {
          const settled = await this.#settleAmbiguousCreate(params, startedAt, error, options);
          if (settled) return { record: settled.record, traceId: settled.traceId, recovered: true, attempts: attempt + 1 };
        }
        // Here the service certainly holds no endpoint from this call, so a retry cannot duplicate.
        if (attempt >= maxRetries) throw error;
        await this.#backoff(attempt, error, options.signal);
      }
    }
  }

  /** Closes the client's keep-alive connections. */
  async close(): Promise<void> {
    await this.#transport.close();
  }

  async #listOnce(body: Record<string, unknown>, options: CallOptions): Promise<ListPage> {
    const maxRetries = options.maxRetries ?? this.#settings.maxRetries;
    for (let attempt = 0; ; attempt++) {
      try {
        const raw = await this.#transport.post(LIST_PATH, body, this.#sendOptions("list", options));
        const envelope = this.#interpret("list", raw, listEnvelopeSchema);
        return {
          records: envelope.data.data.map(toRecord),
          traceId: envelope.trace_id,
          continuation: readContinuation(envelope.data),
        };
      } catch (error) {
        if (!isRetryableList(error) || attempt >= maxRetries) throw error;
        await this.#backoff(attempt, error, options.signal);
      }
    }
  }

  /**
   * Looks for the endpoint an ambiguous create may have made. Returns it when exactly one
   * matches; returns undefined when, after the settle window, none does (a retry is then safe);
   * throws when it cannot tell.
   */
  async #settleAmbiguousCreate(
    params: CreateParams,
    startedAt: number,
    failure: WebhookApiError,
    options: CallOptions,
  ): Promise<{ record: WebhookEndpointRecord; traceId: string } | undefined> {
    const deadline = Date.now() + this.#settings.createSettleMs;
    const notBefore = startedAt - this.#settings.clockSkewMs;
    for (let round = 0; ; round++) {
      let candidates: WebhookEndpointRecord[];
      let traceId: string;
      try {
        // Match before de-duplicating: a listing may repeat an id, and only a matching copy counts.
        const matching = new Map<number, WebhookEndpointRecord>();
        traceId = "";
        for await (const page of this.listAll({ webhookName: params.webhookName }, { ...options, signal: options.signal ?? AbortSignal.timeout(60_000) })) {
          traceId = page.traceId;
          for (const r of page.records) {
            const ours = r.webhookName === params.webhookName && r.webhookUrl === params.webhookUrl && r.createTime >= notBefore;
            if (ours && !matching.has(r.webhookId)) matching.set(r.webhookId, r);
          }
        }
        candidates = [...matching.values()];
      } catch (listError) {
        throw new WebhookCreateUncertainError(
          `create of "${params.webhookName}" got no usable answer (${failure.message}) and listing to check whether it was created also failed (${listError instanceof Error ? listError.message : String(listError)}); the endpoint may exist: list endpoints named "${params.webhookName}" before trying again`,
          { operation: "create", traceId: failure.traceId, status: failure.status, cause: failure },
        );
      }
      if (candidates.length === 1) {
        const record = candidates[0] as WebhookEndpointRecord;
        return { record, traceId };
      }
      if (candidates.length > 1) {
        const ids = candidates.map((r) => r.webhookId);
        throw new WebhookCreateUncertainError(
          `create of "${params.webhookName}" got no usable answer, and ${candidates.length} endpoints with that exact name and URL were created since the attempt began (ids ${ids.join(", ")}); cannot tell which is ours: check them on the service`,
          { operation: "create", traceId: failure.traceId, candidateIds: ids, cause: failure },
        );
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return undefined;
      await sleep(Math.min(remaining, 200 * 2 ** round), options.signal);
    }
  }

  #sendOptions(operation: Operation, options: CallOptions) {
    return { operation, timeoutMs: options.timeoutMs ?? this.#settings.timeoutMs, signal: options.signal };
  }

  async #backoff(attempt: number, error: unknown, signal: AbortSignal | undefined): Promise<void> {
    const exponential = Math.min(MAX_BACKOFF_MS, this.#settings.retryBaseDelayMs * 2 ** attempt);
    let delay = Math.random() * exponential;
    if (error instanceof WebhookRateLimitError && error.retryAfterMs !== undefined) {
      delay = Math.min(error.retryAfterMs, this.#settings.maxRetryAfterMs) + Math.random() * this.#settings.retryBaseDelayMs;
    }
    await sleep(delay, signal);
  }

  /** Turns a raw response into the parsed envelope or the right typed error. */
  #interpret<S extends z.ZodType>(operation: Operation, raw: RawResponse, schema: S): z.infer<S> {
    const headerTrace = headerValue(raw.headers, "x-trace-id");
    let json: unknown;
    let parsed = false;
    if (raw.text.trim() !== "") {
      try {
        json = JSON.parse(raw.text);
        parsed = true;
      } catch {
        parsed = false;
      }
    }
    // The common case first: a documented success needs one schema pass, not two.
    if (parsed && raw.status >= 200 && raw.status < 300 && isSuccessCode(json)) {
      const result = schema.safeParse(json);
      if (result.success) return this.#redactedTrace(result.data as z.infer<S> & { trace_id: string });
    }
    const loose = parsed ? looseEnvelopeSchema.safeParse(json) : undefined;
    const envelope = loose?.success ? loose.data : undefined;
    const traceId =
      (typeof envelope?.trace_id === "string" && envelope.trace_id !== "" ? envelope.trace_id : undefined) ??
      headerTrace ??
      // A cut-short body may still show its trace id.
      /"trace_id"\s*:\s*"([0-9a-fA-F]{32})"/.exec(raw.text)?.[1];
    // Trace id and code come from the server and end up in messages: a server echoing the token
    // back there must not put it into an error.
    const details: WebhookErrorDetails = {
      operation,
      status: raw.status,
      traceId: traceId === undefined ? undefined : redact(traceId, [this.#token]),
      serviceCode: envelope?.code === undefined ? undefined : redact(String(envelope.code), [this.#token]),
      msg: this.#serviceMessage(envelope),
    };
    const said = describeServiceAnswer(details);

    if (raw.status < 200 || raw.status >= 300) {
      throw this.#errorForStatus(operation, raw, details, said);
    }
    if (!parsed) {
      throw new WebhookInvalidResponseError(
        `${operation} returned HTTP ${raw.status} with ${raw.text.trim() === "" ? "an empty body" : "a body that is not JSON"}`,
        details,
      );
    }
    if (envelope === undefined || details.serviceCode === undefined) {
      throw new WebhookInvalidResponseError(`${operation} returned a body without the envelope's code field`, { ...details, field: "code" });
    }
    if (details.serviceCode !== "200") {
      throw this.#errorForServiceCode(operation, details, said);
    }
    const result = schema.safeParse(json);
    if (!result.success) {
      const { field, problem } = describeIssue(result.error);
      throw new WebhookInvalidResponseError(`${operation} returned a response whose ${field} ${problem}`, { ...details, field });
    }
    return this.#redactedTrace(result.data as z.infer<S> & { trace_id: string });
  }

  /** The trace id is returned to the caller and later quoted in errors (paging, create settling). */
  #redactedTrace<T extends { trace_id: string }>(data: T): T {
    data.trace_id = redact(data.trace_id, [this.#token]);
    return data;
  }

  #serviceMessage(envelope: z.infer<typeof looseEnvelopeSchema> | undefined): string | undefined {
    const text = typeof envelope?.msg === "string" ? envelope.msg : typeof envelope?.message === "string" ? envelope.message : undefined;
    if (text === undefined) return undefined;
    const clean = redact(text, [this.#token]);
    return clean.length > MAX_MSG_CHARS ? `${clean.slice(0, MAX_MSG_CHARS)}…` : clean;
  }

  #errorForStatus(operation: Operation, raw: RawResponse, details: WebhookErrorDetails, said: string): WebhookApiError {
    const status = raw.status;
    if (status === 401 || status === 403) return this.#authError(operation, details, said);
    if (status === 429) {
      return new WebhookRateLimitError(`${operation} was rate limited by the service${said}`, {
        ...details,
        retryAfterMs: parseRetryAfter(headerValue(raw.headers, "retry-after")),
      });
    }
    if (status >= 500) return new WebhookServerError(`${operation} failed on the service${said}`, details);
    if (status >= 300 && status < 400) {
      return new WebhookRequestRefusedError(
        `${operation} was answered with a redirect (HTTP ${status}); the token is only ever sent to the configured base URL, so it was not followed: set baseUrl to the service's final address`,
        details,
      );
    }
    return new WebhookRequestRefusedError(`${operation} was refused by the service${said}`, details);
  }

  #errorForServiceCode(operation: Operation, details: WebhookErrorDetails, said: string): WebhookApiError {
    const family = (details.serviceCode ?? "").slice(0, 3);
    if (family === "401" || family === "403") return this.#authError(operation, details, said);
    if (family === "429") return new WebhookRateLimitError(`${operation} was rate limited by the service${said}`, details);
    if (family.startsWith("5")) return new WebhookServerError(`${operation} failed on the service${said}`, details);
    return new WebhookRequestRefusedError(`${operation} was refused by the service${said}`, details);
  }

  #authError(operation: Operation, details: WebhookErrorDetails, said: string): WebhookAuthError {
    return new WebhookAuthError(
      `${operation} was refused: the access token was not accepted${said}. The token came from ${this.#tokenSource}; replace it there with a valid open-API token`,
      details,
    );
  }
}

function isSuccessCode(json: unknown): boolean {
  if (typeof json !== "object" || json === null) return false;
  const code = (json as { code?: unknown }).code;
  return code === "200" || code === 200;
}

function describeServiceAnswer(details: WebhookErrorDetails): string {
  const parts = [`HTTP ${details.status}`];
  if (details.serviceCode !== undefined) parts.push(`code ${details.serviceCode}`);
  if (details.msg) parts.push(`"${details.msg}"`);
  return ` (${parts.join(", ")})`;
}

/**
 * Create failures fall in three groups: refused (the service answered no; retrying is pointless),
 * not processed (connection never carried it, 429, 503: retry is safe) and ambiguous.
 */
function classifyCreateFailure(error: unknown): "refused" | "not-processed" | "ambiguous" {
  if (error instanceof WebhookConnectionError) return error.requestSent ? "ambiguous" : "not-processed";
  if (error instanceof WebhookRateLimitError) return "not-processed";
  if (error instanceof WebhookServerError) {
    return error.status === 503 || (error.serviceCode ?? "").startsWith("503") ? "not-processed" : "ambiguous";
  }
  if (error instanceof WebhookInvalidResponseError) return "ambiguous";
  return "refused";
}

function isRetryableList(error: unknown): boolean {
  return (
    error instanceof WebhookRateLimitError ||
    error instanceof WebhookServerError ||
    error instanceof WebhookInvalidResponseError ||
    error instanceof WebhookConnectionError
  );
}

const CURSOR_FIELDS = ["cursor", "next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next"] as const;
const HAS_MORE_FIELDS = ["has_more", "hasMore", "has_next", "hasNext"] as const;

/** Reads whichever continuation the list payload carries; the document does not say which. */
export function readContinuation(data: Record<string, unknown>): Continuation {
  for (const field of CURSOR_FIELDS) {
    const value = data[field];
    // An empty cursor field is the server saying there is nothing after this page.
    if (value === "") return { hasMore: false, source: `data.${field}` };
    if (typeof value === "string") return { cursor: value, source: `data.${field}` };
    if (typeof value === "number" && Number.isFinite(value)) return { cursor: String(value), source: `data.${field}` };
  }
  for (const field of HAS_MORE_FIELDS) {
    const value = data[field];
    if (typeof value === "boolean") return { hasMore: value, source: `data.${field}` };
  }
  return {};
}

/** The cursor for the page after `page`, or undefined when the listing is complete. */
function nextCursor(page: ListPage, limit: number): string | undefined {
  const last = page.records.at(-1);
  if (last === undefined) return undefined;
  const { cursor, hasMore } = page.continuation;
  if (cursor !== undefined) return cursor;
  if (hasMore === false) return undefined;
  if (hasMore === true) return String(last.webhookId);
  // No continuation at all: a short page is the last; a full one may hide more, so ask past it.
  return page.records.length < limit ? undefined : String(last.webhookId);
}

export function toRecord(api: ApiRecord): WebhookEndpointRecord {
  return {
    webhookId: api.webhook_id,
    webhookName: api.webhook_name,
    webhookUrl: api.webhook_url,
    signSecret: api.sign_secret,
    creatorId: api.creator_id,
    creatorName: api.creator_name,
    createTime: api.create_time,
    operatorId: api.operator_id,
    operatorName: api.operator_name,
    operateTime: api.operate_time,
  };
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
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Validates the base URL: absolute http(s), no credentials, plain http only on loopback. */
export function parseBaseUrl(value: unknown, allowInsecureHttp: boolean): URL {
  if (typeof value !== "string" || value.trim() === "") {
    throw new WebhookConfigError("baseUrl is empty: set it to the service's address, e.g. https://api.example.com");
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new WebhookConfigError("baseUrl is not an absolute URL: use the form https://api.example.com");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new WebhookConfigError(`baseUrl must use https:// (or http:// on loopback), not ${url.protocol}//`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new WebhookConfigError("baseUrl must not contain credentials: pass the token as accessToken instead");
  }
  if (url.search !== "" || url.hash !== "") {
    throw new WebhookConfigError("baseUrl must not have a query string or fragment");
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === "http:" && !loopback && !allowInsecureHttp) {
    throw new WebhookConfigError(
      `baseUrl ${url.origin} is plain http on a non-loopback host: the token would cross the network unencrypted. Use https://, or allow it explicitly (allowInsecureHttp: true / WEBHOOKS_ALLOW_INSECURE_HTTP=1)`,
    );
  }
  return url;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new WebhookConfigError(`${name} must be a positive number, got ${String(value)}`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new WebhookConfigError(`${name} must be zero or a positive number, got ${String(value)}`);
  return value;
}
