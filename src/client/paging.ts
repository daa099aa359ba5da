import { WebhookPagingError } from "./errors";
import type { Continuation, WebhookEndpointRecord } from "./types";

/**
 * Paging through a listing whose continuation the document does not describe. Whatever the server
 * sends, a listing ends: a repeated cursor, a page that only repeats records already listed, or a
 * cap (pages, records, bytes) stops it with a {@link WebhookPagingError} instead of looping or
 * growing without bound.
 */

/** One page as the service sent it, before any client-side matching. */
export interface ServicePage {
  records: WebhookEndpointRecord[];
  traceId: string;
  continuation: Continuation;
  /**
   * Size of the response body in UTF-8 bytes (what came over the wire), which `maxScanBytes` caps.
   * Not in UTF-16 units: a page of CJK text is 3 bytes a character on the wire and 2 in memory.
   */
  bytes: number;
}

export interface PagingLimits {
  /** Records asked for per page. */
  limit: number;
  maxPages: number;
  maxScanRecords: number;
  maxScanBytes: number;
}

const CURSOR_FIELDS = [
  "cursor",
  "next_cursor",
  "nextCursor",
  "next_page_token",
  "nextPageToken",
  "next",
] as const;
const HAS_MORE_FIELDS = ["has_more", "hasMore", "has_next", "hasNext"] as const;
/** A cursor longer than this is not a cursor: it is reported as an unusable continuation. */
export const MAX_CURSOR_CHARS = 4096;

/** Reads whichever continuation the list payload carries; the document does not say which. */
export function readContinuation(data: Record<string, unknown>): Continuation {
  for (const field of CURSOR_FIELDS) {
    const value = data[field];
    // An empty cursor field is the server saying there is nothing after this page.
    if (value === "") return { hasMore: false, source: `data.${field}` };
    if (typeof value === "string") return { cursor: value, source: `data.${field}` };
    // A number the JSON parser could not hold exactly would send back another position: unusable.
    if (typeof value === "number" && Number.isSafeInteger(value))
      return { cursor: String(value), source: `data.${field}` };
    if (typeof value === "number") return { unusable: true, source: `data.${field}` };
  }
  for (const field of HAS_MORE_FIELDS) {
    const value = data[field];
    if (typeof value === "boolean") return { hasMore: value, source: `data.${field}` };
  }
  return {};
}

/**
 * The cursor for the page after this one, or undefined when the listing is complete: the
 * server's cursor (followed even after an empty page: a service that filters after paging returns
 * those); else, with a has-more flag, the last record's id; else (no continuation at all) the last
 * id when the page was full, since a full page may hide more.
 */
export function nextCursor(
  records: readonly WebhookEndpointRecord[],
  continuation: Continuation,
  limit: number,
): string | undefined {
  const { cursor, hasMore } = continuation;
  if (continuation.unusable === true) return undefined;
  if (cursor !== undefined) return cursor;
  const last = records.at(-1);
  if (last === undefined) return undefined;
  if (hasMore === false) return undefined;
  if (hasMore === true) return String(last.webhookId);
  return records.length < limit ? undefined : String(last.webhookId);
}

/** Every page of a listing, in order, within the limits. */
export async function* pagesOf(
  fetchPage: (cursor: string) => Promise<ServicePage>,
  limits: PagingLimits,
): AsyncGenerator<ServicePage, void, undefined> {
  const seenCursors = new Set<string>([""]);
  const seenIds = new Set<number>();
  let bytes = 0;
  let cursor = "";
  for (let pageNumber = 1; ; pageNumber++) {
    if (pageNumber > limits.maxPages) {
      throw new WebhookPagingError(
        `listing stopped after ${limits.maxPages} pages (maxPages); narrow the filter or raise maxPages`,
        {
          operation: "list",
        },
      );
    }
    const page = await fetchPage(cursor);
    const traceId = page.traceId === "" ? undefined : page.traceId;
    if (page.continuation.unusable === true) {
      throw new WebhookPagingError(
        `the service returned a numeric paging cursor in ${page.continuation.source ?? "its answer"} too large to be read exactly (page ${pageNumber}); stopping rather than asking for the wrong page`,
        { operation: "list", traceId },
      );
    }
    let fresh = 0;
    for (const record of page.records) {
      if (!seenIds.has(record.webhookId)) {
        seenIds.add(record.webhookId);
        fresh++;
      }
    }
    if (page.records.length > 0 && fresh === 0) {
      throw new WebhookPagingError(
        `page ${pageNumber} repeated records already listed: the service ignored the paging position, so the listing may be incomplete; narrow the filter`,
        {
          operation: "list",
          traceId,
        },
      );
    }
    bytes += page.bytes;
    if (seenIds.size > limits.maxScanRecords || bytes > limits.maxScanBytes) {
      throw new WebhookPagingError(
        `listing stopped after ${seenIds.size} records and ${Math.round(bytes / 1024)} KB (caps: maxScanRecords ${limits.maxScanRecords}, maxScanBytes ${limits.maxScanBytes}); narrow the filter or raise the caps`,
        { operation: "list", traceId },
      );
    }
    yield page;

    const next = nextCursor(page.records, page.continuation, limits.limit);
    if (next === undefined) return;
    if (next.length > MAX_CURSOR_CHARS) {
      throw new WebhookPagingError(
        `the service returned a paging cursor of ${next.length} characters (page ${pageNumber}); stopping`,
        {
          operation: "list",
          traceId,
        },
      );
    }
    if (seenCursors.has(next)) {
      throw new WebhookPagingError(
        `the service returned a paging cursor it had already returned (page ${pageNumber}); stopping instead of looping`,
        { operation: "list", traceId },
      );
    }
    seenCursors.add(next);
    cursor = next;
  }
}
