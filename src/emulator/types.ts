// Public types of the webhooks emulator. The service's document leaves many behaviours unspecified;
// every such behaviour is an option here so the client and the resource can be tested against each
// plausible reading instead of the one we happened to guess.

/** How `webhook_name` / `webhook_url` list filters compare against stored values. */
export type FilterMatch = "exact" | "partial" | "ignored";

/** How the list operation continues past the first page. */
export type PagingStyle = "none" | "cursor" | "next-cursor" | "has-more";

/** What happens when a list request asks for more than `maxPageSize` records. */
export type LimitAboveMax = "clamp" | "error";

/** Where errors are reported: the HTTP status, or a non-"200" `code` inside an HTTP 200 envelope. */
export type ErrorStyle = "http" | "envelope-200";

/** Which values the list `ascending` field accepts. */
export type AscendingMode = "true-false-string" | "asc-desc" | "any" | "ignored";

/** Order of list results by `webhook_id`. */
export type SortOrder = "asc" | "desc";

/** The two API operations. */
export type ApiRoute = "list" | "create";

/** Fields of a list request body (used by {@link EmulatorOptions.requiredListFields}). */
export type ListField = "cursor" | "limit" | "webhook_name" | "webhook_url" | "ascending";

/**
 * Injectable failures.
 * - `server-error`: HTTP 500 or 503 (alternating, starting with 500) with an error envelope; nothing processed.
 * - `rate-limit`: HTTP 429 with a `Retry-After` header; nothing processed.
 * - `latency`: waits {@link RouteFaults.slowMs} after reading the body, then processes normally, even
 *   if the client has gone away meanwhile (a create is then stored without anyone seeing the answer).
 * - `reset-before`: destroys the socket before processing; nothing stored.
 * - `drop-after-commit`: processes (a create IS stored), then destroys the socket without a response.
 * - `truncated`: processes (a create IS stored), then sends half the body (see {@link RouteFaults.truncation}).
 * - `malformed`: processes (a create IS stored), then answers HTTP 200 with a body that is not the
 *   documented envelope; rotates through `<html>`, `{"code":200,"data":"oops"}` and an envelope whose
 *   `data` is an empty array.
 */
export type FaultKind =
  | "server-error"
  | "rate-limit"
  | "latency"
  | "reset-before"
  | "drop-after-commit"
  | "truncated"
  | "malformed";

/** Random fault injection for one route. */
export interface RouteFaults {
  /** Probability (0..1) that a request on this route gets a fault. */
  rate: number;
  /**
   * Relative weights of the fault kinds; kinds left out are never chosen.
   * @default every kind with weight 1
   */
  kinds?: Partial<Record<FaultKind, number>>;
  /**
   * Value of the `Retry-After` header sent with `rate-limit`, in seconds.
   * @default 1
   */
  retryAfterSeconds?: number;
  /**
   * Delay of the `latency` fault, in milliseconds.
   * @default 3000
   */
  slowMs?: number;
  /**
   * How `truncated` cuts the body: `content-length` declares the full length, sends half and destroys
   * the socket (the client sees a network error while reading); `chunked-end` sends half with chunked
   * encoding and ends the response properly (the client sees invalid JSON).
   * @default "content-length"
   */
  truncation?: "content-length" | "chunked-end";
}

/** Random fault injection per route; a route left out gets no random faults. */
export interface FaultOptions {
  list?: RouteFaults;
  create?: RouteFaults;
}

/** Identity stamped into `creator_*` and `operator_*` of created records. */
export interface Creator {
  id: number;
  name: string;
}

/** A stored webhook endpoint, exactly as the API returns it. */
export interface WebhookRecord {
  webhook_id: number;
  webhook_name: string;
  webhook_url: string;
  sign_secret: string;
  creator_id: number;
  creator_name: string;
  /** Milliseconds since the Unix epoch. */
  create_time: number;
  operator_id: number;
  operator_name: string;
  /** Milliseconds since the Unix epoch. */
  operate_time: number;
}

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

/** Options of {@link startEmulator}. All are optional. */
export interface EmulatorOptions {
  /**
   * Name of an entry of `EMULATOR_PROFILES` applied first; the other options given here override it.
   * @default "default"
   */
  profile?: string;
  /**
   * TCP port; 0 picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * Interface to listen on.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Access token expected in `Authorization` (raw, or after `Bearer `).
   * @default "emulator-token"
   */
  accessToken?: string;
  /**
   * `exact`: equal strings; `partial`: case-sensitive substring; `ignored`: filters accepted but not applied.
   * An empty filter never filters.
   * @default "exact"
   */
  filterMatch?: FilterMatch;
  /**
   * - `none`: cursor ignored, first `limit` records, no continuation field.
   * - `cursor`: `data.cursor` is an opaque non-empty string while more records remain, `""` when done.
   * - `next-cursor`: the same in `data.next_cursor`.
   * - `has-more`: `data.has_more`; the next request's `cursor` is the last record's `webhook_id` in decimal.
   * @default "cursor"
   */
  paging?: PagingStyle;
  /**
   * Page size (records) when `limit` is missing or 0; capped at `maxPageSize`.
   * @default 20
   */
  defaultPageSize?: number;
  /**
   * Largest page size (records).
   * @default 100
   */
  maxPageSize?: number;
  /**
   * Treatment of `limit` above `maxPageSize`: silently lowered, or a 400-class error.
   * @default "clamp"
   */
  limitAboveMax?: LimitAboveMax;
  /**
   * Refuse a create whose `webhook_name` already exists (code "40009", HTTP 409).
   * @default false
   */
  uniqueNames?: boolean;
  /**
   * `http`: 4xx/5xx status with an error envelope; `envelope-200`: HTTP 200 with a non-"200" `code`.
   * Applies to the two API paths only: unknown paths and methods always get a real 404/405.
   * @default "http"
   */
  errorStyle?: ErrorStyle;
  /**
   * Accepted `ascending` values. `true-false-string`: only "true"/"false"; `asc-desc`: only "asc"/"desc";
   * `any`: any string or boolean, unknown values mean `defaultOrder`; `ignored`: never looked at.
   * A missing `ascending` always means `defaultOrder`.
   * @default "any"
   */
  ascending?: AscendingMode;
  /**
   * Order by `webhook_id` when `ascending` is missing, unknown or ignored.
   * @default "asc"
   */
  defaultOrder?: SortOrder;
  /**
   * List body fields that must be present (not missing and not null).
   * @default []
   */
  requiredListFields?: ListField[];
  /**
   * Longest `webhook_name`, in Unicode code points.
   * @default 128
   */
  maxNameLength?: number;
  /**
   * Longest `webhook_url`, in Unicode code points.
   * @default 2048
   */
  maxUrlLength?: number;
  /**
   * Largest request body, in bytes (413 above).
   * @default 65536
   */
  maxBodyBytes?: number;
  /**
   * Identity recorded as creator and operator of created records.
   * @default { id: 1001, name: "open-api" }
   */
  creator?: Creator;
  /**
   * Delay added before every API response (not admin routes), in milliseconds. Like the `latency`
   * fault it starts once the body is read, and the request is processed even if the client gave up.
   * @default 0
   */
  latencyMs?: number;
  /**
   * Clock for `create_time`, `operate_time` and the request log, in milliseconds since the epoch.
   * @default Date.now
   */
  now?: () => number;
  /**
   * JSON file holding records and the next id: loaded at start when it exists, rewritten atomically
   * after every change.
   * @default undefined (memory only)
   */
  persistPath?: string;
  /**
   * Random fault injection per route.
   * @default {} (no random faults)
   */
  faults?: FaultOptions;
  /**
   * Seed of the fault PRNG; the same seed and request sequence give the same faults.
   * @default 1
   */
  seed?: number;
  /**
   * Most request-log entries kept; the oldest are dropped first.
   * @default 10000
   */
  requestLogLimit?: number;
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

/** Effective options, as returned by {@link Emulator.options}; the token is redacted. */
export type EffectiveOptions = Omit<ResolvedOptions, "accessToken" | "now"> & { accessToken: "<redacted>" };

/** Options after profile and defaults are applied. */
export interface ResolvedOptions {
  port: number;
  host: string;
  accessToken: string;
  filterMatch: FilterMatch;
  paging: PagingStyle;
  defaultPageSize: number;
  maxPageSize: number;
  limitAboveMax: LimitAboveMax;
  uniqueNames: boolean;
  errorStyle: ErrorStyle;
  ascending: AscendingMode;
  defaultOrder: SortOrder;
  requiredListFields: ListField[];
  maxNameLength: number;
  maxUrlLength: number;
  maxBodyBytes: number;
  creator: Creator;
  latencyMs: number;
  now: () => number;
  persistPath: string | undefined;
  faults: FaultOptions;
  seed: number;
  requestLogLimit: number;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  readonly port: number;
  /** Stored records, ascending `webhook_id`. */
  records(): WebhookRecord[];
  /** The request log, oldest first. */
  requests(): RequestLogEntry[];
  counters(): EmulatorCounters;
  /** Current effective options, with the token redacted. */
  options(): EffectiveOptions;
  /** Clears records, request log, counters and injected faults and reseeds the PRNG; keeps options and the id sequence. */
  reset(): void;
  /** Deletes a record as if on the service side; false when there is no such id. */
  removeRecord(id: number): boolean;
  /** Changes a record as if on the service side; undefined when there is no such id. */
  updateRecord(id: number, patch: WebhookRecordPatch): WebhookRecord | undefined;
  /** Creates a record with the create validation rules, bypassing faults, latency, log and counters. */
  addRecord(input: WebhookInput): WebhookRecord;
  /** Changes options at run time; `port`, `host` and `persistPath` cannot change. */
  configure(options: Partial<EmulatorOptions>): void;
  /** Queues faults for the next requests on a route; they apply before random faults. */
  injectNext(route: ApiRoute, kind: FaultKind, count?: number): void;
  /** Stops listening and destroys every connection, keep-alive ones included. */
  close(): Promise<void>;
}
