import { WebhookAbortError, WebhookApiError, WebhookAuthError, WebhookPagingError } from "./errors";
import type { Continuation, ListingEnd, WebhookEndpointRecord } from "./types";

/**
 * Paging through a listing whose continuation the document does not describe. Whatever the server
 * sends, a listing ends, and says whether it proved complete: a repeated cursor or a page that only
 * repeats records already listed ends it possibly incomplete; a cap (pages, records, bytes) stops
 * it with a {@link WebhookPagingError} instead of looping or growing without bound.
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
  /** The most records this service was seen to send in one page (read afresh at each page). */
  reach: () => number;
  /**
   * Asks the service for a page no filter narrows, to learn how many records it sends in one
   * (raising `reach`); for a filtered listing whose small pages cannot otherwise be told from a cap.
   */
  learnReach?: (() => Promise<void>) | undefined;
  /**
   * Whether this service was shown to read a cursor the client made up (a record's id) as "the
   * records after this id", remembered like `reach` (for the life of the client): once shown, a
   * listing that used such a cursor needs no confirming request.
   */
  idPaging?: { confirmed: () => boolean; confirm: () => void } | undefined;
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

/** A listing that proved nothing else matches its filter. */
export const COMPLETE: ListingEnd = Object.freeze({ complete: true });

function incomplete(reason: string): ListingEnd {
  return { complete: false, reason };
}

/**
 * What follows a page: the cursor to ask for next, or the end of the listing and whether it proved
 * complete. `probe`: a page the service may have cut short (see {@link nextStep}); only the next
 * page can tell. `guessed`: the cursor is the last record's id, made up by the client (the API
 * document does not say what a cursor means), not one the service sent.
 */
export type NextStep = { cursor: string; probe: boolean; guessed: boolean } | { end: ListingEnd };

/**
 * The step after a page. The service's own continuation decides when it sent one: a cursor is
 * followed (even after an empty page: a service that filters after paging returns those); a
 * has-more flag continues from the last record's id, or ends the listing, complete. With no
 * continuation at all, a listing is proven complete by an empty page, or by a page shorter than a
 * page this service was seen to send (`reach`: its records, not the client's matches): a service
 * capping pages silently below `limit` sends exactly as many as its cap. A full page continues
 * from its last id; any other page is a `probe`: the last id is asked for, and the answer tells a
 * service that pages that way (new records) from one that ignores the paging position.
 */
export function nextStep(
  records: readonly WebhookEndpointRecord[],
  continuation: Continuation,
  limit: number,
  reach: number,
): NextStep {
  const { cursor, hasMore } = continuation;
  if (continuation.unusable === true)
    return { end: incomplete("the service's paging cursor could not be read exactly") };
  if (cursor !== undefined) return { cursor, probe: false, guessed: false };
  const last = records.at(-1);
  if (hasMore === false) return { end: COMPLETE };
  if (hasMore === true) {
    return last === undefined
      ? {
          end: incomplete(
            "the service said more records follow, on a page with none to continue from (a has-more flag and no cursor)",
          ),
        }
      : { cursor: String(last.webhookId), probe: false, guessed: true };
  }
  if (last === undefined) return { end: COMPLETE };
  if (records.length >= limit) return { cursor: String(last.webhookId), probe: false, guessed: true };
  if (records.length < reach) return { end: COMPLETE };
  return { cursor: String(last.webhookId), probe: true, guessed: true };
}

/** The cursor for the page after this one (see {@link nextStep}), or undefined when the listing ended. */
export function nextCursor(
  records: readonly WebhookEndpointRecord[],
  continuation: Continuation,
  limit: number,
  reach: number,
): string | undefined {
  const step = nextStep(records, continuation, limit, reach);
  return "cursor" in step ? step.cursor : undefined;
}

/**
 * A page as {@link pagesOf} yields it: what the service sent, the cursor asked for next, and on the last
 * page how the listing ended.
 */
export interface ListedPage extends ServicePage {
  next?: string | undefined;
  end?: ListingEnd | undefined;
}

/**
 * Every page of a listing, in order, within the limits. The last page yielded carries `end`: a
 * listing that cannot prove it is complete ends there, `complete: false` with the reason, and is
 * not an error (the caller that only wants what is there has it), but proves nothing absent:
 * - a page that only repeats records already listed, or a cursor the service already returned:
 *   it ignores the paging position. After a page that could not have been cut (a probe's page
 *   shorter than a page the service was seen to send, if need be after `learnReach`), the listing
 *   is complete all the same;
 * - a probe's request that fails: nothing proves the probed page was not cut;
 * - an end the service gave in answer to a cursor the client made up (a record's id), when the
 *   service was not shown to read such a cursor as "after this id" (see {@link endAfterGuesses}).
 * Caps (pages, records, bytes) and a cursor that cannot be used throw a {@link WebhookPagingError}.
 */
export async function* pagesOf(
  fetchPage: (cursor: string) => Promise<ServicePage>,
  limits: PagingLimits,
): AsyncGenerator<ListedPage, void, undefined> {
  const seenCursors = new Set<string>([""]);
  const seenIds = new Set<number>();
  const scanned = { bytes: 0 };
  let cursor = "";
  /** Records of the page the last request probes past, while it does. */
  let probed: number | undefined;
  /** Cursors the client made up so far, and the page the last one was made from. */
  const guesses: Guesses = { count: 0, source: [] };
  for (let pageNumber = 1; ; pageNumber++) {
    if (pageNumber > limits.maxPages) {
      throw new WebhookPagingError(
        `listing stopped after ${limits.maxPages} pages (maxPages); narrow the filter or raise maxPages`,
        { operation: "list" },
      );
    }
    let page: ServicePage;
    try {
      page = await fetchPage(cursor);
    } catch (error) {
      if (probed === undefined || !inconclusiveFailure(error)) throw error;
      yield probeFailed(probed, error);
      return;
    }
    const traceId = page.traceId === "" ? undefined : page.traceId;
    if (page.continuation.unusable === true) {
      throw new WebhookPagingError(
        `the service returned a numeric paging cursor in ${page.continuation.source ?? "its answer"} too large to be read exactly (page ${pageNumber}); stopping rather than asking for the wrong page`,
        { operation: "list", traceId },
      );
    }
    const fresh = page.records.filter((record) => !seenIds.has(record.webhookId));
    for (const record of fresh) seenIds.add(record.webhookId);
    if (page.records.length > 0 && fresh.length === 0) {
      yield { ...page, end: await afterRepeats(pageNumber, probed, limits) };
      return;
    }
    checkScanCaps(page, seenIds.size, scanned, limits);
    const step = nextStep(page.records, page.continuation, limits.limit, limits.reach());
    if ("end" in step) {
      const end =
        step.end.complete && guesses.count > 0
          ? await endAfterGuesses(fetchPage, guesses, { probed, answered: page.records.length }, limits)
          : step.end;
      yield { ...page, end };
      return;
    }
    const next = step.cursor;
    if (seenCursors.has(next)) {
      yield {
        ...page,
        end: incomplete(
          `the service returned a paging cursor it had already returned (page ${pageNumber}): it ignores the paging position, so the listing stopped there`,
        ),
      };
      return;
    }
    yield { ...page, next };
    if (next.length > MAX_CURSOR_CHARS) {
      throw new WebhookPagingError(
        `the service returned a paging cursor of ${next.length} characters (page ${pageNumber}); stopping`,
        { operation: "list", traceId },
      );
    }
    seenCursors.add(next);
    cursor = next;
    probed = step.probe ? page.records.length : undefined;
    if (step.guessed) Object.assign(guesses, { count: guesses.count + 1, source: page.records });
  }
}

/** Stops a listing whose records or response bytes, this page's included, pass their caps. */
function checkScanCaps(page: ServicePage, records: number, scanned: { bytes: number }, limits: PagingLimits) {
  scanned.bytes += page.bytes;
  if (records > limits.maxScanRecords || scanned.bytes > limits.maxScanBytes) {
    throw new WebhookPagingError(
      `listing stopped after ${records} records and ${Math.round(scanned.bytes / 1024)} KB (caps: maxScanRecords ${limits.maxScanRecords}, maxScanBytes ${limits.maxScanBytes}); narrow the filter or raise the caps`,
      { operation: "list", traceId: page.traceId === "" ? undefined : page.traceId },
    );
  }
}

/** The cursors a listing made up (a record's id), and the records of the page the last one was made from. */
interface Guesses {
  count: number;
  source: readonly WebhookEndpointRecord[];
}

/**
 * How a listing ends where the service's answer to a cursor the client made up says it ends (an
 * empty page, a page shorter than the service's pages, a has-more flag of false). The API document
 * does not say what `cursor` means: a service that reads it as an offset or a page number answers
 * an id it never meant as a position with an empty page, which proves nothing. So that end is
 * complete only once the service has shown it reads the id as "the records after this one" (once
 * per client: `idPaging`), or when a probe of a page reached without any made-up cursor was answered
 * with nothing and that page could not have been cut (shorter than a page the service was seen to send).
 */
async function endAfterGuesses(
  fetchPage: (cursor: string) => Promise<ServicePage>,
  guesses: Guesses,
  answer: { probed: number | undefined; answered: number },
  limits: PagingLimits,
): Promise<ListingEnd> {
  if (limits.idPaging?.confirmed() === true) return COMPLETE;
  const onlyProbe = guesses.count === 1 && answer.probed !== undefined && answer.answered === 0;
  if (onlyProbe && (await couldNotBeCut(answer.probed!, limits))) return COMPLETE;
  return confirmIdPaging(fetchPage, guesses.source, limits);
}

/**
 * Asks, with the same filter, for the records after the second-to-last record of the page the last
 * made-up cursor came from: a service that pages by the record id answers with that page's last
 * record first, whatever its order. Anything else leaves the listing possibly incomplete.
 */
async function confirmIdPaging(
  fetchPage: (cursor: string) => Promise<ServicePage>,
  source: readonly WebhookEndpointRecord[],
  limits: PagingLimits,
): Promise<ListingEnd> {
  const [before, last] = source.slice(-2);
  const unproven = (why: string) =>
    incomplete(
      `the service sent no paging cursor, so the client sent a record's id as one, and its answer ended the listing; ${why}, and a service that reads the cursor as an offset or a page number answers an id with an empty page, so records after it may be unlisted`,
    );
  if (before === undefined || last === undefined) {
    return unproven(
      "but the service was not shown to page by the record id (the page the id came from held one record, which leaves nothing to check that with)",
    );
  }
  let check: ServicePage;
  try {
    check = await fetchPage(String(before.webhookId));
  } catch (error) {
    if (!inconclusiveFailure(error)) throw error;
    return unproven(
      `but the service was not shown to page by the record id (the request that checks it failed: ${error.message})`,
    );
  }
  const first = check.records[0];
  if (first?.webhookId === last.webhookId) {
    limits.idPaging?.confirm();
    return COMPLETE;
  }
  const got = first === undefined ? "an empty page" : `endpoint ${first.webhookId}`;
  return unproven(
    `but the service does not page by the record id (asked for the records after endpoint ${before.webhookId}, it answered with ${got}, not endpoint ${last.webhookId}, which follows it)`,
  );
}

/**
 * Whether a probe's page was the last: shorter than a page the service was seen to send, if need
 * be after `learnReach`.
 */
async function couldNotBeCut(probed: number, limits: PagingLimits): Promise<boolean> {
  if (probed >= limits.reach() && limits.learnReach !== undefined) await limits.learnReach();
  return probed < limits.reach();
}

/**
 * How a listing ends on a page that only repeats records already listed (the service ignores the
 * paging position): complete only when the page before could not have been cut, being a probe's
 * page shorter than a page the service was seen to send.
 */
async function afterRepeats(
  pageNumber: number,
  probed: number | undefined,
  limits: PagingLimits,
): Promise<ListingEnd> {
  if (probed !== undefined && (await couldNotBeCut(probed, limits))) return COMPLETE;
  const capped =
    probed === undefined
      ? "the page before it was full or said more follow"
      : `no page of more than ${limits.reach()} records was seen from this service, so it may cap its pages at ${probed} without saying so`;
  return incomplete(
    `page ${pageNumber} only repeated records already listed: the service ignores the paging position, and ${capped}`,
  );
}

/**
 * A failure that leaves a probe unanswered, not the listing broken: the service's refusal of the position
 * asked for, a failed page.
 */
function inconclusiveFailure(error: unknown): error is WebhookApiError {
  return (
    error instanceof WebhookApiError &&
    !(error instanceof WebhookAbortError) &&
    !(error instanceof WebhookAuthError)
  );
}

/** The end of a listing whose probe failed: a page with nothing in it, saying why the listing proves nothing. */
function probeFailed(probed: number, error: WebhookApiError): ListedPage {
  return {
    records: [],
    traceId: error.traceId ?? "",
    continuation: {},
    bytes: 0,
    end: incomplete(
      `the service sent a page of ${probed} records and no continuation, and the request for the records after it failed (${error.message}), so whether it cut that page short cannot be told`,
    ),
  };
}

/**
 * The `ascending` value that asks for the other order than `ascending` does, in the same
 * vocabulary; undefined when that vocabulary is not one we know (then lookups run one scan, and a
 * create's settle lists in one order).
 */
export function oppositeOrder(ascending: string): string | undefined {
  const opposite = OPPOSITE_ORDER.get(ascending.toLowerCase());
  if (opposite === undefined) return undefined;
  return ascending !== ascending.toLowerCase() && ascending === ascending.toUpperCase()
    ? opposite.toUpperCase()
    : opposite;
}

const OPPOSITE_ORDER = new Map([
  ["true", "false"],
  ["false", "true"],
  ["asc", "desc"],
  ["desc", "asc"],
  ["ascending", "descending"],
  ["descending", "ascending"],
  ["1", "0"],
  ["0", "1"],
]);
