import type * as Http from "node:http";
import type { Agent as HttpAgent } from "node:http";
import type * as Https from "node:https";
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

/** How one attempt went, as far as the socket tells: whether a connection carried it. */
interface Attempt {
  /** A connection (TLS included) was open for the request: it may have been sent. */
  connected: boolean;
}

/** A response as either way of sending returns it: the status line, the headers, the body still to read. */
interface Response {
  status: number;
  headers: RawResponse["headers"];
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };
}

/**
 * Sends JSON POSTs to one origin and reports failures as typed connection errors. It knows nothing of
 * the API's envelope. Its own connections go through Node's http or https module with one keep-alive
 * agent: nothing to load, where undici cost a provider host 50-75 ms of CPU and 27 MB of RSS to load
 * (measured) and more CPU per request. A `dispatcher` the caller gives (an undici Agent, Pool,
 * ProxyAgent, MockAgent...) carries the requests instead, through its own `request`.
 */
export class Transport {
  readonly #origin: URL;
  readonly #token: string;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #agent: HttpAgent | undefined;
  /** Requests of the own agent in flight: `close` waits for them, as undici's close did. */
  readonly #inflight = new Set<Promise<unknown>>();
  #closed = false;

  constructor(origin: URL, token: string, timeoutMs: number, dispatcher?: Dispatcher) {
    this.#origin = origin;
    this.#token = token;
    this.#dispatcher = dispatcher;
    if (dispatcher === undefined) {
      // Idle keep-alive sockets are closed after 10 s (the agent unrefs them: they keep no process alive).
      const options = { keepAlive: true, timeout: Math.min(timeoutMs, 10_000) };
      this.#agent =
        origin.protocol === "https:" ? new (nodeHttps().Agent)(options) : new (nodeHttp().Agent)(options);
    }
  }

  /** Absolute URLs per path, parsed once: the client only ever posts to two. */
  readonly #urls = new Map<string, URL>();

  async post(path: string, body: unknown, options: SendOptions): Promise<RawResponse> {
    let url = this.#urls.get(path);
    if (url === undefined) {
      url = new URL(joinPath(this.#origin.pathname, path), this.#origin);
      this.#urls.set(path, url);
    }
    // One deadline for the whole attempt (connect, headers, body). A plain timer cleared on
    // completion, not AbortSignal.timeout: thousands of calls a second would otherwise leave as
    // many live timers and signals behind until each deadline passed.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    const attempt: Attempt = { connected: false };
    // The status line, once it arrived: a body that then fails still tells what the service said.
    let status: number | undefined;
    const exchange = (async () => {
      const payload = JSON.stringify(body);
      const response =
        this.#dispatcher === undefined
          ? await this.#sendOwn(url, payload, signal, attempt)
          : await this.#sendThrough(this.#dispatcher, url, payload, signal, options.timeoutMs, attempt);
      status = response.status;
      const text = await readCapped(response.body, MAX_RESPONSE_BYTES);
      return { status: response.status, headers: response.headers, text, bytes: text.length };
    })();
    this.#inflight.add(exchange);
    try {
      return await exchange;
    } catch (error) {
      throw this.#connectionError(error, options, deadline.signal, status, attempt);
    } finally {
      this.#inflight.delete(exchange);
      clearTimeout(timer);
    }
  }

  /** Waits for the requests in flight, then closes the own agent's connections; a caller's dispatcher is left open. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#inflight]);
    this.#agent?.destroy();
  }

  #sendOwn(url: URL, payload: string, signal: AbortSignal, attempt: Attempt): Promise<Response> {
    if (this.#closed) return Promise.reject(new TransportClosed("the client was closed"));
    const send = url.protocol === "https:" ? nodeHttps().request : nodeHttp().request;
    return new Promise((resolve, reject) => {
      const request = send(url, {
        method: "POST",
        agent: this.#agent,
        headers: {
          authorization: this.#token,
          "content-type": "application/json",
          accept: "application/json",
          "content-length": Buffer.byteLength(payload),
        },
        signal,
      });
      request.once("socket", (socket) => {
        // A kept-alive socket is open already; a new one is once connected (TLS: once secured).
        const ready = url.protocol === "https:" ? "secureConnect" : "connect";
        if (socket.connecting) socket.once(ready, () => (attempt.connected = true));
        else attempt.connected = true;
      });
      request.once("response", (response) =>
        resolve({ status: response.statusCode ?? 0, headers: response.headersDistinct, body: response }),
      );
      request.on("error", reject);
      request.end(payload);
    });
  }

  async #sendThrough(
    dispatcher: Dispatcher,
    url: URL,
    payload: string,
    signal: AbortSignal,
    timeoutMs: number,
    attempt: Attempt,
  ): Promise<Response> {
    // Whether the dispatcher connected is its own affair: the request counts as possibly sent unless
    // its error says it never was (see NOT_SENT_CODES).
    attempt.connected = true;
    const options = {
      method: "POST" as const,
      headers: {
        authorization: this.#token,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: payload,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    };
    const response =
      typeof dispatcher.request === "function"
        ? await dispatcher.request({ origin: url.origin, path: `${url.pathname}${url.search}`, ...options })
        : await undici().request(url, { dispatcher, ...options });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  }

  #connectionError(
    error: unknown,
    options: SendOptions,
    timeout: AbortSignal,
    status: number | undefined,
    attempt: Attempt,
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
        requestSent: attempt.connected && code !== "UND_ERR_CONNECT_TIMEOUT",
      });
    }
    // Nothing is written before the connection (TLS included) is open: an error before it means not sent.
    const requestSent = attempt.connected && !NOT_SENT_CODES.has(code ?? "");
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

/** A body past the cap, whichever way it came. */
class ResponseTooLarge extends Error {}

/** A request after `close`: never sent. */
class TransportClosed extends Error {}

const loaded: { http?: typeof Http; https?: typeof Https; undici?: typeof Undici } = {};
// Loaded on first use: a Pulumi program that only declares resources sends no request itself, and
// undici is needed only for a caller's dispatcher that has no `request` of its own.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see above */
const nodeHttp = (): typeof Http => (loaded.http ??= require("node:http") as typeof Http);
const nodeHttps = (): typeof Https => (loaded.https ??= require("node:https") as typeof Https);
const undici = (): typeof Undici => (loaded.undici ??= require("undici") as typeof Undici);
/* eslint-enable @typescript-eslint/no-require-imports */

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
