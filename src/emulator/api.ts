// The two API routes over HTTP: log the request, check the Host and the token from the headers
// (a request without a valid token is answered before its body is read, and nothing of it is
// kept), decide its fault, read the body, wait the configured latency, check the content type, run
// the operation, send the outcome (or break it, as the fault says).
import type http from "node:http";
import { deliver, failBeforeProcessing, PRE_PROCESSING_FAULTS, type FaultPlanner } from "./faults";
import type { Journal } from "./journal";
import { createWebhook, listWebhooks, parseCreate } from "./operations";
import type { ApiRoute, Creator, ResolvedOptions } from "./options";
import {
  ApiError,
  CREATE_PATH,
  LIST_PATH,
  namesLoopbackHost,
  apiErrors,
  bodyObject,
  errorOutcome,
  isJsonContentType,
  loggedBody,
  parseJsonBody,
  presentsToken,
  successOutcome,
  type JsonBody,
  type Outcome,
} from "./protocol";
import type { Exchange, ReceivedBody } from "./server";
import type { WebhookStore } from "./store";

/** What the API routes work on: the emulator's state, options read afresh at each step. */
export interface ApiState {
  readonly settings: ResolvedOptions;
  readonly store: WebhookStore;
  readonly planner: FaultPlanner;
  readonly journal: Journal;
  /** Bound to loopback only: then only requests naming a loopback Host are answered. */
  readonly loopbackOnly: boolean;
}

export async function serveApi(state: ApiState, exchange: Exchange): Promise<void> {
  const { req, res, path, traceId } = exchange;
  const route = apiRoute(req.method, path);
  const entry = state.journal.begin(req, path, route, traceId, state.settings.now());

  if (state.loopbackOnly && !namesLoopbackHost(req)) {
    // Before the body is read and anything is run: a DNS-rebinding page gets nothing, not even a listing.
    exchange.discard();
    deliver(res, entry, errorOutcome(apiErrors.foreignHost(), traceId, "http"));
    return;
  }
  // From the headers alone: whoever cannot present a token makes the emulator read, parse and keep
  // nothing (2,000 unauthenticated 64 KiB bodies once held 2.9 GB in the request log).
  const creator = principal(req.headers.authorization, state.settings);

  if (route === "other") {
    // Unknown paths and methods are the gateway's business, so they stay real HTTP errors even
    // when the service reports its own errors inside HTTP 200.
    const error =
      path === LIST_PATH || path === CREATE_PATH ? apiErrors.methodNotAllowed() : apiErrors.notFound();
    if (creator === undefined) exchange.discard();
    else entry.body = loggedBody(parseJsonBody((await exchange.receive()).bytes));
    deliver(res, entry, errorOutcome(error, traceId, "http"));
    return;
  }
  if (creator === undefined) {
    // No fault and no latency either: those play the service at work, and it does no work for this.
    exchange.discard();
    deliver(res, entry, errorOutcome(apiErrors.unauthorized(), traceId, state.settings.errorStyle));
    return;
  }

  const faults = state.settings.faults[route];
  const fault = state.planner.decide(route, faults);
  const faultsSoFar = fault === undefined ? 0 : state.journal.countFault(entry, fault);
  const received = await exchange.receive();
  const body = parseJsonBody(received.bytes);
  entry.body = loggedBody(body);
  // The delay comes after the body is in: a slow service keeps working on a request whose client
  // gave up waiting, which is exactly the ambiguous case clients must survive.
  const extraDelay = fault === "latency" ? (faults?.slowMs ?? 0) : 0;
  await exchange.pause(state.settings.latencyMs + extraDelay);

  if (fault !== undefined && PRE_PROCESSING_FAULTS.has(fault)) {
    failBeforeProcessing(res, entry, fault, faults, state.settings.errorStyle, faultsSoFar);
    return;
  }
  const outcome = process(state, route, req, creator, received, body, traceId);
  deliver(res, entry, outcome, fault, faults, faultsSoFar);
}

function apiRoute(method: string | undefined, path: string): ApiRoute | "other" {
  if (method !== "POST") return "other";
  if (path === LIST_PATH) return "list";
  if (path === CREATE_PATH) return "create";
  return "other";
}

function process(
  state: ApiState,
  route: ApiRoute,
  req: http.IncomingMessage,
  creator: Creator,
  received: ReceivedBody,
  body: JsonBody,
  traceId: string,
): Outcome {
  const options = state.settings;
  try {
    if (received.tooLarge) throw apiErrors.payloadTooLarge(received.limit);
    if (!isJsonContentType(req.headers["content-type"])) throw apiErrors.unsupportedMediaType();
    const fields = bodyObject(body);
    if (route === "list") return successOutcome("list", traceId, listWebhooks(fields, options, state.store));
    const record = createWebhook(parseCreate(fields, options), options, state.store, creator, options.now());
    state.journal.countCreated();
    return successOutcome("create", traceId, record);
  } catch (error) {
    if (error instanceof ApiError) return errorOutcome(error, traceId, options.errorStyle);
    throw error;
  }
}

/** The identity a request's token stands for: the main creator, a principal's, or none. */
function principal(authorization: string | undefined, options: ResolvedOptions): Creator | undefined {
  if (presentsToken(authorization, options.accessToken)) return options.creator;
  return options.principals.find((candidate) => presentsToken(authorization, candidate.token))?.creator;
}
