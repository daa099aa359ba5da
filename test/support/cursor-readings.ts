import { TRACE, type Stored } from "./scripted-service";

/**
 * What a service may mean by the list request's `cursor`: the API document calls it a "paging
 * position" and says no more (section 4.1), nor what continuation a response carries. Each reading
 * here is one a service could take, with no continuation in its answers:
 * - `after-id`: the records after the one with this webhook_id, in the listing's order;
 * - `offset`: the records from this position (0 = the first);
 * - `page-number`: page number `cursor` of `limit` records (0 = the first);
 * - `ignored`: the first page, whatever the cursor.
 */
export type CursorReading = "after-id" | "offset" | "page-number" | "ignored";
export const CURSOR_READINGS: readonly CursorReading[] = ["after-id", "offset", "page-number", "ignored"];

export interface CursorListingOptions {
  reading: CursorReading;
  /** A silent page cap: at most this many records a page, whatever `limit` asks, and nothing said. */
  cap?: number;
  /** A lower silent cap for a listing with a name or URL filter (a search capped below the full listing). */
  filteredCap?: number;
  /** How the name and URL filters match: exactly (default) or as a substring (both are readings of section 4.1). */
  match?: "exact" | "partial";
}

/**
 * A list answer, written from the API document, over `records` (read afresh at each request, so
 * creates show): sorted by webhook_id, reversed when `ascending` is "false", filtered, then paged as
 * `reading` says. The envelope is section 2's; `data` holds only `data` (no continuation field).
 */
export function listByReading(records: readonly Stored[], options: CursorListingOptions) {
  return (body: Record<string, unknown>): { status: number; body: unknown } => {
    const matches = (value: string, filter: unknown) =>
      typeof filter !== "string" || filter === ""
        ? true
        : options.match === "partial"
          ? value.includes(filter)
          : value === filter;
    const rows = records
      .filter((r) => matches(r.webhook_name, body.webhook_name) && matches(r.webhook_url, body.webhook_url))
      .sort((a, b) => a.webhook_id - b.webhook_id);
    if (String(body.ascending).toLowerCase() === "false") rows.reverse();
    const asked = typeof body.limit === "number" && body.limit > 0 ? body.limit : 20;
    const filtered = [body.webhook_name, body.webhook_url].some((f) => typeof f === "string" && f !== "");
    const cap = Math.min(options.cap ?? asked, filtered ? (options.filteredCap ?? asked) : asked);
    const limit = Math.min(asked, cap);
    const cursor = typeof body.cursor === "string" ? body.cursor : "";
    const descending = String(body.ascending).toLowerCase() === "false";
    const start = startOf(rows, cursor, limit, options.reading, descending);
    const data = { data: rows.slice(start, start + limit) };
    return { status: 200, body: { code: "200", msg: "SUCCESS", trace_id: TRACE, data } };
  };
}

function startOf(
  rows: readonly Stored[],
  cursor: string,
  limit: number,
  reading: CursorReading,
  descending: boolean,
): number {
  if (cursor === "" || reading === "ignored") return 0;
  const value = Number(cursor);
  if (reading === "offset") return value;
  if (reading === "page-number") return value * limit;
  const at = rows.findIndex((r) => (descending ? r.webhook_id < value : r.webhook_id > value));
  return at < 0 ? rows.length : at;
}

/** `count` records of other teams, ids from `firstId` in steps of `step` (not 1..N: ids a service assigns). */
export function othersRecords(count: number, firstId = 500, step = 3, prefix = "team"): Stored[] {
  return Array.from({ length: count }, (_, i) => {
    const id = firstId + i * step;
    return {
      webhook_id: id,
      webhook_name: `${prefix}-${i + 1}`,
      webhook_url: `https://example.com/${prefix}/${i + 1}`,
      sign_secret: `whsec_other_${id}`,
      creator_id: 900,
      creator_name: "other-team",
      create_time: 1_700_000_000_000 + i,
      operator_id: 900,
      operator_name: "other-team",
      operate_time: 1_700_000_000_000 + i,
    };
  });
}
