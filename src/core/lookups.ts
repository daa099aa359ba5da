import {
  oppositeOrder,
  type ListingEnd,
  type ListPage,
  type WebhookEndpointRecord,
  type WebhooksClient,
} from "../client";

/**
 * Finding endpoints by id, for one connection, for the length of one command (a provider process
 * lives for one `preview`, `up`, `refresh` or `destroy`).
 *
 * The API has no "get by id": a lookup lists by name and matches the id, one call per endpoint on
 * the critical path of a preview. Past the first few lookups, two paged scans of the service (one
 * from each end, where a stack's endpoints sit) answer the rest, but only while they pay for
 * themselves, since a scan of a crowded service costs hundreds of pages; a scan page answers for
 * seconds only, and a filter that does not narrow switches to one complete scan. So list calls
 * stay at most one per endpoint plus twice the allowance, whatever the service holds. The policy
 * rule by rule, with the measurements behind it: docs/lifecycle.md, "How
 * lookups find endpoints".
 *
 * A lookup that does not find the endpoint says whether a listing proved it absent: only one that
 * proved itself complete does (a service that ignores the paging position, or caps its pages
 * without saying so, proves nothing absent), and then the lookup is `unknown`, with the reason.
 */
/** Lookups of a command that go by name before the scans start (a small stack never scans). */
export const BY_NAME_FIRST = 8;
/** Pages each scan may fetch beyond the lookups its pages alone have answered. */
export const SCAN_PAGE_ALLOWANCE = 2;
/**
 * A record from a scan page answers a lookup only this long after the page came (a diff or read must see
 * the service as it is).
 */
export const PAGE_TRUST_MS = 10_000;
/**
 * A complete scan (for a read that neither name nor URL answers, an import, a filter that does not narrow)
 * is trusted this long after it started, then started again.
 */
export const SCAN_FRESH_MS = 60_000;
/** Pages a listing by name (or URL) may take before the filter is judged not to narrow. */
export const BY_NAME_MAX_PAGES = 2;

/**
 * What a lookup found: the endpoint; `absent`, proven by a listing that proved itself complete (for a
 * diff, under its name: gone or renamed); or `unknown`, with the reason no listing could prove it.
 */
export type Lookup =
  { kind: "found"; record: WebhookEndpointRecord } | { kind: "absent" } | { kind: "unknown"; reason: string };

const ABSENT: Lookup = Object.freeze({ kind: "absent" });
const found = (record: WebhookEndpointRecord): Lookup => ({ kind: "found", record });
/** Not found in a listing that ended so: absent only when it proved itself complete. */
const notFoundIn = (end: ListingEnd): Lookup =>
  end.complete ? ABSENT : { kind: "unknown", reason: end.reason };

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
  /** How the listing ended, once it did (set with `done`). */
  end: ListingEnd | undefined;
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
      if (step.value.end !== undefined) this.end = step.value.end;
      const at = Date.now();
      for (const record of step.value.records)
        if (!this.#records.has(record.webhookId)) this.#records.set(record.webhookId, { record, at });
    } catch {
      // A service whose listing cannot be paged through (or that failed now) keeps the by-name lookups.
      this.failed = true;
    }
  }

  async complete(): Promise<void> {
    while (!this.done && !this.failed) await this.advance();
  }
}

/** One scan and the lookups its pages alone have answered (each pays for one more page). */
interface ScanSlot {
  scan: SharedScan;
  earned: number;
}

/** A filtered listing that stopped at {@link BY_NAME_MAX_PAGES} without finding the id: the filter does not narrow. */
const INCONCLUSIVE = Symbol("inconclusive");
type Found = Lookup | typeof INCONCLUSIVE;

/** Lookups by id on one connection, with the shared scans described at the top of this file. */
export class EndpointLookups {
  readonly stats: LookupStats = {
    lookups: 0,
    byName: 0,
    byUrl: 0,
    scanPages: 0,
    answeredByScan: 0,
    fullScans: 0,
  };
  /** The orders scanned: the configured one (undefined: the client's `ascending`), then the other when known. */
  readonly #orders: (string | undefined)[];
  /** The scans, in the order of `#orders`; a slot is empty until the scans start. */
  #slots: (ScanSlot | undefined)[] = [];
  /**
   * Set once a listing by name or URL did not narrow (an ignored filter, a name shared by pages of
   * endpoints): from then on the complete scan answers.
   */
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
   * means "absent under its name" (diff: the endpoint vanished or was renamed, a replacement
   * either way), when that listing proved itself complete.
   */
  async find(id: number, hints: LookupHints, everywhere: boolean): Promise<Lookup> {
    this.stats.lookups++;
    const slots = this.#currentSlots();
    const cached = this.#fromPages(slots, id);
    if (cached !== undefined) return found(cached);
    if (this.#filtersDoNotNarrow) return this.#fromCompleteScan(id);
    // The scans paying for themselves: their next pages probably hold this endpoint too.
    const paying = slots.filter((slot) => slot.earned > 0 && this.#mayAdvance(slot));
    if (paying.length > 0) {
      await Promise.all(paying.map((slot) => this.#advance(slot.scan)));
      const paged = this.#fromPages(paying, id);
      if (paged !== undefined) return found(paged);
    }
    if (hints.webhookName || hints.webhookUrl) {
      const byHints = await this.#byHints(
        id,
        hints,
        slots.filter((slot) => slot.earned === 0),
      );
      if (byHints === INCONCLUSIVE) {
        this.#filtersDoNotNarrow = true;
        return this.#fromCompleteScan(id);
      }
      if (byHints.kind === "found" || !everywhere) return byHints;
    }
    if (!everywhere) return { kind: "unknown", reason: "it has neither a name nor a URL to be listed by" };
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
   * name answered); then by URL. Not found: what the first listing made says (the name's, for a
   * diff), unless one did not narrow.
   */
  async #byHints(id: number, hints: LookupHints, alongside: readonly ScanSlot[]): Promise<Found> {
    const pagesAlongside = Promise.all(
      alongside.filter((slot) => this.#mayAdvance(slot)).map((slot) => this.#advance(slot.scan)),
    );
    let missed: Found | undefined;
    if (hints.webhookName) {
      this.stats.byName++;
      missed = await this.#list({ webhookName: hints.webhookName }, id, hints.redact);
      if (missed !== INCONCLUSIVE && missed.kind === "found") return missed;
    }
    await pagesAlongside;
    for (const slot of alongside) {
      const paged = slot.scan.get(id, PAGE_TRUST_MS);
      if (paged !== undefined) return found(paged);
    }
    if (hints.webhookUrl) {
      this.stats.byUrl++;
      const byUrl = await this.#list({ webhookUrl: hints.webhookUrl }, id, hints.redact);
      if (byUrl !== INCONCLUSIVE && byUrl.kind === "found") return byUrl;
      if (missed !== INCONCLUSIVE) missed = missed === undefined || byUrl === INCONCLUSIVE ? byUrl : missed;
    }
    return missed ?? ABSENT;
  }

  async #fromCompleteScan(id: number): Promise<Lookup> {
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
      // The shared scan broke off: one listing of its own, retried, which throws rather than
      // report the endpoint gone when it cannot be had either.
      const { records, end } = await this.client.scan({});
      const record = records.find((candidate) => candidate.webhookId === id);
      return record !== undefined ? found(record) : notFoundIn(end);
    }
    // Absent from the complete listing: a page of the other scan that holds it still counts (a
    // service paging by offset can skip a record when another is removed during the listing).
    const record = scan.get(id, SCAN_FRESH_MS);
    if (record !== undefined) return found(record);
    for (const other of this.#slots.slice(1)) {
      const paged = other?.scan.get(id, PAGE_TRUST_MS);
      if (paged !== undefined) return found(paged);
    }
    return notFoundIn(scan.end ?? { complete: false, reason: "the listing of the service did not end" });
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

  /**
   * A scan of the whole service in one order. Its pages are not retried: a failed page ends it, and lookups
   * go by name.
   */
  #newScan(order: string | undefined): SharedScan {
    const filter = order === undefined ? {} : { ascending: order };
    return new SharedScan(() => this.client.listAll(filter, { maxRetries: 0 })[Symbol.asyncIterator]());
  }

  #mayAdvance(slot: ScanSlot): boolean {
    const { scan } = slot;
    return (
      !scan.done &&
      !scan.failed &&
      (scan.inflight !== undefined || scan.pages < SCAN_PAGE_ALLOWANCE + slot.earned)
    );
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
   * hold it and the listing goes on; not found, absent only when the listing proved itself complete.
   */
  async #list(
    filter: { webhookName?: string; webhookUrl?: string },
    id: number,
    redact: readonly string[] | undefined,
  ): Promise<Found> {
    let pages = 0;
    let end: ListingEnd | undefined;
    for await (const page of this.client.listAll(
      { ...filter, match: "service" },
      redact === undefined || redact.length === 0 ? {} : { redact },
    )) {
      const record = page.records.find((candidate) => candidate.webhookId === id);
      if (record !== undefined) return found(record);
      if (++pages >= BY_NAME_MAX_PAGES && page.nextCursor !== undefined) return INCONCLUSIVE;
      end = page.end ?? end;
    }
    return notFoundIn(end ?? { complete: false, reason: "the listing did not end" });
  }
}
