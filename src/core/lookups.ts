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
 * the scan has to pay for itself:
 * - the first {@link BY_NAME_FIRST} lookups of a command go by name (a small stack never scans);
 * - after that, the scan's pages are fetched one at a time as lookups need them, as long as the
 *   pages fetched stay within {@link SCAN_PAGE_ALLOWANCE} plus the number of lookups the scan
 *   alone has answered: a lookup the pages fetched so far answer costs nothing, and earns the scan
 *   one more page;
 * - while the scan has answered nothing yet, a lookup it cannot answer goes by name and fetches
 *   the scan's next page at the same moment (no added latency); once it has, the next page is
 *   fetched first and the name is asked only if that page does not hold the endpoint.
 * So list calls per command stay at most one per endpoint plus {@link SCAN_PAGE_ALLOWANCE}, whatever
 * the service holds and whatever its page size; on a service holding mostly the stack's own
 * endpoints the scan answers nearly every lookup after the eighth. Measured in `npm run bench`
 * (README, Performance): the crowded-service rows are the reason for these numbers.
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

/** Lookups by id on one connection, with the shared scan described above. */
export class EndpointLookups {
  readonly stats: LookupStats = { lookups: 0, byName: 0, byUrl: 0, scanPages: 0, answeredByScan: 0, fullScans: 0 };
  #scan: SharedScan | undefined;
  /** Lookups answered by the scan's pages alone: each pays for one more page. */
  #earned = 0;

  constructor(private readonly client: WebhooksClient) {}

  /**
   * Finds an endpoint by id. `everywhere`: when neither its name nor its URL finds it, complete the
   * scan to tell a renamed endpoint from a deleted one (refresh and import); otherwise a name miss
   * means "not found" (diff: the endpoint vanished or was renamed, a replacement either way).
   */
  async find(id: number, hints: LookupHints, everywhere: boolean): Promise<WebhookEndpointRecord | undefined> {
    this.stats.lookups++;
    const scan = this.#currentScan();
    const cached = scan?.records.get(id);
    if (cached !== undefined) {
      this.#earned++;
      this.stats.answeredByScan++;
      return cached;
    }
    if (scan !== undefined && this.#earned > 0 && this.#mayAdvance(scan)) {
      // The scan is paying for itself: its next page probably holds this endpoint too.
      await this.#advance(scan);
      const paged = scan.records.get(id);
      if (paged !== undefined) {
        this.#earned++;
        this.stats.answeredByScan++;
        return paged;
      }
    }
    if (hints.webhookName || hints.webhookUrl) {
      const found = await this.#byHints(id, hints, scan !== undefined && this.#earned === 0 ? scan : undefined);
      if (found !== undefined || !everywhere) return found;
    }
    if (!everywhere) return undefined;
    return this.#fromCompleteScan(id);
  }

  /** By name (with the scan's next page fetched alongside, when `scan` is given); then by URL. */
  async #byHints(id: number, hints: LookupHints, scan: SharedScan | undefined): Promise<WebhookEndpointRecord | undefined> {
    const pageAlongside = scan !== undefined && this.#mayAdvance(scan) ? this.#advance(scan) : undefined;
    let found: WebhookEndpointRecord | undefined;
    if (hints.webhookName) {
      this.stats.byName++;
      const [records] = await Promise.all([this.#list({ webhookName: hints.webhookName }), pageAlongside]);
      found = records.find((record) => record.webhookId === id);
    } else {
      await pageAlongside;
    }
    found ??= scan?.records.get(id);
    if (found === undefined && hints.webhookUrl) {
      this.stats.byUrl++;
      found = (await this.#list({ webhookUrl: hints.webhookUrl })).find((record) => record.webhookId === id);
    }
    return found;
  }

  async #fromCompleteScan(id: number): Promise<WebhookEndpointRecord | undefined> {
    let scan = this.#scan;
    if (scan === undefined || !scan.usable) scan = this.#scan = this.#newScan();
    if (!scan.done) {
      this.stats.fullScans++;
      await scan.complete();
      this.stats.scanPages = scan.pages;
    }
    if (scan.failed) {
      // The listing could not be completed: say so rather than report the endpoint gone.
      const { records } = await this.client.scan({});
      return records.find((record) => record.webhookId === id);
    }
    return scan.records.get(id);
  }

  /** The scan, once past the first lookups by name; started on first need. */
  #currentScan(): SharedScan | undefined {
    if (this.stats.lookups <= BY_NAME_FIRST) return this.#scan?.usable ? this.#scan : undefined;
    if (this.#scan === undefined || !this.#scan.usable) {
      this.#scan = this.#newScan();
      this.#earned = 0;
    }
    return this.#scan;
  }

  #newScan(): SharedScan {
    return new SharedScan(() => this.client.listAll({})[Symbol.asyncIterator]());
  }

  #mayAdvance(scan: SharedScan): boolean {
    return !scan.done && !scan.failed && (scan.inflight !== undefined || scan.pages < SCAN_PAGE_ALLOWANCE + this.#earned);
  }

  async #advance(scan: SharedScan): Promise<void> {
    await scan.advance();
    this.stats.scanPages = scan.pages;
  }

  async #list(filter: { webhookName?: string; webhookUrl?: string }): Promise<WebhookEndpointRecord[]> {
    // The service's own matching: the id decides, and an endpoint stored under another form of its
    // name or URL is still found.
    const { records } = await this.client.scan({ ...filter, match: "service" });
    return records;
  }
}
