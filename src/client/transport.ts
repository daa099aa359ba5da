import type * as Http from "node:http";
import type { Agent as HttpAgent } from "node:http";
import type * as Https from "node:https";
import type * as Url from "node:url";
import type * as Undici from "undici";
import type { Dispatcher } from "undici";
import type { ApiOperation } from "../api/contract";
import { redact, sanitizeCause } from "../text";
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

/** How one attempt went, as far as the socket tells: whether a connection carried it, what status line came. */
interface Attempt {
  /** A connection (TLS included) was open for the request: it may have been sent. */
  connected: boolean;
  /** The status line, once it arrived: a body that then fails still tells what the service said. */
  status: number | undefined;
}

/** An exchange as either way of sending returns it: the status line, the headers, the whole body. */
interface Exchange {
  status: number;
  headers: RawResponse["headers"];
  text: string;
}

/**
 * An attempt's deadline and the caller's cancel: either stops what is in flight (the own agent's
 * request destroyed with a reason, which takes its response with it; a dispatcher's request through
 * the signal it is given), and `timedOut` tells which it was.
 */
class Cutoff {
  timedOut = false;
  readonly #caller: AbortSignal | undefined;
  readonly #timer: ReturnType<typeof setTimeout>;
  #stop: ((reason: Error) => void) | undefined;
  #controller: AbortController | undefined;
  readonly #onCallerAbort = (): void => this.#cut(new Error("cancelled by the caller"));

  constructor(timeoutMs: number, caller: AbortSignal | undefined) {
    this.#caller = caller;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#cut(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  /** Stopped already: the caller's signal aborted before the attempt began, or the deadline passed. */
  get stopped(): boolean {
    return this.timedOut || this.#caller?.aborted === true;
  }

  /** What stopping does from now on, to what is in flight. */
  onStop(stop: (reason: Error) => void): void {
    this.#stop = stop;
  }

  /** A signal for a dispatcher's request (sent only while not stopped), aborted when the attempt is stopped. */
  signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  done(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
    this.#stop = undefined;
  }

  #cut(reason: Error): void {
    this.#stop?.(reason);
    this.#controller?.abort(reason);
  }
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
  readonly #urls = new Map<string, { url: URL; options: Http.RequestOptions }>();

  async post(path: string, body: unknown, options: SendOptions): Promise<RawResponse> {
    let target = this.#urls.get(path);
    if (target === undefined) {
      const url = new URL(joinPath(this.#origin.pathname, path), this.#origin);
      // What Node's own request(url, options) derives from the URL, derived once.
      target = { url, options: nodeUrl().urlToHttpOptions(url) };
      this.#urls.set(path, target);
    }
    const attempt: Attempt = { connected: false, status: undefined };
    const payload = JSON.stringify(body);
    // One deadline for the whole attempt (connect, headers, body): a plain timer cleared on
    // completion, not AbortSignal.timeout, which would leave thousands of live timers and signals
    // behind until each deadline passed.
    const cut = new Cutoff(options.timeoutMs, options.signal);
    // Neither way of sending opens a connection for a request that will not be sent.
    const exchange = this.#closed
      ? Promise.reject(new TransportClosed("the client was closed"))
      : cut.stopped
        ? Promise.reject(new Error("cancelled before it was sent"))
        : this.#dispatcher === undefined
          ? this.#sendOwn(target.options, payload, cut, attempt)
          : this.#sendThrough(this.#dispatcher, target.url, payload, cut, options.timeoutMs, attempt);
    this.#inflight.add(exchange);
    try {
      const { status, headers, text } = await exchange;
      return { status, headers, text, bytes: text.length };
    } catch (error) {
      throw this.#connectionError(error, options, cut.timedOut, attempt);
    } finally {
      this.#inflight.delete(exchange);
      cut.done();
    }
  }

  /** Waits for the requests in flight, then closes the own agent's connections; a caller's dispatcher is left open. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#inflight]);
    this.#agent?.destroy();
  }

  /**
   * One exchange on the own agent, body read to its end. The deadline and the caller's cancel
   * destroy the request, and with it the response and its connection (no AbortSignal on the
   * request: Node's listeners for one cost a provider host a tenth of its CPU over 2,000 requests,
   * measured).
   */
  #sendOwn(options: Http.RequestOptions, payload: string, cut: Cutoff, attempt: Attempt): Promise<Exchange> {
    const secure = options.protocol === "https:";
    const send = secure ? nodeHttps().request : nodeHttp().request;
    return new Promise((resolve, reject) => {
      const request = send({
        ...options,
        method: "POST",
        agent: this.#agent,
        headers: {
          authorization: this.#token,
          "content-type": "application/json",
          accept: "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      });
      // Settled by the stop itself: a request whose socket Node already destroyed (an answer Node
      // gives no event for, such as 101 Switching Protocols) emits nothing when destroyed again.
      cut.onStop((reason) => {
        request.destroy(reason);
        reject(reason);
      });
      request.once("socket", (socket) => {
        // A kept-alive socket is open already; a new one is once connected (TLS: once secured).
        if (socket.connecting)
          socket.once(secure ? "secureConnect" : "connect", () => (attempt.connected = true));
        else attempt.connected = true;
      });
      request.once("response", (response) => {
        const status = response.statusCode ?? 0;
        attempt.status = status;
        const chunks: Buffer[] = [];
        let total = 0;
        response.on("data", (chunk: Buffer) => {
          total += chunk.byteLength;
          if (total > MAX_RESPONSE_BYTES)
            response.destroy(new ResponseTooLarge(`response body past ${MAX_RESPONSE_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.once("end", () =>
          resolve({
            status,
            headers: response.headersDistinct,
            text: utf8(Buffer.concat(chunks, total)),
          }),
        );
        // Its errors reach the request's listener (a destroyed response destroys the socket, whose
        // error the request emits: the cap's, the deadline's); a connection that drops in the middle
        // of the body only closes it.
        response.once("close", () => {
          if (!response.complete) reject(new Error("the connection closed before the response body ended"));
        });
      });
      request.on("error", reject);
      // An answer that switches protocols is no answer: its connection is closed.
      request.once("upgrade", (response, socket) => {
        socket.destroy();
        reject(new Error(`the service answered ${response.statusCode ?? 101} Switching Protocols`));
      });
      // Closed with neither an answer nor an error (a settled promise ignores this).
      request.once("close", () => reject(new Error("the connection closed before an answer")));
      request.end(payload);
    });
  }

  async #sendThrough(
    dispatcher: Dispatcher,
    url: URL,
    payload: string,
    cut: Cutoff,
    timeoutMs: number,
    attempt: Attempt,
  ): Promise<Exchange> {
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
      signal: cut.signal(),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    };
    const exchange = (async () => {
      const response =
        typeof dispatcher.request === "function"
          ? await dispatcher.request({ origin: url.origin, path: `${url.pathname}${url.search}`, ...options })
          : await undici().request(url, { dispatcher, ...options });
      attempt.status = response.statusCode;
      // An answer to an attempt already stopped (a dispatcher that ignores its signal) is not read.
      if (cut.stopped) response.body.destroy();
      const text = await readCapped(response.body, MAX_RESPONSE_BYTES);
      return { status: response.statusCode, headers: response.headers, text };
    })();
    // Settled by the stop itself too: a dispatcher of the caller's may not honour the signal it is
    // given, and the deadline and the cancel hold all the same.
    return new Promise((resolve, reject) => {
      cut.onStop(reject);
      exchange.then(resolve, reject);
    });
  }

  #connectionError(error: unknown, options: SendOptions, timedOut: boolean, attempt: Attempt): Error {
    const { status } = attempt;
    const cause = sanitizeCause(error, [this.#token]);
    const where = `${options.operation} request to ${this.#origin.host}`;
    if (options.signal?.aborted) {
      return new WebhookAbortError(
        options.operation === "create"
          ? `${where} was cancelled by the caller; the endpoint may have been created`
          : `${where} was cancelled by the caller`,
        { operation: options.operation, cause, status },
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
      timedOut ||
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
      `${where} failed: ${cause?.message ?? "connection error"}${code ? ` (${redact(code, [this.#token])})` : ""}`,
      { operation: options.operation, cause, status, requestSent },
    );
  }
}

/**
 * The error's code: a "never sent" code anywhere in the cause chain wins (undici wraps socket
 * errors), else the outermost code. Only a code shaped like Node's and undici's (`ECONNRESET`,
 * `UND_ERR_SOCKET`) counts: a dispatcher of the caller's may put anything there, and the code is
 * shown in the message.
 */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  let outermost: string | undefined;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]{0,47}$/.test(code)) {
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

const loaded: { http?: typeof Http; https?: typeof Https; url?: typeof Url; undici?: typeof Undici } = {};
// Loaded on first use: a Pulumi program that only declares resources sends no request itself, and
// undici is needed only for a caller's dispatcher that has no `request` of its own.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see above */
const nodeHttp = (): typeof Http => (loaded.http ??= require("node:http") as typeof Http);
const nodeHttps = (): typeof Https => (loaded.https ??= require("node:https") as typeof Https);
const undici = (): typeof Undici => (loaded.undici ??= require("undici") as typeof Undici);
const nodeUrl = (): typeof Url => (loaded.url ??= require("node:url") as typeof Url);
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
  return utf8(Buffer.concat(chunks, total));
}

/** UTF-8 as a browser decodes it: a malformed sequence is U+FFFD, a leading byte-order mark dropped. */
const DECODER = new TextDecoder("utf-8");
function utf8(bytes: Uint8Array): string {
  return DECODER.decode(bytes);
}
