import type { WebhooksClient } from "../client/client";
import type { ListPage, WebhookEndpointRecord } from "../client/types";

/**
 * Finding endpoints by id, for one connection, for the length of one command (a provider process
 * lives for one `preview`, `up`, `refresh` or `destroy`).
 *
 * The API has no "get by id": an endpoint is found by listing with its name as the filter and
 * matching the id (the filter may be partial or ignored). Done for every endpoint, that is one
 * list call per endpoint, on the critical path of a preview (the engine runs diffs one at a time).
 *
 * The shared scan policy. A paged listing of the whole service can answer many lookups with a
 * few calls, when the service holds little besides the stack. On a service shared with other
 * teams it can cost hundreds of pages for a stack of a dozen. We cannot know which in advance, so
 * the scans have to pay for themselves:
 * - the first {@link BY_NAME_FIRST} lookups of a command go by name (a small stack never scans);
 * - after that, two scans run side by side: one in the order the connection asks for
 *   (`ascending`), one in the other order when the `ascending` value is one whose opposite we know
 *   ({@link oppositeOrder}). A stack's endpoints are made together, so they sit together in the
 *   service's order, most often at one end of it: a stack made after the other teams' endpoints
 *   is at the far end of an ascending listing and at the start of a descending one. Measured
 *   (`npm run bench`, README Performance, the crowded rows): with 20,000 endpoints made before a
 *   100-endpoint stack, the ascending scan alone never reached it (102 list calls, one by name per
 *   diff, preview 1.27× the empty service); with the descending scan, 14 calls and the empty
 *   service's time within the noise.
 *   Nothing depends on the order being honoured: a service that ignores `ascending` gives two
 *   scans of the same pages, one that refuses the value fails that scan, and either costs at most
 *   its allowance;
 * - each scan's pages are fetched one at a time as lookups need them, as long as its pages stay
 *   within {@link SCAN_PAGE_ALLOWANCE} plus the number of lookups its pages alone have answered: a
 *   lookup the pages fetched so far answer costs nothing, and earns that scan one more page;
 * - while a scan has answered nothing yet, a lookup it cannot answer goes by name and fetches the
 *   scan's next page at the same moment, without waiting for it when the name answers; once it
 *   has, its next page is fetched first and the name is asked only if that page does not hold
 *   the endpoint. A scan page is not retried: one that fails ends that scan for the command;
 * - a record from a scan page answers a lookup only within {@link PAGE_TRUST_MS} of the page's
 *   arrival: a diff or read sees the service as it was seconds ago at most, never minutes (an
 *   outside tester renamed an endpoint after its page came, and a diff a minute later said "no
 *   changes"). Past that the lookup goes by name, so the bound holds;
 * - a listing by name (or URL) that spans more than {@link BY_NAME_MAX_PAGES} pages without the
 *   id (a service that ignores the filter, or a name shared by pages of endpoints) proves the
 *   filter does not narrow: that lookup and every later one are answered by one complete scan,
 *   instead of every lookup walking the whole service.
 * So list calls per command stay at most one per endpoint plus twice {@link SCAN_PAGE_ALLOWANCE}
 * (plus the second page of a listing by name of a name shared by more than a page of endpoints),
 * whatever the service holds and whatever its page size, and one complete listing of the service
 * per {@link SCAN_FRESH_MS} when its filters do not narrow; on a service holding mostly the
 * stack's own endpoints, or where the stack sits at either end of the service's order, the scans
 * answer nearly every lookup after the eighth. Where the stack sits in the middle of other teams'
 * endpoints (made both before and after it), each diff pays one listing by name.
 *
 * Two exceptions cost more, because only a full listing can answer them: a refresh that finds an
 * endpoint under neither its name nor its URL (to tell "renamed" from "deleted"), and an import
 * (nothing but the id is known). They complete the scan once per {@link SCAN_FRESH_MS}; later ones
 * reuse it. An endpoint the complete listing lacks is still found in a page of the other scan (a
 * service paging by offset can skip a record when another is removed during the listing).
 */
export const BY_NAME_FIRST = 8;
export const SCAN_PAGE_ALLOWANCE = 2;
/** A record from a scan page answers a lookup only this long after the page came (a diff or read must see the service as it is). */
export const PAGE_TRUST_MS = 10_000;
/** A complete scan (the exception path below) is trusted this long after it started, then started again. */
export const SCAN_FRESH_MS = 60_000;
/** Pages a listing by name (or URL) may take before the filter is judged not to narrow. */
export const BY_NAME_MAX_PAGES = 2;

/** What a lookup knows of the endpoint besides its id. */
export interface LookupHints {
  webhookName?: string | undefined;
  webhookUrl?: string | undefined;
  /** Values the program marked secret: sent as filters, so kept out of any message the service's answer makes. */
  redact?: readonly string[] | undefined;
}

/** Counters of one connection's lookups, for tests and the benchmark. */
export interface LookupStats {
  lookups: number;
  byName: number;
  byUrl: number;
  scanPages: number;
  answeredByScan: number;
  fullScans: number;
}

class SharedScan {
  readonly #records = new Map<number, { record: WebhookEndpointRecord; at: number }>();
  readonly startedAt = Date.now();
  pages = 0;
  done = false;
  failed = false;
  #iterator: AsyncIterator<ListPage> | undefined;
  #inflight: Promise<void> | undefined;

  constructor(private readonly open: () => AsyncIterator<ListPage>) {}

  /** The record with this id, when a page holding it came at most `maxAgeMs` ago. */
  get(id: number, maxAgeMs: number): WebhookEndpointRecord | undefined {
    const entry = this.#records.get(id);
    return entry !== undefined && Date.now() - entry.at <= maxAgeMs ? entry.record : undefined;
  }

  /** Fetches the next page (one at a time; concurrent callers share it). */
  advance(): Promise<void> {
    this.#inflight ??= this.#next().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  get inflight(): Promise<void> | undefined {
    return this.#inflight;
  }

  async #next(): Promise<void> {
    if (this.done || this.failed) return;
    try {
      this.#iterator ??= this.open();
      const step = await this.#iterator.next();
      if (step.done) {
        this.done = true;
        return;
      }
      this.pages++;
      const at = Date.now();
      for (const record of step.value.records) if (!this.#records.has(record.webhookId)) this.#records.set(record.webhookId, { record, at });
    } catch {
      // A service whose listing cannot be paged through (or that failed now) keeps the by-name lookups.
      this.failed = true;
    }
  }

  async complete(): Promise<void> {
    while (!this.done && !this.failed) await this.advance();
  }
}

/**
 * The `ascending` value that asks for the other order than `ascending` does, in the same
 * vocabulary; undefined when that vocabulary is not one we know (then only one scan runs).
 */
export function oppositeOrder(ascending: string): string | undefined {
  const opposite = OPPOSITE_ORDER.get(ascending.toLowerCase());
  if (opposite === undefined) return undefined;
  return ascending !== ascending.toLowerCase() && ascending === ascending.toUpperCase() ? opposite.toUpperCase() : opposite;
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

/** One scan and the lookups its pages alone have answered (each pays for one more page). */
interface ScanSlot {
  scan: SharedScan;
  earned: number;
}

/** A filtered listing that stopped at {@link BY_NAME_MAX_PAGES} without finding the id: the filter does not narrow. */
const INCONCLUSIVE = Symbol("inconclusive");
type Found = WebhookEndpointRecord | undefined | typeof INCONCLUSIVE;

/** Lookups by id on one connection, with the shared scans described above. */
export class EndpointLookups {
  readonly stats: LookupStats = { lookups: 0, byName: 0, byUrl: 0, scanPages: 0, answeredByScan: 0, fullScans: 0 };
  /** The orders scanned: the configured one (undefined: the client's `ascending`), then the other when known. */
  readonly #orders: (string | undefined)[];
  /** The scans, in the order of `#orders`; a slot is empty until the scans start. */
  #slots: (ScanSlot | undefined)[] = [];
  /** Set once a listing by name or URL did not narrow (an ignored filter, a name shared by pages of endpoints): from then on the complete scan answers. */
  #filtersDoNotNarrow = false;

  /** @param ascending the connection's `ascending` value; its opposite (when known) orders the second scan. */
  constructor(
    private readonly client: WebhooksClient,
    ascending: string,
  ) {
    const reverse = oppositeOrder(ascending);
    this.#orders = reverse === undefined ? [undefined] : [undefined, reverse];
  }

  /**
   * Finds an endpoint by id. `everywhere`: when neither its name nor its URL finds it, complete the
   * scan to tell a renamed endpoint from a deleted one (refresh and import); otherwise a name miss
   * means "not found" (diff: the endpoint vanished or was renamed, a replacement either way).
   */
  async find(id: number, hints: LookupHints, everywhere: boolean): Promise<WebhookEndpointRecord | undefined> {
    this.stats.lookups++;
    const slots = this.#currentSlots();
    const cached = this.#fromPages(slots, id);
    if (cached !== undefined) return cached;
    if (this.#filtersDoNotNarrow) return this.#fromCompleteScan(id);
    // The scans paying for themselves: their next pages probably hold this endpoint too.
    const paying = slots.filter((slot) => slot.earned > 0 && this.#mayAdvance(slot));
    if (paying.length > 0) {
      await Promise.all(paying.map((slot) => this.#advance(slot.scan)));
      const paged = this.#fromPages(paying, id);
      if (paged !== undefined) return paged;
    }
    if (hints.webhookName || hints.webhookUrl) {
      const found = await this.#byHints(
        id,
        hints,
        slots.filter((slot) => slot.earned === 0),
      );
      if (found === INCONCLUSIVE) {
        this.#filtersDoNotNarrow = true;
        return this.#fromCompleteScan(id);
      }
      if (found !== undefined || !everywhere) return found;
    }
    if (!everywhere) return undefined;
    return this.#fromCompleteScan(id);
  }

  /** The record from pages fetched within {@link PAGE_TRUST_MS}, earning its scan one more page. */
  #fromPages(slots: readonly ScanSlot[], id: number): WebhookEndpointRecord | undefined {
    for (const slot of slots) {
      const record = slot.scan.get(id, PAGE_TRUST_MS);
      if (record === undefined) continue;
      slot.earned++;
      this.stats.answeredByScan++;
      return record;
    }
    return undefined;
  }

  /**
   * By name, with the next page of each scan in `alongside` fetched at the same moment (not waited
   * for when the name finds the endpoint: a slow or failing scan page never delays a lookup the
   * name answered); then by URL.
   */
  async #byHints(id: number, hints: LookupHints, alongside: readonly ScanSlot[]): Promise<Found> {
    const pagesAlongside = Promise.all(alongside.filter((slot) => this.#mayAdvance(slot)).map((slot) => this.#advance(slot.scan)));
    let inconclusive = false;
    if (hints.webhookName) {
      this.stats.byName++;
      const found = await this.#list({ webhookName: hints.webhookName }, id, hints.redact);
      if (found !== undefined && found !== INCONCLUSIVE) return found;
      inconclusive = found === INCONCLUSIVE;
    }
    await pagesAlongside;
    for (const slot of alongside) {
      const paged = slot.scan.get(id, PAGE_TRUST_MS);
      if (paged !== undefined) return paged;
    }
    if (hints.webhookUrl) {
      this.stats.byUrl++;
      const found = await this.#list({ webhookUrl: hints.webhookUrl }, id, hints.redact);
      if (found !== undefined && found !== INCONCLUSIVE) return found;
      inconclusive ||= found === INCONCLUSIVE;
    }
    return inconclusive ? INCONCLUSIVE : undefined;
  }

  async #fromCompleteScan(id: number): Promise<WebhookEndpointRecord | undefined> {
    // The forward scan is completed (started again when older than SCAN_FRESH_MS or failed), and
    // answers the lookups after it.
    let slot = this.#slots[0];
    if (slot === undefined || slot.scan.failed || Date.now() - slot.scan.startedAt > SCAN_FRESH_MS) {
      slot = this.#slots[0] = { scan: this.#newScan(this.#orders[0]), earned: 0 };
    }
    const { scan } = slot;
    if (!scan.done) {
      this.stats.fullScans++;
      await scan.complete();
      this.#countPages();
    }
    if (scan.failed) {
      // The listing could not be completed: say so rather than report the endpoint gone.
      const { records } = await this.client.scan({});
      return records.find((record) => record.webhookId === id);
    }
    // Absent from the complete listing: a page of the other scan that holds it still counts (a
    // service paging by offset can skip a record when another is removed during the listing).
    const found = scan.get(id, SCAN_FRESH_MS);
    if (found !== undefined) return found;
    for (const other of this.#slots.slice(1)) {
      const paged = other?.scan.get(id, PAGE_TRUST_MS);
      if (paged !== undefined) return paged;
    }
    return undefined;
  }

  /**
   * The scans, once past the first lookups by name; started on first need. A scan that failed
   * stays failed for the command (starting it again would cost a call per lookup on a service that
   * refuses it); a scan is never started again for age, since each record is trusted only for
   * {@link PAGE_TRUST_MS} after its page came.
   */
  #currentSlots(): ScanSlot[] {
    if (this.stats.lookups > BY_NAME_FIRST) {
      this.#orders.forEach((order, i) => {
        this.#slots[i] ??= { scan: this.#newScan(order), earned: 0 };
      });
    }
    return this.#slots.filter((slot): slot is ScanSlot => slot !== undefined);
  }

  /** A scan of the whole service in one order. Its pages are not retried: a failed page ends it, and lookups go by name. */
  #newScan(order: string | undefined): SharedScan {
    return new SharedScan(() => this.client.listAll(order === undefined ? {} : { ascending: order }, { maxRetries: 0 })[Symbol.asyncIterator]());
  }

  #mayAdvance(slot: ScanSlot): boolean {
    const { scan } = slot;
    return !scan.done && !scan.failed && (scan.inflight !== undefined || scan.pages < SCAN_PAGE_ALLOWANCE + slot.earned);
  }

  async #advance(scan: SharedScan): Promise<void> {
    await scan.advance();
    this.#countPages();
  }

  #countPages(): void {
    this.stats.scanPages = this.#slots.reduce((pages, slot) => pages + (slot?.scan.pages ?? 0), 0);
  }

  /**
   * The endpoint with this id among those the filter lists, with the service's own matching (the
   * id decides, and an endpoint stored under another form of its name or URL is still found).
   * Stops at the page holding it; {@link INCONCLUSIVE} when {@link BY_NAME_MAX_PAGES} pages did not
   * hold it and the listing goes on.
   */
  async #list(filter: { webhookName?: string; webhookUrl?: string }, id: number, redact: readonly string[] | undefined): Promise<Found> {
    let pages = 0;
    for await (const page of this.client.listAll({ ...filter, match: "service" }, redact === undefined || redact.length === 0 ? {} : { redact })) {
      const found = page.records.find((record) => record.webhookId === id);
      if (found !== undefined) return found;
      if (++pages >= BY_NAME_MAX_PAGES && page.nextCursor !== undefined) return INCONCLUSIVE;
    }
    return undefined;
  }
}
