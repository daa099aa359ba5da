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
 *   diff, preview 1.27× the empty service); the descending scan answers it in a few pages.
 *   Nothing depends on the order being honoured: a service that ignores `ascending` gives two
 *   scans of the same pages, one that refuses the value fails that scan, and either costs at most
 *   its allowance;
 * - each scan's pages are fetched one at a time as lookups need them, as long as its pages stay
 *   within {@link SCAN_PAGE_ALLOWANCE} plus the number of lookups its pages alone have answered: a
 *   lookup the pages fetched so far answer costs nothing, and earns that scan one more page;
 * - while a scan has answered nothing yet, a lookup it cannot answer goes by name and fetches the
 *   scan's next page at the same moment (no added latency); once it has, its next page is fetched
 *   first and the name is asked only if that page does not hold the endpoint.
 * So list calls per command stay at most one per endpoint plus twice {@link SCAN_PAGE_ALLOWANCE},
 * whatever the service holds and whatever its page size; on a service holding mostly the stack's
 * own endpoints, or where the stack sits at either end of the service's order, the scans answer
 * nearly every lookup after the eighth. Where the stack sits in the middle of other teams'
 * endpoints (made both before and after it), each diff pays one listing by name.
 *
 * Two exceptions cost more, because only a full listing can answer them: a refresh that finds an
 * endpoint under neither its name nor its URL (to tell "renamed" from "deleted"), and an import
 * (nothing but the id is known). They complete the scan once per command; later ones reuse it.
 */
export const BY_NAME_FIRST = 8;
export const SCAN_PAGE_ALLOWANCE = 2;
/** A scan older than this is started again rather than trusted. */
export const SCAN_FRESH_MS = 5 * 60_000;

/** What a lookup knows of the endpoint besides its id. */
export interface LookupHints {
  webhookName?: string | undefined;
  webhookUrl?: string | undefined;
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
  readonly records = new Map<number, WebhookEndpointRecord>();
  readonly startedAt = Date.now();
  pages = 0;
  done = false;
  failed = false;
  #iterator: AsyncIterator<ListPage> | undefined;
  #inflight: Promise<void> | undefined;

  constructor(private readonly open: () => AsyncIterator<ListPage>) {}

  get usable(): boolean {
    return !this.failed && Date.now() - this.startedAt <= SCAN_FRESH_MS;
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
      for (const record of step.value.records) if (!this.records.has(record.webhookId)) this.records.set(record.webhookId, record);
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

/** Lookups by id on one connection, with the shared scans described above. */
export class EndpointLookups {
  readonly stats: LookupStats = { lookups: 0, byName: 0, byUrl: 0, scanPages: 0, answeredByScan: 0, fullScans: 0 };
  /** The orders scanned: the configured one (undefined: the client's `ascending`), then the other when known. */
  readonly #orders: (string | undefined)[];
  /** The scans, in the order of `#orders`; a slot is empty until the scans start. */
  #slots: (ScanSlot | undefined)[] = [];

  /** @param ascending the connection's `ascending` value; its opposite (when known) orders the second scan. */
  constructor(
    private readonly client: WebhooksClient,
    ascending: string | undefined,
  ) {
    const reverse = ascending === undefined ? undefined : oppositeOrder(ascending);
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
      if (found !== undefined || !everywhere) return found;
    }
    if (!everywhere) return undefined;
    return this.#fromCompleteScan(id);
  }

  /** The record from the pages fetched so far, earning its scan one more page. */
  #fromPages(slots: readonly ScanSlot[], id: number): WebhookEndpointRecord | undefined {
    for (const slot of slots) {
      const record = slot.scan.records.get(id);
      if (record === undefined) continue;
      slot.earned++;
      this.stats.answeredByScan++;
      return record;
    }
    return undefined;
  }

  /** By name (with the next page of each scan in `alongside` fetched at the same moment); then by URL. */
  async #byHints(id: number, hints: LookupHints, alongside: readonly ScanSlot[]): Promise<WebhookEndpointRecord | undefined> {
    const pagesAlongside = Promise.all(alongside.filter((slot) => this.#mayAdvance(slot)).map((slot) => this.#advance(slot.scan)));
    let found: WebhookEndpointRecord | undefined;
    if (hints.webhookName) {
      this.stats.byName++;
      const [records] = await Promise.all([this.#list({ webhookName: hints.webhookName }), pagesAlongside]);
      found = records.find((record) => record.webhookId === id);
    } else {
      await pagesAlongside;
    }
    for (const slot of alongside) found ??= slot.scan.records.get(id);
    if (found === undefined && hints.webhookUrl) {
      this.stats.byUrl++;
      found = (await this.#list({ webhookUrl: hints.webhookUrl })).find((record) => record.webhookId === id);
    }
    return found;
  }

  async #fromCompleteScan(id: number): Promise<WebhookEndpointRecord | undefined> {
    // The forward scan is completed (started again when stale or failed), and answers the lookups after it.
    let slot = this.#slots[0];
    if (slot === undefined || !slot.scan.usable) slot = this.#slots[0] = { scan: this.#newScan(this.#orders[0]), earned: 0 };
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
    return scan.records.get(id);
  }

  /**
   * The scans, once past the first lookups by name; started on first need, and started again when
   * stale. A scan that failed stays failed for the command: starting it again would cost a call
   * per lookup on a service that refuses it.
   */
  #currentSlots(): ScanSlot[] {
    if (this.stats.lookups > BY_NAME_FIRST) {
      this.#orders.forEach((order, i) => {
        const slot = this.#slots[i];
        if (slot === undefined || (!slot.scan.failed && !slot.scan.usable)) this.#slots[i] = { scan: this.#newScan(order), earned: 0 };
      });
    }
    return this.#slots.filter((slot): slot is ScanSlot => slot !== undefined && slot.scan.usable);
  }

  #newScan(order: string | undefined): SharedScan {
    return new SharedScan(() => this.client.listAll(order === undefined ? {} : { ascending: order })[Symbol.asyncIterator]());
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

  async #list(filter: { webhookName?: string; webhookUrl?: string }): Promise<WebhookEndpointRecord[]> {
    // The service's own matching: the id decides, and an endpoint stored under another form of its
    // name or URL is still found.
    const { records } = await this.client.scan({ ...filter, match: "service" });
    return records;
  }
}
