// Public types of the webhooks emulator, written as plain TypeScript: this file imports nothing
// from a dependency, so the emulator's declaration files (`pulumi-webhook-endpoints/emulator`)
// type-check in any user program, whatever its module settings and without zod installed.
//
// The service's document leaves many behaviours unspecified; every such behaviour is an option so
// the client and the resource can be tested against each plausible reading instead of the one we
// happened to guess. Each option's validation, bounds and default live in the zod schema in
// ./options, which is bound to the interfaces here by compile-time exact-equality assertions (see
// the comment there): the two cannot drift apart.
import type { ApiWebhookRecord, ListRequestField } from "../api/contract";

// ---- the option vocabularies: each value list is the one source of its type ---------------------

/** Every fault kind, in the fixed order used for weighted choice (changing it changes seeded runs). */
export const FAULT_KINDS = [
  "server-error",
  "rate-limit",
  "latency",
  "reset-before",
  "drop-after-commit",
  "truncated",
  "malformed",
  "gateway-error",
] as const;
export const FILTER_MATCHES = ["exact", "partial", "ignored"] as const;
export const PAGING_STYLES = ["none", "cursor", "next-cursor", "has-more"] as const;
export const LIMIT_ABOVE_MAX = ["clamp", "error"] as const;
export const PAGE_LIMITS = ["honoured", "ignored"] as const;
export const TAKEN_NAME_ANSWERS = ["refuse", "existing"] as const;
export const ERROR_STYLES = ["http", "envelope-200"] as const;
export const ASCENDING_MODES = ["true-false-string", "asc-desc", "any", "ignored"] as const;
export const SORT_ORDERS = ["asc", "desc"] as const;
export const TRUNCATIONS = ["content-length", "chunked-end"] as const;
export const NAME_REWRITES = ["none", "trim", "lowercase"] as const;
export const URL_REWRITES = [
  "none",
  "href",
  "lowercase",
  "strip-trailing-slash",
  "add-trailing-slash",
] as const;
export const API_ROUTES = ["list", "create"] as const;

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
 * - `gateway-error`: processes (a create IS stored), then a gateway in front of the service answers
 *   instead of it: HTTP 503, 502 and 504 in turn, with a text body that is not the envelope
 *   (Envoy's "upstream connect error or disconnect/reset before headers...", nginx's 502 page,
 *   Envoy's "upstream request timeout").
 */
export type FaultKind = (typeof FAULT_KINDS)[number];
/** How `webhook_name` / `webhook_url` list filters compare against stored values. */
export type FilterMatch = (typeof FILTER_MATCHES)[number];
/** How the list operation continues past the first page. */
export type PagingStyle = (typeof PAGING_STYLES)[number];
/** What happens when a list request asks for more than `maxPageSize` records. */
export type LimitAboveMax = (typeof LIMIT_ABOVE_MAX)[number];
/** Whether the list request's `limit` sets the page size (see {@link EmulatorOptions.pageLimit}). */
export type PageLimit = (typeof PAGE_LIMITS)[number];
/**
 * What a create of a taken name gets, with `uniqueNames`: an error, or the endpoint that has it (an
 * idempotent create).
 */
export type TakenNameAnswer = (typeof TAKEN_NAME_ANSWERS)[number];
/** Where errors are reported: the HTTP status, or a non-"200" `code` inside an HTTP 200 envelope. */
export type ErrorStyle = (typeof ERROR_STYLES)[number];
/** Which values the list `ascending` field accepts. */
export type AscendingMode = (typeof ASCENDING_MODES)[number];
/** Order of list results by `webhook_id`. */
export type SortOrder = (typeof SORT_ORDERS)[number];
/** How the `truncated` fault cuts the body (see {@link RouteFaults.truncation}). */
export type Truncation = (typeof TRUNCATIONS)[number];
/** How the service rewrites `webhook_name` before storing it (see {@link RewriteOptions.name}). */
export type NameRewrite = (typeof NAME_REWRITES)[number];
/** How the service rewrites `webhook_url` before storing it (see {@link RewriteOptions.url}). */
export type UrlRewrite = (typeof URL_REWRITES)[number];
/** The two API operations. */
export type ApiRoute = (typeof API_ROUTES)[number];

/** An option value that cannot be used; the message names the option. */
export class EmulatorConfigError extends Error {
  override readonly name = "EmulatorConfigError";
}

// ---- options: what a caller passes (every field optional, `undefined` meaning "not given") -------

/** Identity stamped into `creator_*` and `operator_*` of created records. */
export interface Creator {
  /** Numeric id, as `creator_id` / `operator_id`: an integer from 0 to 2^53 - 1. */
  id: number;
  /** Name, as `creator_name` / `operator_name`: at most 256 characters. */
  name: string;
}

/** An extra token and the identity of the records it creates. */
export interface Principal {
  /** Another access token the service accepts (raw, or after `Bearer `). */
  token: string;
  /** Identity stamped into records created with this token. */
  creator: Creator;
}

/** Random fault injection for one route. */
export interface RouteFaults {
  /** Probability (0..1) that a request on this route gets a fault. */
  rate: number;
  /**
   * Relative weights of the fault kinds; kinds left out are never chosen. At least one weight must
   * be positive.
   * @default every kind with weight 1
   */
  kinds?: Partial<Record<FaultKind, number>> | undefined;
  /**
   * Value of the `Retry-After` header sent with `rate-limit`, in seconds.
   * @default 1
   */
  retryAfterSeconds?: number | undefined;
  /**
   * Delay of the `latency` fault, in milliseconds.
   * @default 3000
   */
  slowMs?: number | undefined;
  /**
   * How `truncated` cuts the body: `content-length` declares the full length, sends half and destroys
   * the socket (the client sees a network error while reading); `chunked-end` sends half with chunked
   * encoding and ends the response properly (the client sees invalid JSON).
   * @default "content-length"
   */
  truncation?: Truncation | undefined;
}

/** Random fault injection per route; a route left out gets no random faults. */
export interface FaultOptions {
  /** Random faults of the list operation; left out, none. */
  list?: RouteFaults | undefined;
  /** Random faults of the create operation; left out, none. */
  create?: RouteFaults | undefined;
}

/** How the service rewrites stored names and URLs. */
export interface RewriteOptions {
  /**
   * How the service rewrites `webhook_name` before storing it.
   * @default "none"
   */
  name?: NameRewrite | undefined;
  /**
   * How the service rewrites `webhook_url` before storing it. `href` stores `new URL(url).href`
   * (scheme and host lower-cased, "/" for an empty path).
   * @default "none"
   */
  url?: UrlRewrite | undefined;
}

/** Options of {@link startEmulator}. All are optional. */
export interface EmulatorOptions {
  /**
   * Name of an entry of `EMULATOR_PROFILES` applied first; the other options given here override it.
   * @default "default"
   */
  profile?: string | undefined;
  /**
   * TCP port; 0 picks a free one.
   * @default 0
   */
  port?: number | undefined;
  /**
   * Interface to listen on. On any but a loopback one (`127.0.0.1`, `::1`, `localhost`) an
   * `accessToken` other than the well-known default must be given.
   * @default "127.0.0.1"
   */
  host?: string | undefined;
  /**
   * Access token expected in `Authorization` (raw, or after `Bearer `). It never opens the admin
   * routes (only `adminToken` does). A request without it is answered 401 before its body is read.
   * @default "emulator-token" (on a loopback interface only)
   */
  accessToken?: string | undefined;
  /**
   * The one token that opens the admin routes under `/__emulator/`, sent in
   * `Authorization` (raw, or after `Bearer `).
   * @default 32 random hexadecimal characters, generated at start
   */
  adminToken?: string | undefined;
  /**
   * More principals: each token is accepted like `accessToken`, and records created with it carry
   * its creator. Tokens must differ from each other and from `accessToken`. At most 100.
   * @default []
   */
  principals?: Principal[] | undefined;
  /**
   * `exact`: equal strings; `partial`: case-sensitive substring; `ignored`: filters accepted but not applied.
   * An empty filter never filters. Filters compare against the stored (rewritten) values.
   * @default "exact"
   */
  filterMatch?: FilterMatch | undefined;
  /**
   * - `none`: cursor ignored, first `limit` records, no continuation field.
   * - `cursor`: `data.cursor` is an opaque non-empty string while more records remain, `""` when done.
   * - `next-cursor`: the same in `data.next_cursor`.
   * - `has-more`: `data.has_more`; the next request's `cursor` is the last record's `webhook_id` in decimal.
   * @default "cursor"
   */
  paging?: PagingStyle | undefined;
  /**
   * Page size (records) when `limit` is missing or 0; capped at `maxPageSize`.
   * @default 20
   */
  defaultPageSize?: number | undefined;
  /**
   * Largest page size (records), at most 10000.
   * @default 100
   */
  maxPageSize?: number | undefined;
  /**
   * Treatment of `limit` above `maxPageSize`: silently lowered, or a 400-class error.
   * @default "clamp"
   */
  limitAboveMax?: LimitAboveMax | undefined;
  /**
   * `honoured`: `limit` sets the page size (see `defaultPageSize`, `maxPageSize`, `limitAboveMax`);
   * `ignored`: `limit` is never looked at, and every page holds up to `defaultPageSize` records
   * (capped at `maxPageSize`): with `paging: "none"`, a silent page cap.
   * @default "honoured"
   */
  pageLimit?: PageLimit | undefined;
  /**
   * Refuse a create whose stored `webhook_name` already exists (code "40009", HTTP 409).
   * @default false
   */
  uniqueNames?: boolean | undefined;
  /**
   * With `uniqueNames`, what a create of a taken name gets: `refuse` (the error above), or
   * `existing`: code "200" and the endpoint that has the name, whoever created it, as an
   * idempotent create would answer (nothing is created).
   * @default "refuse"
   */
  takenName?: TakenNameAnswer | undefined;
  /**
   * `http`: 4xx/5xx status with an error envelope; `envelope-200`: HTTP 200 with a non-"200" `code`.
   * Applies to the two API paths only: unknown paths and methods always get a real 404/405.
   * @default "http"
   */
  errorStyle?: ErrorStyle | undefined;
  /**
   * Accepted `ascending` values. `true-false-string`: only "true"/"false"; `asc-desc`: only "asc"/"desc";
   * `any`: any string or boolean, unknown values mean `defaultOrder`; `ignored`: never looked at.
   * A missing `ascending` always means `defaultOrder`.
   * @default "any"
   */
  ascending?: AscendingMode | undefined;
  /**
   * Order by `webhook_id` when `ascending` is missing, unknown or ignored.
   * @default "asc"
   */
  defaultOrder?: SortOrder | undefined;
  /**
   * List body fields that must be present (not missing and not null).
   * @default []
   */
  requiredListFields?: ListField[] | undefined;
  /**
   * Longest `webhook_name`, in Unicode code points.
   * @default 128
   */
  maxNameLength?: number | undefined;
  /**
   * Longest `webhook_url`, in Unicode code points.
   * @default 2048
   */
  maxUrlLength?: number | undefined;
  /**
   * Largest request body, in bytes (413 above); at most 16 MiB.
   * @default 65536
   */
  maxBodyBytes?: number | undefined;
  /**
   * Identity recorded as creator and operator of records created with `accessToken`.
   * @default { id: 1001, name: "open-api" }
   */
  creator?: Creator | undefined;
  /**
   * How the service rewrites what it stores; list filters are rewritten the same way before they
   * are compared. Replaced as a whole by `configure`.
   * @default { name: "none", url: "none" }
   */
  rewrite?: RewriteOptions | undefined;
  /**
   * Delay added before every API response (not admin routes), in milliseconds, at most 60000. Like
   * the `latency` fault it starts once the body is read, and the request is processed even if the
   * client gave up.
   * @default 0
   */
  latencyMs?: number | undefined;
  /**
   * Clock for `create_time`, `operate_time` and the request log, in milliseconds since the epoch.
   * @default Date.now
   */
  now?: (() => number) | undefined;
  /**
   * JSON file (mode 0600) holding records and the next id: loaded at start when it exists,
   * rewritten atomically after every change.
   * @default undefined (memory only)
   */
  persistPath?: string | undefined;
  /**
   * Random fault injection per route. Replaced as a whole by `configure`.
   * @default {} (no random faults)
   */
  faults?: FaultOptions | undefined;
  /**
   * Seed of the fault PRNG; the same seed and request sequence give the same faults.
   * @default 1
   */
  seed?: number | undefined;
  /**
   * Most request-log entries kept, at most 100000; the oldest are dropped first.
   * @default 10000
   */
  requestLogLimit?: number | undefined;
}

// ---- resolved options: the same options once profile and defaults are applied -------------------

/** {@link RouteFaults} with its defaults applied. */
export interface ResolvedRouteFaults {
  rate: number;
  /** Relative weights of the fault kinds; left out, every kind with weight 1. */
  kinds?: Partial<Record<FaultKind, number>> | undefined;
  retryAfterSeconds: number;
  slowMs: number;
  truncation: Truncation;
}

/** {@link FaultOptions} with the defaults of each given route applied. */
export interface ResolvedFaultOptions {
  list?: ResolvedRouteFaults | undefined;
  create?: ResolvedRouteFaults | undefined;
}

/** {@link RewriteOptions} with its defaults applied. */
export interface ResolvedRewriteOptions {
  name: NameRewrite;
  url: UrlRewrite;
}

/**
 * Options after profile and defaults are applied: each field is documented on
 * {@link EmulatorOptions}. Only `persistPath` may be absent.
 */
export interface ResolvedOptions {
  port: number;
  host: string;
  accessToken: string;
  adminToken: string;
  principals: Principal[];
  filterMatch: FilterMatch;
  paging: PagingStyle;
  defaultPageSize: number;
  maxPageSize: number;
  limitAboveMax: LimitAboveMax;
  pageLimit: PageLimit;
  uniqueNames: boolean;
  takenName: TakenNameAnswer;
  errorStyle: ErrorStyle;
  ascending: AscendingMode;
  defaultOrder: SortOrder;
  requiredListFields: ListField[];
  maxNameLength: number;
  maxUrlLength: number;
  maxBodyBytes: number;
  creator: Creator;
  rewrite: ResolvedRewriteOptions;
  latencyMs: number;
  now: () => number;
  persistPath?: string | undefined;
  faults: ResolvedFaultOptions;
  seed: number;
  requestLogLimit: number;
}

/** Effective options, as returned by `Emulator.options()`: every token redacted, no clock. */
export type EffectiveOptions = Omit<ResolvedOptions, "accessToken" | "adminToken" | "principals" | "now"> & {
  accessToken: "<redacted>";
  adminToken: "<redacted>";
  principals: { token: "<redacted>"; creator: Creator }[];
};

// ---- the running emulator -------------------------------------------------------------------------

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
   * The address the server is bound to, as the operating system reports it: `loopback` when only
   * this machine can connect, `allInterfaces` for the wildcard addresses (`0.0.0.0`, `::`).
   */
  readonly bound: {
    address: string;
    family: string;
    port: number;
    loopback: boolean;
    allInterfaces: boolean;
  };
  /**
   * The one token that opens the admin routes (`/__emulator/...`) in `Authorization` (raw or
   * `Bearer `); the API access token never does.
   */
  readonly adminToken: string;
  /** Stored records, ascending `webhook_id`. */
  records(): WebhookRecord[];
  /** The request log, oldest first. */
  requests(): RequestLogEntry[];
  counters(): EmulatorCounters;
  /** Current effective options, with every token redacted. */
  options(): EffectiveOptions;
  /**
   * Clears records, request log, counters and injected faults and reseeds the PRNG; keeps options and the
   * id sequence.
   */
  reset(): void;
  /** Deletes a record as if on the service side; false when there is no such id. */
  removeRecord(id: number): boolean;
  /**
   * Changes a record as if on the service side (stored values rewritten as on create); undefined when there
   * is no such id.
   */
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
