// The emulator's options, written once: this zod schema is their TypeScript types (input and
// resolved), their validation with messages naming the option, their defaults and their upper
// bounds. Every number a caller can pass is bounded, so a typo or a hostile admin call cannot make
// the emulator allocate or wait without limit.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { LIST_REQUEST_FIELDS } from "../api/contract";

/** Every fault kind, in the fixed order used for weighted choice (changing it changes seeded runs). */
export const FAULT_KINDS = [
  "server-error",
  "rate-limit",
  "latency",
  "reset-before",
  "drop-after-commit",
  "truncated",
  "malformed",
] as const;

export const FILTER_MATCHES = ["exact", "partial", "ignored"] as const;
export const PAGING_STYLES = ["none", "cursor", "next-cursor", "has-more"] as const;
export const LIMIT_ABOVE_MAX = ["clamp", "error"] as const;
export const ERROR_STYLES = ["http", "envelope-200"] as const;
export const ASCENDING_MODES = ["true-false-string", "asc-desc", "any", "ignored"] as const;
export const SORT_ORDERS = ["asc", "desc"] as const;
export const TRUNCATIONS = ["content-length", "chunked-end"] as const;
export const NAME_REWRITES = ["none", "trim", "lowercase"] as const;
export const URL_REWRITES = ["none", "href", "lowercase", "strip-trailing-slash", "add-trailing-slash"] as const;
export const API_ROUTES = ["list", "create"] as const;

/** Upper bounds shared with the fault queue. */
export const LIMITS = Object.freeze({
  pageSize: 10_000,
  requestLog: 100_000,
  delayMs: 60_000,
  bodyBytes: 16 * 1024 * 1024,
  textLength: 65_536,
  tokenLength: 4096,
  principals: 100,
  retryAfterSeconds: 86_400,
  faultWeight: 1_000_000,
  /** Faults (and passing requests before them) one injection may queue. */
  injectCount: 10_000,
  /** Requests queued for one route by all injections together. */
  queuedPerRoute: 100_000,
});

// ---- leaf schemas: each carries the message a person needs, without the option's name ----------

function int(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}

function text(min: number, max: number) {
  const error = min > 0 ? `must be a non-empty string of at most ${max} characters` : `must be a string of at most ${max} characters`;
  return z.string({ error }).min(min, { error }).max(max, { error });
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });
}

function object<S extends z.core.$ZodLooseShape>(shape: S) {
  // Unknown keys keep zod's issue; the formatter below turns it into "x is not an emulator option".
  return z.strictObject(shape, { error: (issue) => (issue.code === "unrecognized_keys" ? undefined : "must be an object") });
}

const flag = z.boolean({ error: "must be a boolean" });
const clock = z.custom<() => number>((value) => typeof value === "function", { error: "must be a function" });

// ---- shapes: the TSDoc here is what users see on EmulatorOptions (the annotations below keep it) --

export const creatorShape = {
  /** Numeric id, as `creator_id` / `operator_id`. */
  id: int(0, Number.MAX_SAFE_INTEGER),
  /** Name, as `creator_name` / `operator_name`. */
  name: text(0, 256),
};
const creatorSchema: z.ZodObject<typeof creatorShape, z.core.$strict> = object(creatorShape);

export const principalShape = {
  /** Another access token the service accepts (raw, or after `Bearer `). */
  token: text(1, LIMITS.tokenLength),
  /** Identity stamped into records created with this token. */
  creator: creatorSchema,
};
const principalSchema: z.ZodObject<typeof principalShape, z.core.$strict> = object(principalShape);

export const routeFaultsShape = {
  /** Probability (0..1) that a request on this route gets a fault. */
  rate: z.number({ error: "must be a number from 0 to 1" }).min(0, { error: "must be a number from 0 to 1" }).max(1, { error: "must be a number from 0 to 1" }),
  /**
   * Relative weights of the fault kinds; kinds left out are never chosen. At least one weight must
   * be positive.
   * @default every kind with weight 1
   */
  kinds: z
    .partialRecord(oneOf(FAULT_KINDS), z.number({ error: `must be a number from 0 to ${LIMITS.faultWeight}` }).min(0).max(LIMITS.faultWeight))
    .refine((weights) => Object.values(weights).some((weight) => weight !== undefined && weight > 0), {
      error: "must give at least one kind a positive weight",
    })
    .optional(),
  /**
   * Value of the `Retry-After` header sent with `rate-limit`, in seconds.
   * @default 1
   */
  retryAfterSeconds: int(0, LIMITS.retryAfterSeconds).default(1),
  /**
   * Delay of the `latency` fault, in milliseconds.
   * @default 3000
   */
  slowMs: int(0, LIMITS.delayMs).default(3000),
  /**
   * How `truncated` cuts the body: `content-length` declares the full length, sends half and destroys
   * the socket (the client sees a network error while reading); `chunked-end` sends half with chunked
   * encoding and ends the response properly (the client sees invalid JSON).
   * @default "content-length"
   */
  truncation: oneOf(TRUNCATIONS).default("content-length"),
};
const routeFaultsSchema: z.ZodObject<typeof routeFaultsShape, z.core.$strict> = object(routeFaultsShape);

export const faultOptionsShape = {
  /** Random faults of the list operation; left out, none. */
  list: routeFaultsSchema.optional(),
  /** Random faults of the create operation; left out, none. */
  create: routeFaultsSchema.optional(),
};
const faultOptionsSchema: z.ZodObject<typeof faultOptionsShape, z.core.$strict> = object(faultOptionsShape);

export const rewriteShape = {
  /**
   * How the service rewrites `webhook_name` before storing it.
   * @default "none"
   */
  name: oneOf(NAME_REWRITES).default("none"),
  /**
   * How the service rewrites `webhook_url` before storing it. `href` stores `new URL(url).href`
   * (scheme and host lower-cased, "/" for an empty path).
   * @default "none"
   */
  url: oneOf(URL_REWRITES).default("none"),
};
const rewriteSchema: z.ZodObject<typeof rewriteShape, z.core.$strict> = object(rewriteShape);

export const optionsShape = {
  /**
   * Name of an entry of `EMULATOR_PROFILES` applied first; the other options given here override it.
   * @default "default"
   */
  profile: text(1, 128).optional(),
  /**
   * TCP port; 0 picks a free one.
   * @default 0
   */
  port: int(0, 65535).default(0),
  /**
   * Interface to listen on.
   * @default "127.0.0.1"
   */
  host: text(1, 253).default("127.0.0.1"),
  /**
   * Access token expected in `Authorization` (raw, or after `Bearer `). It also opens the admin routes.
   * @default "emulator-token"
   */
  accessToken: text(1, LIMITS.tokenLength).default("emulator-token"),
  /**
   * Token that opens the admin routes under `/__emulator/` (as does `accessToken`), sent in
   * `Authorization` (raw, or after `Bearer `).
   * @default 32 random hexadecimal characters, generated at start
   */
  adminToken: text(1, LIMITS.tokenLength).default(() => randomBytes(16).toString("hex")),
  /**
   * More principals: each token is accepted like `accessToken`, and records created with it carry
   * its creator. Tokens must differ from each other and from `accessToken`.
   * @default []
   */
  principals: z.array(principalSchema, { error: "must be an array" }).max(LIMITS.principals, { error: `must have at most ${LIMITS.principals} entries` }).default([]),
  /**
   * `exact`: equal strings; `partial`: case-sensitive substring; `ignored`: filters accepted but not applied.
   * An empty filter never filters. Filters compare against the stored (rewritten) values.
   * @default "exact"
   */
  filterMatch: oneOf(FILTER_MATCHES).default("exact"),
  /**
   * - `none`: cursor ignored, first `limit` records, no continuation field.
   * - `cursor`: `data.cursor` is an opaque non-empty string while more records remain, `""` when done.
   * - `next-cursor`: the same in `data.next_cursor`.
   * - `has-more`: `data.has_more`; the next request's `cursor` is the last record's `webhook_id` in decimal.
   * @default "cursor"
   */
  paging: oneOf(PAGING_STYLES).default("cursor"),
  /**
   * Page size (records) when `limit` is missing or 0; capped at `maxPageSize`.
   * @default 20
   */
  defaultPageSize: int(1, LIMITS.pageSize).default(20),
  /**
   * Largest page size (records).
   * @default 100
   */
  maxPageSize: int(1, LIMITS.pageSize).default(100),
  /**
   * Treatment of `limit` above `maxPageSize`: silently lowered, or a 400-class error.
   * @default "clamp"
   */
  limitAboveMax: oneOf(LIMIT_ABOVE_MAX).default("clamp"),
  /**
   * Refuse a create whose stored `webhook_name` already exists (code "40009", HTTP 409).
   * @default false
   */
  uniqueNames: flag.default(false),
  /**
   * `http`: 4xx/5xx status with an error envelope; `envelope-200`: HTTP 200 with a non-"200" `code`.
   * Applies to the two API paths only: unknown paths and methods always get a real 404/405.
   * @default "http"
   */
  errorStyle: oneOf(ERROR_STYLES).default("http"),
  /**
   * Accepted `ascending` values. `true-false-string`: only "true"/"false"; `asc-desc`: only "asc"/"desc";
   * `any`: any string or boolean, unknown values mean `defaultOrder`; `ignored`: never looked at.
   * A missing `ascending` always means `defaultOrder`.
   * @default "any"
   */
  ascending: oneOf(ASCENDING_MODES).default("any"),
  /**
   * Order by `webhook_id` when `ascending` is missing, unknown or ignored.
   * @default "asc"
   */
  defaultOrder: oneOf(SORT_ORDERS).default("asc"),
  /**
   * List body fields that must be present (not missing and not null).
   * @default []
   */
  requiredListFields: z
    .array(oneOf(LIST_REQUEST_FIELDS), { error: "must be an array" })
    .max(LIST_REQUEST_FIELDS.length, { error: `must have at most ${LIST_REQUEST_FIELDS.length} entries` })
    .default([]),
  /**
   * Longest `webhook_name`, in Unicode code points.
   * @default 128
   */
  maxNameLength: int(1, LIMITS.textLength).default(128),
  /**
   * Longest `webhook_url`, in Unicode code points.
   * @default 2048
   */
  maxUrlLength: int(1, LIMITS.textLength).default(2048),
  /**
   * Largest request body, in bytes (413 above); at most 16 MiB.
   * @default 65536
   */
  maxBodyBytes: int(1, LIMITS.bodyBytes).default(65536),
  /**
   * Identity recorded as creator and operator of records created with `accessToken`.
   * @default { id: 1001, name: "open-api" }
   */
  creator: creatorSchema.default({ id: 1001, name: "open-api" }),
  /**
   * How the service rewrites what it stores; list filters are rewritten the same way before they
   * are compared. Replaced as a whole by `configure`.
   * @default { name: "none", url: "none" }
   */
  rewrite: rewriteSchema.default({ name: "none", url: "none" }),
  /**
   * Delay added before every API response (not admin routes), in milliseconds. Like the `latency`
   * fault it starts once the body is read, and the request is processed even if the client gave up.
   * @default 0
   */
  latencyMs: int(0, LIMITS.delayMs).default(0),
  /**
   * Clock for `create_time`, `operate_time` and the request log, in milliseconds since the epoch.
   * @default Date.now
   */
  now: clock.default(() => Date.now),
  /**
   * JSON file (mode 0600) holding records and the next id: loaded at start when it exists,
   * rewritten atomically after every change.
   * @default undefined (memory only)
   */
  persistPath: text(1, 4096).optional(),
  /**
   * Random fault injection per route. Replaced as a whole by `configure`.
   * @default {} (no random faults)
   */
  faults: faultOptionsSchema.default({}),
  /**
   * Seed of the fault PRNG; the same seed and request sequence give the same faults.
   * @default 1
   */
  seed: int(0, 0xffffffff).default(1),
  /**
   * Most request-log entries kept; the oldest are dropped first.
   * @default 10000
   */
  requestLogLimit: int(0, LIMITS.requestLog).default(10000),
};
export const optionsSchema: z.ZodObject<typeof optionsShape, z.core.$strict> = object(optionsShape);

export const injectionShape = {
  route: oneOf(API_ROUTES),
  kind: oneOf(FAULT_KINDS),
  /** How many requests get the fault. @default 1 */
  count: int(0, LIMITS.injectCount).default(1),
  /** How many requests of the route pass first, once the faults queued before are used. @default 0 */
  after: int(0, LIMITS.injectCount).default(0),
};
/** An `injectNext` call, as the admin route receives it. */
export const injectionSchema: z.ZodObject<typeof injectionShape, z.core.$strict> = object(injectionShape);

// ---- the types, all derived from the schema ------------------------------------------------------

/** Options of {@link startEmulator}. All are optional. */
export type EmulatorOptions = z.input<typeof optionsSchema>;
/** Options after profile and defaults are applied. */
export type ResolvedOptions = Omit<z.output<typeof optionsSchema>, "profile">;
/** Random fault injection for one route. */
export type RouteFaults = z.input<typeof routeFaultsSchema>;
/** Random fault injection per route; a route left out gets no random faults. */
export type FaultOptions = z.input<typeof faultOptionsSchema>;
/** Identity stamped into `creator_*` and `operator_*` of created records. */
export type Creator = z.output<typeof creatorSchema>;
/** An extra token and the identity of the records it creates. */
export type Principal = z.output<typeof principalSchema>;
/** How the service rewrites stored names and URLs. */
export type RewriteOptions = z.input<typeof rewriteSchema>;
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
export type FaultKind = (typeof FAULT_KINDS)[number];
/** How `webhook_name` / `webhook_url` list filters compare against stored values. */
export type FilterMatch = (typeof FILTER_MATCHES)[number];
/** How the list operation continues past the first page. */
export type PagingStyle = (typeof PAGING_STYLES)[number];
/** What happens when a list request asks for more than `maxPageSize` records. */
export type LimitAboveMax = (typeof LIMIT_ABOVE_MAX)[number];
/** Where errors are reported: the HTTP status, or a non-"200" `code` inside an HTTP 200 envelope. */
export type ErrorStyle = (typeof ERROR_STYLES)[number];
/** Which values the list `ascending` field accepts. */
export type AscendingMode = (typeof ASCENDING_MODES)[number];
/** Order of list results by `webhook_id`. */
export type SortOrder = (typeof SORT_ORDERS)[number];
export type NameRewrite = (typeof NAME_REWRITES)[number];
export type UrlRewrite = (typeof URL_REWRITES)[number];
/** The two API operations. */
export type ApiRoute = (typeof API_ROUTES)[number];
