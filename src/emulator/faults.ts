// Fault injection, both halves: the planner that decides which request fails and how (scripted
// faults first, then seeded random ones), and the code that applies a fault to the response.
import type http from "node:http";
import {
  FAULT_KINDS,
  LIMITS,
  type ApiRoute,
  type ErrorStyle,
  type FaultKind,
  type ResolvedOptions,
} from "./options";
import { apiErrors, errorOutcome, type Outcome } from "./protocol";
import { mulberry32 } from "./random";
import { EmulatorConfigError } from "./resolve";
import { hangUp, writeJson } from "./server";
import type { RequestLogEntry } from "./types";

export { FAULT_KINDS };

/** Random faults of one route, with their defaults applied. */
export type ResolvedRouteFaults = NonNullable<ResolvedOptions["faults"][ApiRoute]>;

/** Faults that answer (or hang up) before the request is processed. */
export const PRE_PROCESSING_FAULTS: ReadonlySet<FaultKind> = new Set([
  "server-error",
  "rate-limit",
  "reset-before",
]);

// Each route has its own stream so that, for example, the faults seen by list requests do not
// depend on how many creates were interleaved with them.
const ROUTE_SEED_SALT: Record<ApiRoute, number> = { list: 0, create: 0x9e3779b9 };

/** A run of queued requests: `count` requests get `kind`, or pass when `kind` is undefined. */
interface QueuedRun {
  kind: FaultKind | undefined;
  count: number;
}

/** Picks the fault (if any) for each API request: scripted faults first, then seeded random ones. */
export class FaultPlanner {
  private streams!: Record<ApiRoute, () => number>;
  // Runs rather than one entry per request: memory follows the number of calls, not the counts.
  private readonly queued: Record<ApiRoute, QueuedRun[]> = { list: [], create: [] };
  private readonly queuedRequests: Record<ApiRoute, number> = { list: 0, create: 0 };

  constructor(seed: number) {
    this.reseed(seed);
  }

  reseed(seed: number): void {
    this.streams = {
      list: mulberry32(seed ^ ROUTE_SEED_SALT.list),
      create: mulberry32(seed ^ ROUTE_SEED_SALT.create),
    };
  }

  clearQueued(): void {
    for (const route of ["list", "create"] as const) {
      this.queued[route].length = 0;
      this.queuedRequests[route] = 0;
    }
  }

  /** Queues `after` passing requests, then `count` faults, behind what is already queued. */
  inject(route: ApiRoute, kind: FaultKind, count: number, after = 0): void {
    if (this.queuedRequests[route] + after + count > LIMITS.queuedPerRoute) {
      throw new EmulatorConfigError(
        `the ${route} fault queue holds at most ${LIMITS.queuedPerRoute} requests (${this.queuedRequests[route]} queued)`,
      );
    }
    this.enqueue(route, undefined, after);
    this.enqueue(route, kind, count);
  }

  decide(route: ApiRoute, config: ResolvedRouteFaults | undefined): FaultKind | undefined {
    // Two draws on every request, whether or not they are used, so the random sequence is a
    // function of the request count alone: injecting a fault or changing the rate does not shift
    // which later requests fail.
    const stream = this.streams[route];
    const roll = stream();
    const pick = stream();
    const scripted = this.dequeue(route);
    if (scripted !== undefined) return scripted;
    if (config === undefined || config.rate <= 0 || roll >= config.rate) return undefined;
    return chooseKind(config.kinds, pick);
  }

  private enqueue(route: ApiRoute, kind: FaultKind | undefined, count: number): void {
    if (count <= 0) return;
    const runs = this.queued[route];
    const last = runs[runs.length - 1];
    if (last !== undefined && last.kind === kind) last.count += count;
    else runs.push({ kind, count });
    this.queuedRequests[route] += count;
  }

  // The scripted fault of the next request; undefined when nothing is queued or it may pass.
  private dequeue(route: ApiRoute): FaultKind | undefined {
    const run = this.queued[route][0];
    if (run === undefined) return undefined;
    run.count -= 1;
    this.queuedRequests[route] -= 1;
    if (run.count === 0) this.queued[route].shift();
    return run.kind;
  }
}

function chooseKind(weights: ResolvedRouteFaults["kinds"], pick: number): FaultKind | undefined {
  const entries = FAULT_KINDS.map(
    (kind) => [kind, weights === undefined ? 1 : (weights[kind] ?? 0)] as const,
  ).filter(([, weight]) => weight > 0);
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  if (total <= 0) return undefined;
  let threshold = pick * total;
  for (const [kind, weight] of entries) {
    if (threshold < weight) return kind;
    threshold -= weight;
  }
  return entries[entries.length - 1]?.[0];
}

// ---- applying a fault to the response --------------------------------------------------------

/**
 * Answers for a pre-processing fault (nothing is processed): hangs up, or sends 429 or a 5xx.
 * `serverErrorsSoFar` counts server-error faults including this one.
 */
export function failBeforeProcessing(
  res: http.ServerResponse,
  entry: RequestLogEntry,
  fault: FaultKind,
  faults: ResolvedRouteFaults | undefined,
  errorStyle: ErrorStyle,
  serverErrorsSoFar: number,
): void {
  if (fault === "reset-before") {
    hangUp(res);
    return;
  }
  const error =
    fault === "rate-limit"
      ? apiErrors.rateLimited(faults?.retryAfterSeconds ?? 1)
      : // Alternate so a client sees both flavours of server failure within two faults.
        serverErrorsSoFar % 2 === 1
        ? apiErrors.internal()
        : apiErrors.unavailable();
  deliver(res, entry, errorOutcome(error, entry.trace_id, errorStyle));
}

/**
 * Sends a processed outcome, or breaks it as a post-processing fault says: the socket dropped,
 * half the body, a body that is not the envelope, or a gateway's answer in its place.
 * `kindSoFar` counts the faults of this kind including this one.
 */
export function deliver(
  res: http.ServerResponse,
  entry: RequestLogEntry,
  outcome: Outcome,
  fault?: FaultKind,
  faults?: ResolvedRouteFaults,
  kindSoFar = 0,
): void {
  switch (fault) {
    case "drop-after-commit":
      hangUp(res);
      return;
    case "truncated": {
      const full = Buffer.from(JSON.stringify(outcome.payload));
      const half = full.subarray(0, Math.floor(full.length / 2));
      entry.status = outcome.status;
      const headers = { "content-type": "application/json; charset=utf-8", ...outcome.headers };
      if (faults?.truncation === "chunked-end") {
        res.writeHead(outcome.status, headers);
        res.end(half);
      } else {
        res.writeHead(outcome.status, { ...headers, "content-length": String(full.length) });
        res.write(half, () => hangUp(res));
      }
      return;
    }
    case "malformed": {
      entry.status = 200;
      const [contentType, body] = malformedBody(kindSoFar, entry.trace_id);
      res.writeHead(200, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) });
      res.end(body);
      return;
    }
    case "gateway-error": {
      const [status, contentType, body] = gatewayAnswer(kindSoFar);
      entry.status = status;
      res.writeHead(status, {
        "content-type": contentType,
        "content-length": String(Buffer.byteLength(body)),
      });
      res.end(body);
      return;
    }
    default:
      entry.status = outcome.status;
      writeJson(res, outcome.status, outcome.payload, outcome.headers);
  }
}

// What gateways in front of a service answer when they lose the service's answer, in turn: Envoy's
// 503 when the upstream connection resets before the headers, nginx's 502 page, Envoy's 504 when
// its route timeout passes. None is the service's envelope.
function gatewayAnswer(occurrence: number): [status: number, contentType: string, body: string] {
  switch (occurrence % 3) {
    case 1:
      return [
        503,
        "text/plain",
        "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
      ];
    case 2:
      return [
        502,
        "text/html",
        "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
      ];
    default:
      return [504, "text/plain", "upstream request timeout"];
  }
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
      return [
        "application/json; charset=utf-8",
        JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: traceId, data: [] }),
      ];
  }
}
