// Public types of the webhooks emulator. The service's document leaves many behaviours unspecified;
// every such behaviour is an option (see ./options, whose schema the option types come from) so the
// client and the resource can be tested against each plausible reading instead of the one we
// happened to guess.
import type { ApiWebhookRecord, ListRequestField } from "../api/contract";
import type { ApiRoute, EmulatorOptions, FaultKind } from "./options";
import type { EffectiveOptions } from "./resolve";

export type {
  ApiRoute,
  AscendingMode,
  Creator,
  EmulatorOptions,
  ErrorStyle,
  FaultKind,
  FaultOptions,
  FilterMatch,
  LimitAboveMax,
  NameRewrite,
  PagingStyle,
  Principal,
  ResolvedOptions,
  RewriteOptions,
  RouteFaults,
  SortOrder,
  UrlRewrite,
} from "./options";
export type { EffectiveOptions } from "./resolve";

/** Fields of a list request body (used by {@link EmulatorOptions.requiredListFields}). */
export type ListField = ListRequestField;

/** A stored webhook endpoint, exactly as the API returns it. */
export type WebhookRecord = ApiWebhookRecord;

/** Input of {@link Emulator.addRecord} and of the create operation. */
export interface WebhookInput {
  webhook_name: string;
  webhook_url: string;
}

/** Service-side change applied by {@link Emulator.updateRecord}; `operate_time` is set to now. */
export interface WebhookRecordPatch {
  webhook_name?: string;
  webhook_url?: string;
  sign_secret?: string;
  operator_id?: number;
  operator_name?: string;
}

/** Options of {@link Emulator.injectNext}. */
export interface InjectOptions {
  /**
   * Requests of the route that pass (subject only to random faults) before the injected faults
   * apply, counted once the faults queued before this call have been used. At most 10000.
   * @default 0
   */
  after?: number;
}

/** One entry of the request log. The access token is never stored. */
export interface RequestLogEntry {
  /** 1-based sequence number, never reused (not even after `reset`). */
  seq: number;
  /** Milliseconds since the epoch, from the `now` option. */
  time: number;
  method: string;
  path: string;
  route: ApiRoute | "other";
  /** HTTP status sent; 0 when the socket was destroyed without a response. */
  status: number;
  /** Parsed JSON body; null when absent or not JSON. */
  body: unknown;
  authorization: "<redacted>" | "<missing>";
  trace_id: string;
  fault?: FaultKind;
}

/** Request and fault counts since start or the last `reset`. */
export interface EmulatorCounters {
  list: number;
  create: number;
  other: number;
  total: number;
  faults: Record<FaultKind, number>;
  /** Records created through the API create operation (not `addRecord`). */
  created: number;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  readonly port: number;
  /**
   * The token that opens the admin routes (`/__emulator/...`) in `Authorization` (raw or
   * `Bearer `); the API access token opens them too.
   */
  readonly adminToken: string;
  /** Stored records, ascending `webhook_id`. */
  records(): WebhookRecord[];
  /** The request log, oldest first. */
  requests(): RequestLogEntry[];
  counters(): EmulatorCounters;
  /** Current effective options, with every token redacted. */
  options(): EffectiveOptions;
  /** Clears records, request log, counters and injected faults and reseeds the PRNG; keeps options and the id sequence. */
  reset(): void;
  /** Deletes a record as if on the service side; false when there is no such id. */
  removeRecord(id: number): boolean;
  /** Changes a record as if on the service side (stored values rewritten as on create); undefined when there is no such id. */
  updateRecord(id: number, patch: WebhookRecordPatch): WebhookRecord | undefined;
  /** Creates a record with the create validation and rewrite rules, bypassing faults, latency, log and counters. */
  addRecord(input: WebhookInput): WebhookRecord;
  /** Changes options at run time; `port`, `host` and `persistPath` cannot change. */
  configure(options: Partial<EmulatorOptions>): void;
  /**
   * Queues `count` faults of `kind` for the next requests on a route; they apply before random
   * faults. `count` and `options.after` are at most 10000 each.
   */
  injectNext(route: ApiRoute, kind: FaultKind, count?: number, options?: InjectOptions): void;
  /** Stops listening and destroys every connection, keep-alive ones included. */
  close(): Promise<void>;
}
