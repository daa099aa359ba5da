import { LIST_REQUEST_FIELDS } from "../api/contract";
import type { EmulatorOptions } from "./options";

/**
 * Named option sets, one per plausible reading of the service document. A profile only sets the
 * options it is about; everything else keeps its default. Each is checked by the options schema
 * when it is applied.
 */
export const EMULATOR_PROFILES: Readonly<Record<string, Readonly<Partial<EmulatorOptions>>>> = deepFreeze({
  default: {},
  "partial-filters": { filterMatch: "partial", paging: "cursor" },
  // The cursor ignored and no continuation sent; `limit` honoured up to 50, a larger one lowered to 50.
  "no-paging": { paging: "none", maxPageSize: 50 },
  // A silent page cap: every page the first 50 records (of the filter), whatever cursor and limit ask,
  // and nothing in the answer to say more exist.
  "page-cap": { paging: "none", pageLimit: "ignored", defaultPageSize: 50, maxPageSize: 50 },
  "has-more": { filterMatch: "exact", paging: "has-more", defaultPageSize: 5, maxPageSize: 10 },
  "next-cursor": { paging: "next-cursor" },
  "unique-names": { uniqueNames: true },
  "errors-in-200": { errorStyle: "envelope-200" },
  "strict-ascending": { ascending: "true-false-string" },
  "asc-desc": { ascending: "asc-desc" },
  "ignored-filters": { filterMatch: "ignored" },
  "small-pages": { defaultPageSize: 5, maxPageSize: 10 },
  "strict-required": { requiredListFields: [...LIST_REQUEST_FIELDS] },
  // The service normalises what it stores: names trimmed, URLs in WHATWG form (lower-case scheme
  // and host, "/" for an empty path).
  rewriting: { rewrite: { name: "trim", url: "href" } },
  // A service that folds case: "Orders" and "orders" are one name, and URLs differ only by case.
  "rewriting-lowercase": { rewrite: { name: "lowercase", url: "lowercase" } },
  // Every strict reading at once: a client that survives this survives each of them separately.
  strict: {
    filterMatch: "partial",
    paging: "next-cursor",
    defaultPageSize: 5,
    maxPageSize: 10,
    limitAboveMax: "error",
    uniqueNames: true,
    errorStyle: "envelope-200",
    ascending: "true-false-string",
    requiredListFields: [...LIST_REQUEST_FIELDS],
  },
  // A gateway in front of the service that loses answers after the service acted: 30% of creates
  // (and 10% of lists) are committed, then answered 503, 502 or 504 with the gateway's own text.
  "behind-gateway": {
    faults: {
      create: { rate: 0.3, kinds: { "gateway-error": 1 } },
      list: { rate: 0.1, kinds: { "gateway-error": 1 } },
    },
  },
  // Short latency faults so a test suite can afford them.
  flaky: { faults: { list: { rate: 0.2, slowMs: 200 }, create: { rate: 0.2, slowMs: 200 } } },
});

/** Frozen all the way down: the presets are shared by every emulator in the process. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
