import type * as Undici from "undici";
import type { Dispatcher } from "undici";
import type { ApiOperation } from "../api/contract";
import { sanitizeCause } from "../text";
import {
  WebhookAbortError,
  WebhookConnectionError,
  WebhookInvalidResponseError,
  WebhookTimeoutError,
} from "./errors";

/** One HTTP exchange as received, before any interpretation. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Size of the body (in UTF-16 code units, close to bytes for JSON). */
  bytes: number;
}

export interface SendOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  operation: ApiOperation;
}

/**
 * Error codes that mean the connection never carried the request, so the service cannot have
 * acted on it. Everything else after a connection is open is treated as "may have been sent".
 */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Largest response body read into memory; a larger one is an unusable response. A page of 100
 * records of the largest sizes the schema accepts stays well below it.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

let undici: typeof Undici | undefined;
/**
 * undici, loaded when the first transport is made rather than with the package: a Pulumi program
 * that only declares resources never sends a request itself, and loading undici costs it about
 * 0.1 s of CPU on every run.
 */
function http(): typeof Undici {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return (undici ??= require("undici") as typeof Undici);
}

/**
 * Sends JSON POSTs to one origin through one keep-alive dispatcher and reports failures as
 * typed connection errors. It knows nothing of the API's envelope.
 */
export class Transport {
  readonly #origin: URL;
  readonly #token: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #request: typeof Undici.request;

  constructor(origin: URL, token: string, timeoutMs: number, dispatcher?: Dispatcher) {
    this.#origin = origin;
    this.#token = token;
    this.#ownsDispatcher = dispatcher === undefined;
    const { Agent, request } = http();
    this.#request = request;
    this.#dispatcher =
      dispatcher ??
      new Agent({
        connect: { timeout: timeoutMs },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: 10_000,
        maxResponseSize: MAX_RESPONSE_BYTES,
      });
  }

  /** Absolute URLs per path, parsed once: the client only ever posts to two. */
  readonly #urls = new Map<string, string>();

  async post(path: string, body: unknown, options: SendOptions): Promise<RawResponse> {
    let url = this.#urls.get(path);
    if (url === undefined) {
      url = new URL(joinPath(this.#origin.pathname, path), this.#origin).href;
      this.#urls.set(path, url);
    }
    // One deadline for the whole attempt (connect, headers, body). A plain timer cleared on
    // completion, not AbortSignal.timeout: thousands of calls a second would otherwise leave as
    // many live timers and signals behind until each deadline passed.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    // The status line, once it arrived: a body that then fails still tells what the service said.
    let status: number | undefined;
    try {
      const response = await this.#request(url, {
        method: "POST",
        dispatcher: this.#dispatcher,
        headers: {
          authorization: this.#token,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(body),
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      status = response.statusCode;
      const text = await readCapped(response.body, MAX_RESPONSE_BYTES);
      return { status: response.statusCode, headers: response.headers, text, bytes: text.length };
    } catch (error) {
      throw this.#connectionError(error, options, deadline.signal, status);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #connectionError(
    error: unknown,
    options: SendOptions,
    timeout: AbortSignal,
    status: number | undefined,
  ): Error {
    const cause = sanitizeCause(error, [this.#token]);
    const where = `${options.operation} request to ${this.#origin.host}`;
    if (options.signal?.aborted) {
      return new WebhookAbortError(
        options.operation === "create"
          ? `${where} was cancelled by the caller; the endpoint may have been created`
          : `${where} was cancelled by the caller`,
        {
          operation: options.operation,
          cause,
        },
      );
    }
    const code = errorCode(error);
    if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE" || error instanceof ResponseTooLarge) {
      return new WebhookInvalidResponseError(
        `${where} returned a body larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB`,
        {
          operation: options.operation,
          cause,
          status,
        },
      );
    }
    if (
      timeout.aborted ||
      code === "UND_ERR_HEADERS_TIMEOUT" ||
      code === "UND_ERR_BODY_TIMEOUT" ||
      code === "UND_ERR_CONNECT_TIMEOUT"
    ) {
      return new WebhookTimeoutError(`${where} timed out after ${options.timeoutMs} ms`, {
        operation: options.operation,
        cause,
        status,
        requestSent: code !== "UND_ERR_CONNECT_TIMEOUT",
      });
    }
    const requestSent = !NOT_SENT_CODES.has(code ?? "");
    return new WebhookConnectionError(
      `${where} failed: ${cause?.message ?? "connection error"}${code ? ` (${code})` : ""}`,
      { operation: options.operation, cause, status, requestSent },
    );
  }
}

/**
 * The error's code: a "never sent" code anywhere in the cause chain wins (undici wraps socket
 * errors), else the outermost code.
 */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  let outermost: string | undefined;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (NOT_SENT_CODES.has(code)) return code;
      outermost ??= code;
    }
    current = current.cause;
  }
  return outermost;
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** A body past the cap, whichever dispatcher carried it (a caller's own has no maxResponseSize). */
class ResponseTooLarge extends Error {}

/** The body as UTF-8 text, refused once more than `maxBytes` arrived (the rest is never buffered). */
async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  maxBytes: number,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      const error = new ResponseTooLarge(`response body past ${maxBytes} bytes`);
      body.destroy(error);
      throw error;
    }
    chunks.push(chunk);
  }
  return new TextDecoder("utf-8").decode(Buffer.concat(chunks, total));
}
