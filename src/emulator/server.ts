// HTTP plumbing only: listen, read bodies under the size limit, hand each request to the API or
// the admin routes, write JSON, close. What a request means is decided in ./api and ./admin.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { apiErrors, errorEnvelope, newTraceId } from "./protocol";

export const ADMIN_PREFIX = "/__emulator/";
// Bodies above the limit are still drained (so the client reads our 413 instead of a reset) up to
// this much more; past it the connection is closed.
const DRAIN_ALLOWANCE_BYTES = 16 * 1024 * 1024;
/**
 * The most of a body that is read (and dropped, never kept) after a request was answered without
 * reading it (no valid token, a foreign Host): enough for the client to finish sending an ordinary
 * request and read the answer on a connection kept alive; past it the connection is closed. What
 * such a request costs is fixed, whatever it sends.
 */
export const UNREAD_BODY_ALLOWANCE_BYTES = 1024 * 1024;

export interface ReceivedBody {
  /** The body, or its first `limit` bytes when it is too large. */
  bytes: Buffer;
  tooLarge: boolean;
  limit: number;
}

/** One request and its response, with the helpers a handler needs. */
export interface Exchange {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  /** The URL path, without the query. */
  readonly path: string;
  /** Sent in the `x-trace-id` header of every response, and in every envelope. */
  readonly traceId: string;
  /** Reads the whole body under the current size limit. */
  receive(): Promise<ReceivedBody>;
  /**
   * Drops the body unread, for a request answered without it: nothing of it is kept, and past
   * {@link UNREAD_BODY_ALLOWANCE_BYTES} the connection is closed (a body that never ends).
   */
  discard(): void;
  /** Waits; throws {@link AbandonedError} if the emulator closes meanwhile. */
  pause(ms: number): Promise<void>;
}

export interface Handlers {
  api(exchange: Exchange): Promise<void>;
  admin(exchange: Exchange): Promise<void>;
  /** The body size limit in force. */
  maxBodyBytes(): number;
}

/** The request cannot be answered any more: the emulator is closing or the client went away. */
export class AbandonedError extends Error {}

/** The address the server is bound to, as the operating system reports it. */
export interface BoundAddress {
  /** e.g. `127.0.0.1`, `::1`, `0.0.0.0`, `::`, `192.168.1.20`. */
  address: string;
  family: string;
  port: number;
  /** Only this machine can connect (127.0.0.0/8 or ::1). */
  loopback: boolean;
  /** The wildcard address: every interface of its family (`::` usually IPv4 as well). */
  allInterfaces: boolean;
}

/** Whether an address (or the host name `localhost`) is a loopback one: only this machine reaches it. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^(?:::ffff:)?127(?:\.\d{1,3}){3}$/.test(bare);
}

export class HttpServer {
  url = "";
  port = 0;
  bound: BoundAddress = { address: "", family: "", port: 0, loopback: true, allInterfaces: false };
  private readonly server: http.Server;
  private readonly shutdown = new AbortController();
  private closed: Promise<void> | undefined;

  constructor(private readonly handlers: Handlers) {
    this.server = http.createServer((req, res) => {
      this.dispatch(req, res).catch((error: unknown) => failUnexpectedly(res, error));
    });
  }

  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    const info = this.server.address() as AddressInfo;
    this.port = info.port;
    const allInterfaces = info.address === "0.0.0.0" || info.address === "::";
    this.bound = {
      address: info.address,
      family: info.family,
      port: info.port,
      loopback: isLoopbackAddress(info.address),
      allInterfaces,
    };
    // A URL that works from this machine: the wildcard addresses are reached through loopback.
    this.url = `http://${displayHost(host)}:${this.port}`;
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.shutdown.abort();
      this.server.close(() => resolve());
      // close() alone waits for idle keep-alive connections to time out.
      this.server.closeAllConnections();
    });
    return this.closed;
  }

  private async dispatch(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const traceId = newTraceId();
    res.setHeader("x-trace-id", traceId);
    const exchange: Exchange = {
      req,
      res,
      path: (req.url ?? "/").split("?", 1)[0] ?? "/",
      traceId,
      receive: () => this.receive(req),
      discard: () => discard(req),
      pause: (ms) => this.pause(ms),
    };
    try {
      await (exchange.path.startsWith(ADMIN_PREFIX)
        ? this.handlers.admin(exchange)
        : this.handlers.api(exchange));
    } catch (error) {
      if (!(error instanceof AbandonedError)) throw error;
    }
  }

  private async receive(req: http.IncomingMessage): Promise<ReceivedBody> {
    const limit = this.handlers.maxBodyBytes();
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of req) {
        const buffer = chunk as Buffer;
        total += buffer.length;
        if (total <= limit) chunks.push(buffer);
        else if (total > limit + DRAIN_ALLOWANCE_BYTES) {
          req.socket.setKeepAlive(false);
          req.destroy();
          break;
        }
      }
    } catch {
      throw new AbandonedError();
    }
    if (this.shutdown.signal.aborted) throw new AbandonedError();
    return { bytes: Buffer.concat(chunks), tooLarge: total > limit, limit };
  }

  private async pause(ms: number): Promise<void> {
    if (ms <= 0) return;
    try {
      await sleep(ms, undefined, { signal: this.shutdown.signal });
    } catch {
      throw new AbandonedError();
    }
  }
}

function discard(req: http.IncomingMessage): void {
  let dropped = 0;
  // A data listener puts the stream in flowing mode: each chunk is counted and let go.
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > UNREAD_BODY_ALLOWANCE_BYTES) req.destroy();
  });
  req.on("error", () => undefined);
}

export function writeJson(
  res: http.ServerResponse,
  status: number,
  payload: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Destroys the connection without (the rest of) a response. */
export function hangUp(res: http.ServerResponse): void {
  res.socket?.destroy();
}

// A bug of ours still answers, in the service's own error shape, and says what broke.
function failUnexpectedly(res: http.ServerResponse, error: unknown): void {
  if (res.headersSent) {
    hangUp(res);
    return;
  }
  const apiError = apiErrors.internal();
  const envelope = errorEnvelope(apiError, String(res.getHeader("x-trace-id") ?? newTraceId()));
  envelope.msg = `emulator bug: ${error instanceof Error ? error.message : String(error)}`;
  writeJson(res, apiError.status, envelope);
}

function displayHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
