import type { EmulatorOptions } from "./types";

/**
 * Named option sets, one per plausible reading of the service document. A profile only sets the
 * options it is about; everything else keeps its default.
 */
export const EMULATOR_PROFILES: Record<string, Partial<EmulatorOptions>> = {
  default: {},
  "partial-filters": { filterMatch: "partial", paging: "cursor" },
  "no-paging": { paging: "none", maxPageSize: 50 },
  "has-more": { filterMatch: "exact", paging: "has-more", defaultPageSize: 5, maxPageSize: 10 },
  "next-cursor": { paging: "next-cursor" },
  "unique-names": { uniqueNames: true },
  "errors-in-200": { errorStyle: "envelope-200" },
  "strict-ascending": { ascending: "true-false-string" },
  "asc-desc": { ascending: "asc-desc" },
  "ignored-filters": { filterMatch: "ignored" },
  "small-pages": { defaultPageSize: 5, maxPageSize: 10 },
  "strict-required": { requiredListFields: ["cursor", "limit", "webhook_name", "webhook_url", "ascending"] },
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
    requiredListFields: ["cursor", "limit", "webhook_name", "webhook_url", "ascending"],
  },
  // Short latency faults so a test suite can afford them.
  flaky: { faults: { list: { rate: 0.2, slowMs: 200 }, create: { rate: 0.2, slowMs: 200 } } },
};
