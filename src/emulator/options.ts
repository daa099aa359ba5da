// The emulator's options, written once, in two halves that the compiler holds together:
// - ./types declares them as plain TypeScript interfaces (`EmulatorOptions`, `ResolvedOptions` and
//   the nested ones), with their TSDoc and `@default`s: that is what users import, hover and read,
//   and it needs nothing but TypeScript;
// - this zod schema is their validation with messages naming the option, their defaults and their
//   upper bounds. Every number a caller can pass is bounded, so a typo or a hostile admin call
//   cannot make the emulator allocate or wait without limit.
//
// Why not derive the public types from the schema (`z.input<typeof optionsSchema>`), as before? Then
// the emulator's declaration files import zod: every user program type-checks zod's own .d.ts
// files, which fail under classic settings (`module: commonjs`, `moduleResolution: node`, no
// `esModuleInterop`, no `skipLibCheck`), and hovers show zod's machinery instead of the option
// docs. Why not generate the interfaces from the schema at build time? A generator would be one
// more tool and build step, and could not express `now: () => number` or keep the docs by the
// options. So the interfaces are written by hand once, and the assertions at the end of this file
// say, at compile time, that the schema's input type IS `EmulatorOptions` and its output type IS
// `ResolvedOptions` (plus `profile`), exactly, field by field and at every depth: an option added,
// renamed, made required, given another type or another default-ness on one side only does not
// compile. The `@default` texts are checked against the schema's real defaults by
// test/types/documented-defaults.test.ts.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { LIST_REQUEST_FIELDS } from "../api/contract";
import {
  API_ROUTES,
  ASCENDING_MODES,
  ERROR_STYLES,
  FAULT_KINDS,
  FILTER_MATCHES,
  LIMIT_ABOVE_MAX,
  NAME_REWRITES,
  PAGE_LIMITS,
  PAGING_STYLES,
  SORT_ORDERS,
  TAKEN_NAME_ANSWERS,
  TRUNCATIONS,
  URL_REWRITES,
  type Creator,
  type EmulatorOptions,
  type FaultOptions,
  type Principal,
  type ResolvedFaultOptions,
  type ResolvedOptions,
  type ResolvedRewriteOptions,
  type ResolvedRouteFaults,
  type RewriteOptions,
  type RouteFaults,
} from "./types";

export {
  API_ROUTES,
  ASCENDING_MODES,
  ERROR_STYLES,
  FAULT_KINDS,
  FILTER_MATCHES,
  LIMIT_ABOVE_MAX,
  NAME_REWRITES,
  PAGE_LIMITS,
  PAGING_STYLES,
  SORT_ORDERS,
  TAKEN_NAME_ANSWERS,
  TRUNCATIONS,
  URL_REWRITES,
};
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
  PageLimit,
  PagingStyle,
  Principal,
  ResolvedOptions,
  RewriteOptions,
  RouteFaults,
  SortOrder,
  Truncation,
  UrlRewrite,
} from "./types";

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
  const error =
    min > 0
      ? `must be a non-empty string of at most ${max} characters`
      : `must be a string of at most ${max} characters`;
  return z.string({ error }).min(min, { error }).max(max, { error });
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });
}

function object<S extends z.core.$ZodLooseShape>(shape: S) {
  // Unknown keys keep zod's issue; the formatter below turns it into "x is not an emulator option".
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? undefined : "must be an object"),
  });
}

const flag = z.boolean({ error: "must be a boolean" });
const clock = z.custom<() => number>((value) => typeof value === "function", { error: "must be a function" });

// ---- shapes: one per public interface of ./types, where each option is documented -------------

export const creatorShape = {
  id: int(0, Number.MAX_SAFE_INTEGER),
  name: text(0, 256),
};
const creatorSchema: z.ZodObject<typeof creatorShape, z.core.$strict> = object(creatorShape);

export const principalShape = {
  token: text(1, LIMITS.tokenLength),
  creator: creatorSchema,
};
const principalSchema: z.ZodObject<typeof principalShape, z.core.$strict> = object(principalShape);

export const routeFaultsShape = {
  rate: z
    .number({ error: "must be a number from 0 to 1" })
    .min(0, { error: "must be a number from 0 to 1" })
    .max(1, { error: "must be a number from 0 to 1" }),
  kinds: z
    .partialRecord(
      oneOf(FAULT_KINDS),
      z
        .number({ error: `must be a number from 0 to ${LIMITS.faultWeight}` })
        .min(0)
        .max(LIMITS.faultWeight),
    )
    .refine((weights) => Object.values(weights).some((weight) => weight !== undefined && weight > 0), {
      error: "must give at least one kind a positive weight",
    })
    .optional(),
  retryAfterSeconds: int(0, LIMITS.retryAfterSeconds).default(1),
  slowMs: int(0, LIMITS.delayMs).default(3000),
  truncation: oneOf(TRUNCATIONS).default("content-length"),
};
const routeFaultsSchema: z.ZodObject<typeof routeFaultsShape, z.core.$strict> = object(routeFaultsShape);

export const faultOptionsShape = {
  list: routeFaultsSchema.optional(),
  create: routeFaultsSchema.optional(),
};
const faultOptionsSchema: z.ZodObject<typeof faultOptionsShape, z.core.$strict> = object(faultOptionsShape);

export const rewriteShape = {
  name: oneOf(NAME_REWRITES).default("none"),
  url: oneOf(URL_REWRITES).default("none"),
};
const rewriteSchema: z.ZodObject<typeof rewriteShape, z.core.$strict> = object(rewriteShape);

export const optionsShape = {
  profile: text(1, 128).optional(),
  port: int(0, 65535).default(0),
  host: text(1, 253).default("127.0.0.1"),
  accessToken: text(1, LIMITS.tokenLength).default("emulator-token"),
  adminToken: text(1, LIMITS.tokenLength).default(() => randomBytes(16).toString("hex")),
  principals: z
    .array(principalSchema, { error: "must be an array" })
    .max(LIMITS.principals, { error: `must have at most ${LIMITS.principals} entries` })
    .default([]),
  filterMatch: oneOf(FILTER_MATCHES).default("exact"),
  paging: oneOf(PAGING_STYLES).default("cursor"),
  defaultPageSize: int(1, LIMITS.pageSize).default(20),
  maxPageSize: int(1, LIMITS.pageSize).default(100),
  limitAboveMax: oneOf(LIMIT_ABOVE_MAX).default("clamp"),
  pageLimit: oneOf(PAGE_LIMITS).default("honoured"),
  uniqueNames: flag.default(false),
  takenName: oneOf(TAKEN_NAME_ANSWERS).default("refuse"),
  errorStyle: oneOf(ERROR_STYLES).default("http"),
  ascending: oneOf(ASCENDING_MODES).default("any"),
  defaultOrder: oneOf(SORT_ORDERS).default("asc"),
  requiredListFields: z
    .array(oneOf(LIST_REQUEST_FIELDS), { error: "must be an array" })
    .max(LIST_REQUEST_FIELDS.length, { error: `must have at most ${LIST_REQUEST_FIELDS.length} entries` })
    .default([]),
  maxNameLength: int(1, LIMITS.textLength).default(128),
  maxUrlLength: int(1, LIMITS.textLength).default(2048),
  maxBodyBytes: int(1, LIMITS.bodyBytes).default(65536),
  creator: creatorSchema.default({ id: 1001, name: "open-api" }),
  rewrite: rewriteSchema.default({ name: "none", url: "none" }),
  latencyMs: int(0, LIMITS.delayMs).default(0),
  now: clock.default(() => Date.now),
  persistPath: text(1, 4096).optional(),
  faults: faultOptionsSchema.default({}),
  seed: int(0, 0xffffffff).default(1),
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

// ---- the schema IS the interfaces of ./types: exact equality, checked by the compiler --------------

/**
 * True when A and B are the same type: same keys, same optionality and readonly-ness, same value
 * types at every depth. Mutual assignability is not enough: it ignores `readonly`, and an `any`
 * on either side passes it. Two deferred generic conditional types are only related when their
 * checked types are identical, which is what makes this strict.
 */
type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when given `true`. A failing line names the pair that drifted apart. */
type Assert<_T extends true> = never;

// What callers pass (z.input: every option optional, defaults not yet applied) ...
type _EmulatorOptionsMatch = Assert<Exact<z.input<typeof optionsSchema>, EmulatorOptions>>;
type _RouteFaultsMatch = Assert<Exact<z.input<typeof routeFaultsSchema>, RouteFaults>>;
type _FaultOptionsMatch = Assert<Exact<z.input<typeof faultOptionsSchema>, FaultOptions>>;
type _RewriteOptionsMatch = Assert<Exact<z.input<typeof rewriteSchema>, RewriteOptions>>;
type _CreatorInMatch = Assert<Exact<z.input<typeof creatorSchema>, Creator>>;
type _PrincipalInMatch = Assert<Exact<z.input<typeof principalSchema>, Principal>>;
// ... and what the emulator runs with (z.output: defaults applied).
type _ResolvedOptionsMatch = Assert<Exact<Omit<z.output<typeof optionsSchema>, "profile">, ResolvedOptions>>;
type _ProfileMatch = Assert<Exact<z.output<typeof optionsSchema>["profile"], EmulatorOptions["profile"]>>;
type _ResolvedRouteFaultsMatch = Assert<Exact<z.output<typeof routeFaultsSchema>, ResolvedRouteFaults>>;
type _ResolvedFaultOptionsMatch = Assert<Exact<z.output<typeof faultOptionsSchema>, ResolvedFaultOptions>>;
type _ResolvedRewriteMatch = Assert<Exact<z.output<typeof rewriteSchema>, ResolvedRewriteOptions>>;
type _CreatorOutMatch = Assert<Exact<z.output<typeof creatorSchema>, Creator>>;
type _PrincipalOutMatch = Assert<Exact<z.output<typeof principalSchema>, Principal>>;
