import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createWebhook, listWebhooks, parseCreate, parsePatch } from "./api";
import { DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_SLOW_MS, FAULT_KINDS, FaultPlanner, PRE_PROCESSING_FAULTS } from "./faults";
import { EmulatorConfigError, effectiveOptions, reconfigure } from "./options";
import {
  ApiError,
  CREATE_PATH,
  LIST_PATH,
  apiErrors,
  errorEnvelope,
  newTraceId,
  successEnvelope,
  type Envelope,
} from "./protocol";
import { WebhookStore } from "./store";
import type {
  ApiRoute,
  EffectiveOptions,
  Emulator,
  EmulatorCounters,
  EmulatorOptions,
  FaultKind,
  RequestLogEntry,
  ResolvedOptions,
  RouteFaults,
  WebhookInput,
  WebhookRecord,
  WebhookRecordPatch,
} from "./types";

const ADMIN_PREFIX = "/__emulator/";
// Bodies above the limit are still drained (so the client reads our 413 instead of a reset) up to
// this much more; past it the connection is closed.
const DRAIN_ALLOWANCE_BYTES = 16 * 1024 * 1024;

interface ReceivedBody {
  bytes: Buffer;
  tooLarge: boolean;
}

/** A response decided by the API layer, before any post-processing fault alters how it is sent. */
interface Outcome {
  status: number;
  payload: Envelope;
  headers: Readonly<Record<string, string>>;
}

/** The request cannot be answered any more: the emulator is closing or the client went away. */
class AbandonedError extends Error {}

export class WebhooksEmulator implements Emulator {
  url = "";
  port = 0;

  private settings: ResolvedOptions;
  private readonly store: WebhookStore;
  private readonly planner: FaultPlanner;
  private readonly server: http.Server;
  private readonly shutdown = new AbortController();
  private closed: Promise<void> | undefined;
  private log: RequestLogEntry[] = [];
  private seq = 0;
  private counts: EmulatorCounters = emptyCounters();

  constructor(options: ResolvedOptions) {
    this.settings = options;
    this.store = new WebhookStore(options.persistPath);
    this.planner = new FaultPlanner(options.seed);
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => this.failUnexpectedly(res, error));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.settings.port, this.settings.host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://${displayHost(this.settings.host)}:${this.port}`;
  }

  records(): WebhookRecord[] {
    return this.store.all();
  }

  requests(): RequestLogEntry[] {
    return this.log.map((entry) => structuredClone(entry));
  }

  counters(): EmulatorCounters {
    return structuredClone(this.counts);
  }

  options(): EffectiveOptions {
    return effectiveOptions(this.settings);
  }

  reset(): void {
    this.store.clear();
    this.log = [];
    this.counts = emptyCounters();
    this.planner.clearQueued();
    this.planner.reseed(this.settings.seed);
  }

  removeRecord(id: number): boolean {
    return this.store.remove(id);
  }

  updateRecord(id: number, patch: WebhookRecordPatch): WebhookRecord | undefined {
    const checked = parsePatch(patch, this.settings);
    if (checked.webhook_name !== undefined && this.settings.uniqueNames) {
      const clash = this.store.all().some((r) => r.webhook_id !== id && r.webhook_name === checked.webhook_name);
      if (clash) throw apiErrors.nameExists();
    }
    return this.store.update(id, checked, this.settings.now());
  }

  addRecord(input: WebhookInput): WebhookRecord {
    const body = asBodyObject(input);
    return createWebhook(parseCreate(body, this.settings), this.settings, this.store, this.settings.now());
  }

  configure(options: Partial<EmulatorOptions>): void {
    this.settings = reconfigure(this.settings, options);
    if ("seed" in options) this.planner.reseed(this.settings.seed);
    this.trimLog();
  }

  injectNext(route: ApiRoute, kind: FaultKind, count = 1): void {
    if (route !== "list" && route !== "create") throw new EmulatorConfigError("route must be \"list\" or \"create\"");
    if (!FAULT_KINDS.includes(kind)) throw new EmulatorConfigError(`kind must be one of ${FAULT_KINDS.join(", ")}`);
    if (!Number.isInteger(count) || count < 0) throw new EmulatorConfigError("count must be a non-negative integer");
    this.planner.inject(route, kind, count);
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

  // ---- request handling ------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const traceId = newTraceId();
    res.setHeader("x-trace-id", traceId);
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    try {
      if (path.startsWith(ADMIN_PREFIX)) {
        await this.handleAdmin(req, res, path.slice(ADMIN_PREFIX.length));
        return;
      }
      await this.handleApi(req, res, path, traceId);
    } catch (error) {
      if (error instanceof AbandonedError) return;
      throw error;
    }
  }

  private async handleApi(req: http.IncomingMessage, res: http.ServerResponse, path: string, traceId: string) {
    const route: ApiRoute | "other" =
      req.method === "POST" && path === LIST_PATH ? "list" : req.method === "POST" && path === CREATE_PATH ? "create" : "other";
    const entry = this.beginEntry(req, path, route, traceId);

    if (route === "other") {
      const received = await this.receive(req);
      entry.body = parseJson(received.bytes);
      // Unknown paths and methods are the gateway's business, so they stay real HTTP errors even
      // when the service reports its own errors inside HTTP 200.
      const error = path === LIST_PATH || path === CREATE_PATH ? apiErrors.methodNotAllowed() : apiErrors.notFound();
      this.send(res, entry, { status: error.status, payload: errorEnvelope(error, traceId), headers: error.headers });
      return;
    }

    const faults = this.settings.faults[route];
    const fault = this.planner.decide(route, faults);
    if (fault !== undefined) {
      entry.fault = fault;
      this.counts.faults[fault] += 1;
    }
    const received = await this.receive(req);
    entry.body = parseJson(received.bytes);
    // The delay comes after the body is in: a slow service keeps working on a request whose client
    // gave up waiting, which is exactly the ambiguous case clients must survive.
    const extraDelay = fault === "latency" ? (faults?.slowMs ?? DEFAULT_SLOW_MS) : 0;
    await this.pause(this.settings.latencyMs + extraDelay);

    if (fault !== undefined && PRE_PROCESSING_FAULTS.has(fault)) {
      this.applyPreFault(res, entry, fault, faults);
      return;
    }
    const outcome = this.process(route, req, received, traceId);
    this.deliver(res, entry, outcome, fault);
  }

  private process(route: ApiRoute, req: http.IncomingMessage, received: ReceivedBody, traceId: string): Outcome {
    try {
      if (received.tooLarge) throw apiErrors.payloadTooLarge(this.settings.maxBodyBytes);
      if (!this.authorized(req.headers.authorization)) throw apiErrors.unauthorized();
      if (!isJsonContentType(req.headers["content-type"])) throw apiErrors.unsupportedMediaType();
      const body = parseBodyObject(received.bytes);
      if (route === "list") {
        const data = listWebhooks(body, this.settings, this.store.all());
        return { status: 200, payload: successEnvelope("SUCCESS", traceId, data), headers: {} };
      }
      const input = parseCreate(body, this.settings);
      const record = createWebhook(input, this.settings, this.store, this.settings.now());
      this.counts.created += 1;
      return { status: 200, payload: successEnvelope("Success", traceId, record), headers: {} };
    } catch (error) {
      if (error instanceof ApiError) return this.errorOutcome(error, traceId);
      throw error;
    }
  }

  private errorOutcome(error: ApiError, traceId: string): Outcome {
    const status = this.settings.errorStyle === "envelope-200" ? 200 : error.status;
    return { status, payload: errorEnvelope(error, traceId), headers: error.headers };
  }

  private authorized(header: string | undefined): boolean {
    if (header === undefined) return false;
    const token = this.settings.accessToken;
    const bearer = /^bearer\s+(.*)$/i.exec(header.trim());
    return header === token || bearer?.[1] === token;
  }

  private applyPreFault(
    res: http.ServerResponse,
    entry: RequestLogEntry,
    fault: FaultKind,
    faults: RouteFaults | undefined,
  ): void {
    if (fault === "reset-before") {
      hangUp(res);
      return;
    }
    const error =
      fault === "rate-limit"
        ? apiErrors.rateLimited(faults?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)
        : // Alternate so a client sees both flavours of server failure within two faults.
          this.counts.faults["server-error"] % 2 === 1
          ? apiErrors.internal()
          : apiErrors.unavailable();
    this.send(res, entry, this.errorOutcome(error, entry.trace_id));
  }

  private deliver(res: http.ServerResponse, entry: RequestLogEntry, outcome: Outcome, fault: FaultKind | undefined) {
    switch (fault) {
      case "drop-after-commit":
        hangUp(res);
        return;
      case "truncated": {
        const full = Buffer.from(JSON.stringify(outcome.payload));
        const half = full.subarray(0, Math.floor(full.length / 2));
        entry.status = outcome.status;
        const mode = this.settings.faults[entry.route as ApiRoute]?.truncation ?? "content-length";
        if (mode === "chunked-end") {
          res.writeHead(outcome.status, { "content-type": "application/json; charset=utf-8", ...outcome.headers });
          res.end(half);
        } else {
          res.writeHead(outcome.status, {
            "content-type": "application/json; charset=utf-8",
            "content-length": String(full.length),
            ...outcome.headers,
          });
          res.write(half, () => hangUp(res));
        }
        return;
      }
      case "malformed": {
        entry.status = 200;
        const [contentType, body] = malformedBody(this.counts.faults.malformed, entry.trace_id);
        res.writeHead(200, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) });
        res.end(body);
        return;
      }
      default:
        this.send(res, entry, outcome);
    }
  }

  private send(res: http.ServerResponse, entry: RequestLogEntry, outcome: Outcome): void {
    entry.status = outcome.status;
    writeJson(res, outcome.status, outcome.payload, outcome.headers);
  }

  private beginEntry(
    req: http.IncomingMessage,
    path: string,
    route: ApiRoute | "other",
    traceId: string,
  ): RequestLogEntry {
    this.seq += 1;
    this.counts[route] += 1;
    this.counts.total += 1;
    // Only whether a credential was sent is kept: the log is served unauthenticated.
    const entry: RequestLogEntry = {
      seq: this.seq,
      time: this.settings.now(),
      method: req.method ?? "",
      path,
      route,
      status: 0,
      body: null,
      authorization: req.headers.authorization === undefined ? "<missing>" : "<redacted>",
      trace_id: traceId,
    };
    this.log.push(entry);
    this.trimLog();
    return entry;
  }

  private trimLog(): void {
    const excess = this.log.length - this.settings.requestLogLimit;
    if (excess > 0) this.log.splice(0, excess);
  }

  private async pause(ms: number): Promise<void> {
    if (ms <= 0) return;
    try {
      await sleep(ms, undefined, { signal: this.shutdown.signal });
    } catch {
      throw new AbandonedError();
    }
  }

  private async receive(req: http.IncomingMessage): Promise<ReceivedBody> {
    const limit = this.settings.maxBodyBytes;
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
    return { bytes: Buffer.concat(chunks), tooLarge: total > limit };
  }

  private failUnexpectedly(res: http.ServerResponse, error: unknown): void {
    if (res.headersSent) {
      hangUp(res);
      return;
    }
    const apiError = apiErrors.internal();
    const envelope = errorEnvelope(apiError, String(res.getHeader("x-trace-id") ?? newTraceId()));
    envelope.msg = `emulator bug: ${error instanceof Error ? error.message : String(error)}`;
    writeJson(res, apiError.status, envelope, {});
  }

  // ---- admin routes ----------------------------------------------------------------------------

  private async handleAdmin(req: http.IncomingMessage, res: http.ServerResponse, route: string): Promise<void> {
    const received = await this.receive(req);
    const method = req.method ?? "GET";
    try {
      if (received.tooLarge) throw apiErrors.payloadTooLarge(this.settings.maxBodyBytes);
      const body = (): unknown => (received.bytes.length === 0 ? {} : parseAdminJson(received.bytes));
      const recordMatch = /^records\/(\d+)$/.exec(route);
      const allow = (...methods: string[]): boolean => {
        if (methods.includes(method)) return true;
        writeJson(res, 405, { error: `use ${methods.join(" or ")}` }, { allow: methods.join(", ") });
        return false;
      };
      if (route === "health") {
        if (allow("GET")) writeJson(res, 200, { ok: true });
      } else if (route === "records") {
        if (!allow("GET", "POST")) return;
        if (method === "GET") writeJson(res, 200, this.records());
        else writeJson(res, 201, this.addRecord(asBodyObject(body()) as unknown as WebhookInput));
      } else if (recordMatch !== null) {
        if (!allow("DELETE", "PATCH")) return;
        const id = Number(recordMatch[1]);
        const result = method === "DELETE" ? this.removeRecord(id) : this.updateRecord(id, body() as WebhookRecordPatch);
        if (result === false || result === undefined) writeJson(res, 404, { error: `no record ${id}` });
        else writeJson(res, 200, result === true ? { removed: id } : result);
      } else if (route === "requests") {
        if (allow("GET")) writeJson(res, 200, this.requests());
      } else if (route === "counters") {
        if (allow("GET")) writeJson(res, 200, this.counters());
      } else if (route === "reset") {
        if (!allow("POST")) return;
        this.reset();
        writeJson(res, 200, { ok: true });
      } else if (route === "config") {
        if (!allow("GET", "POST")) return;
        if (method === "POST") this.configure(body() as Partial<EmulatorOptions>);
        writeJson(res, 200, this.options());
      } else if (route === "inject") {
        if (!allow("POST")) return;
        const { route: target, kind, count } = asBodyObject(body());
        this.injectNext(target as ApiRoute, kind as FaultKind, count === undefined ? 1 : (count as number));
        writeJson(res, 200, { ok: true });
      } else {
        writeJson(res, 404, { error: `unknown admin route /__emulator/${route}` });
      }
    } catch (error) {
      if (error instanceof ApiError) writeJson(res, error.status, { error: error.message });
      else if (error instanceof EmulatorConfigError) writeJson(res, 400, { error: error.message });
      else throw error;
    }
  }
}

function emptyCounters(): EmulatorCounters {
  const faults = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  return { list: 0, create: 0, other: 0, total: 0, faults, created: 0 };
}

function writeJson(
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

function hangUp(res: http.ServerResponse): void {
  res.socket?.destroy();
}

// Rotates through three ways a misbehaving proxy or service can break the contract while still
// answering 200: not JSON at all, JSON of another shape, and the envelope with a wrongly typed data.
function malformedBody(occurrence: number, traceId: string): [contentType: string, body: string] {
  switch (occurrence % 3) {
    case 1:
      return ["text/html; charset=utf-8", "<html><body><h1>502 Bad Gateway</h1></body></html>"];
    case 2:
      return ["application/json; charset=utf-8", '{"code":200,"data":"oops"}'];
    default:
      return ["application/json; charset=utf-8", JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: traceId, data: [] })];
  }
}

function isJsonContentType(header: string | undefined): boolean {
  return header?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return null;
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return null;
  }
}

function parseBodyObject(bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw apiErrors.badRequest("request body must be valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw apiErrors.badRequest("request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function parseAdminJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw apiErrors.badRequest("request body must be valid JSON");
  }
}

function asBodyObject(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw apiErrors.badRequest("request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function displayHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
