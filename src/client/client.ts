import { CREATE_PATH, LIST_PATH } from "../api/contract";
import { quoteServiceText, sanitizeCause } from "../text";
import {
  WebhookAbortError,
  WebhookApiError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookInvalidResponseError,
  WebhookTimeoutError,
} from "./errors";
import { checkedCallOptions, checkToken, clientSettings, parseBaseUrl, type ClientSettings } from "./options";
import { COMPLETE, nextCursor, oppositeOrder, pagesOf, readContinuation, type ServicePage } from "./paging";
import {
  errorText,
  refuseExistingAnswer,
  settleAmbiguousCreate,
  takeSnapshot,
  type CreateSnapshot,
  type ServiceListing,
} from "./reconcile";
import { MIN_EXTRA_SECRET_CHARS, interpretResponse, type InterpretContext } from "./responses";
import { classifyCreateFailure, eitherSignal, isRetryableList, retrying } from "./retry";
import { looseEndpointKey, sameName, sameUrl } from "./rules";
import { CREATE_RESPONSE, LIST_RESPONSE, toRecord } from "./schemas";
import { ListedSecrets, scrubSecrets } from "./scrub";
import { Transport } from "./transport";
import type {
  CallOptions,
  CreateOptions,
  CreateParams,
  CreateResult,
  ListFilter,
  ListingEnd,
  ListPage,
  ListParams,
  ScanResult,
  WebhookEndpointRecord,
  WebhooksClientOptions,
} from "./types";

/** What a create leaves for the next create of the same address through this client. */
interface QueueOutcome {
  /** Set when a create before it may have made the endpoint without its being seen: why. */
  uncertain?: unknown;
}

/** Whether a create was sent and may have made an endpoint that no answer or listing showed. */
interface CreateProgress {
  mayHaveCreated: boolean;
  /**
   * Every record this create's settling listings returned, over all its settlings (the window's and
   * each retry's round): one id listed under two creators at any point is contested.
   */
  settled: WebhookEndpointRecord[];
  /**
   * The token, the caller's `redact` values, then the signing secret of every record this create's
   * listings return (appended as they come): redacted from every message built from service text
   * during the create, and from a later create's of the same address that waits its turn.
   */
  secrets: string[];
}

/** A create's listings, with their bound as a whole and what they saw. */
interface CreateListings {
  listing: ServiceListing;
  /** Every record the listings returned, page by page (also of a listing that then failed). */
  seen: WebhookEndpointRecord[];
  /** Ends the bound's timer. */
  done(): void;
}

/** Internal options of a create's listings, beside the caller's. */
/** A create's cancel while it waited to send again. */
const CANCELLED_BEFORE_RESEND =
  "create was cancelled by the caller before it was sent again; the attempts before it made nothing";

interface ListingHooks {
  /** Redacted from the service's text like the token: signing secrets this create has seen. */
  secrets?: readonly string[];
  /** Called with each page's records. */
  observe?: (records: readonly WebhookEndpointRecord[]) => void;
  /** The secrets this listing operation's pages returned: its later pages' errors redact them. */
  listed?: ListedSecrets;
}

/**
 * A typed client for the webhook endpoint API (list and create). It never retries a create
 * blindly, never creates what already exists, never trusts the server's filters to be exact, and
 * never puts the token anywhere but the `Authorization` header.
 *
 * Where each job lives: configuration in `options.ts`, HTTP in `transport.ts`, response to
 * result-or-error in `responses.ts`, retries and backoff in `retry.ts`, paging in `paging.ts`,
 * create reconciliation in `reconcile.ts`, name and URL rules in `rules.ts`.
 */
export class WebhooksClient {
  /** The base URL in use, without a trailing slash. */
  readonly baseUrl: string;
  readonly #settings: ClientSettings;
  readonly #context: InterpretContext;
  readonly #transport: Transport;
  readonly #inflightLists = new Map<string, Promise<ServicePage>>();
  /** Creates of one name and URL run one after another (see `create`). */
  readonly #createQueues = new Map<string, Promise<QueueOutcome>>();
  /** The secrets lists (`CreateProgress.secrets`) of the creates of each address in its queue. */
  readonly #queuedSecrets = new Map<string, Set<string[]>>();
  /**
   * Addresses (see `looseEndpointKey`) whose last create was sent and may have made an endpoint no
   * answer or listing showed, with why: no later create of them is sent through this client.
   */
  readonly #uncertainAddresses = new Map<string, unknown>();
  /** Creator ids of endpoints this client created: our principal, once known. */
  readonly #ourCreatorIds = new Set<number>();
  /** The most records the service sent in one page so far: a shorter page without a continuation is its last. */
  #reach = 0;
  /** Whether a page no filter narrows was asked for to learn {@link #reach} (once per client). */
  #reachLearnt = false;
  /** Whether the service was shown to read a record's id sent as the cursor as "after this id" (see `paging.ts`). */
  #pagesById = false;

  /**
   * @param options `baseUrl` and `accessToken`, plus optional tuning (see
   *   {@link WebhooksClientOptions}). Throws `WebhookConfigError` for a bad base URL, an empty token
   *   or an out-of-range option; nothing is sent until the first call.
   */
  constructor(options: WebhooksClientOptions) {
    const token = checkToken(options.accessToken);
    this.#settings = clientSettings(options);
    const origin = parseBaseUrl(options.baseUrl, this.#settings.allowInsecureHttp);
    this.baseUrl = origin.href.replace(/\/$/, "");
    this.#context = { token, tokenSource: options.tokenSource ?? "the client's accessToken option" };
    this.#transport = new Transport(origin, token, this.#settings.timeoutMs, options.dispatcher);
  }

  /**
   * Lists one page. Retried on 429 (honouring `Retry-After`), 5xx, connection failures and
   * unusable bodies, with jittered exponential backoff, at most `maxRetries` times. Identical
   * calls in flight at the same moment share one request. A page with more records than `limit`
   * is an invalid response.
   */
  async list(params: ListParams = {}, given?: CallOptions): Promise<ListPage> {
    const options = checkedCallOptions(given, "list");
    const limit = params.limit ?? this.#settings.pageSize;
    const page = await this.#fetchPage({ ...params, limit }, options);
    return {
      records: this.#matching(page.records, params),
      traceId: page.traceId,
      continuation: page.continuation,
      nextCursor: nextCursor(page.records, page.continuation, limit, this.#reach),
    };
  }

  /**
   * Every page matching the filter, following whatever continuation the server gives: a cursor
   * field, a has-more flag (the next cursor is then the last record's id), or none (an empty page,
   * or one shorter than a page the service was seen to send, ends the listing; after any other the
   * last id is asked for). The last page says how the listing ended (`end`): a service that
   * ignores the paging position or caps its pages without saying so ends it possibly incomplete.
   * A cap (`maxPages`, `maxScanRecords`, `maxScanBytes`) or a cursor that cannot be used stops it
   * with a `WebhookPagingError`.
   */
  async *listAll(filter: ListFilter = {}, given?: CallOptions): AsyncGenerator<ListPage, void, undefined> {
    const options = checkedCallOptions(given, "list");
    const limit = filter.limit ?? this.#settings.pageSize;
    const filtered = (filter.webhookName ?? "") !== "" || (filter.webhookUrl ?? "") !== "";
    const listed = new ListedSecrets();
    const paging: CallOptions & ListingHooks = { ...options, listed };
    const fetch = async (cursor: string) => {
      const page = await this.#fetchPage({ ...filter, cursor, limit }, paging);
      listed.add(page.records);
      return page;
    };
    const pages = pagesOf(fetch, {
      ...this.#settings,
      limit,
      reach: () => this.#reach,
      learnReach: filtered ? () => this.#learnReach(limit, paging) : undefined,
      idPaging: { confirmed: () => this.#pagesById, confirm: () => (this.#pagesById = true) },
    });
    for await (const page of pages) {
      yield {
        records: this.#matching(page.records, filter),
        traceId: page.traceId,
        continuation: page.continuation,
        nextCursor: page.next,
        ...(page.end === undefined ? {} : { end: page.end }),
      };
    }
  }

  /** Collects every record of `listAll(filter)`, each id once (pages may overlap), and how the listing ended. */
  async scan(filter: ListFilter = {}, options: CallOptions = {}): Promise<ScanResult> {
    const listed = await this.#collect(filter, options);
    const byId = new Map<number, WebhookEndpointRecord>();
    for (const record of listed.records) if (!byId.has(record.webhookId)) byId.set(record.webhookId, record);
    return { ...listed, records: [...byId.values()] };
  }

  /**
   * Every record of `listAll(filter)`, every copy of an id a service lists more than once (a create's
   * checks look at each: a copy that is the endpoint must not hide behind one that is not), and how
   * the listing ended.
   */
  async #collect(filter: ListFilter, options: CallOptions): Promise<ScanResult> {
    const records: WebhookEndpointRecord[] = [];
    let pages = 0;
    let traceId = "";
    let end: ListingEnd = COMPLETE;
    for await (const page of this.listAll(filter, options)) {
      pages++;
      traceId = page.traceId;
      end = page.end ?? end;
      records.push(...page.records);
    }
    return { records, pages, traceId, end };
  }

  /**
   * Creates an endpoint, safely on an API that can never delete (see `reconcile.ts`):
   * - one listing by name first (by URL too when that listing cannot prove itself complete): an
   *   endpoint that may be the requested one already existing is a `WebhookEndpointExistsError`
   *   and nothing is sent (unless `allowDuplicate`);
   * - the create is sent again at once only when the connection never carried it (`retry.ts`);
   * - any other failure but a refusal (a 5xx or 429 from the service or a gateway, a body that is
   *   not the envelope, a connection dropped after sending) is settled by listing, only among
   *   endpoints that did not exist before: one is the result, none (after `createSettleMs`, in a
   *   complete listing, for a request the service is done with) lets it be sent again, anything
   *   else is a `WebhookCreateUncertainError` saying what may exist.
   * Concurrent creates through one client of addresses that may be one endpoint (the same name and
   * URL up to the forms a service may store: `maySameEndpoint`) run one after another.
   */
  async create(params: CreateParams, given?: CreateOptions): Promise<CreateResult> {
    const options = checkedCallOptions(given, "create");
    const key = looseEndpointKey(params);
    const previous = this.#createQueues.get(key);
    const progress: CreateProgress = {
      mayHaveCreated: false,
      settled: [],
      secrets: [this.#context.token, ...nonEmpty(options.redact)],
    };
    // What the queue's creates list is redacted from a cancel of one waiting its turn.
    const queued = this.#queuedSecrets.get(key) ?? new Set<string[]>();
    this.#queuedSecrets.set(key, queued.add(progress.secrets));
    // An earlier create of this address through this client whose outcome is still unknown, queued
    // or not, is remembered: the service may yet show the endpoint it made.
    const run =
      previous === undefined
        ? this.#createNow(params, options, progress, this.#uncertainAddresses.get(key))
        : this.#turn(previous, options, () => [...queued].flat()).then((earlier) =>
            this.#createNow(
              params,
              options,
              progress,
              earlier.uncertain ?? this.#uncertainAddresses.get(key),
            ),
          );
    // The next create of this address waits for every earlier one, not just this one (a create
    // cancelled while it waits for its turn must not let the next run beside one still in flight),
    // and learns whether one of them may have made the endpoint without its being seen.
    const settled = Promise.allSettled([previous, run]).then(([before, mine]): QueueOutcome => {
      if (progress.mayHaveCreated) {
        const uncertain: unknown = mine.status === "rejected" ? mine.reason : "an earlier create";
        this.#uncertainAddresses.set(key, uncertain);
        return { uncertain };
      }
      // Seen: made, or found by the listing before it.
      if (mine.status === "fulfilled" || mine.reason instanceof WebhookEndpointExistsError) {
        this.#uncertainAddresses.delete(key);
        return {};
      }
      return before.status === "fulfilled" ? (before.value ?? {}) : {};
    });
    this.#createQueues.set(key, settled);
    void settled.then(() => {
      if (this.#createQueues.get(key) === settled) this.#createQueues.delete(key);
      queued.delete(progress.secrets);
      if (queued.size === 0 && this.#queuedSecrets.get(key) === queued) this.#queuedSecrets.delete(key);
    });
    return run;
  }

  /**
   * Resolves when the earlier creates of the same address are done; the caller's cancel, or
   * `close()`, ends the wait at once, and then nothing of this create was sent.
   */
  #turn(
    previous: Promise<QueueOutcome>,
    options: CallOptions,
    listed: () => readonly string[],
  ): Promise<QueueOutcome> {
    const { signal } = options;
    const ends =
      signal === undefined ? this.#closing.signal : AbortSignal.any([signal, this.#closing.signal]);
    return new Promise<QueueOutcome>((resolve, reject) => {
      const stop = () => {
        reject(
          signal?.aborted === true
            ? new WebhookAbortError(
                "create was cancelled by the caller while it waited for an earlier create of the same name and URL through this client; nothing of it was sent",
                {
                  operation: "create",
                  cause: sanitizeCause(signal.reason, this.#redacted(options, listed())),
                },
              )
            : new WebhookConnectionError(
                "create was not sent: the client was closed while it waited for an earlier create of the same name and URL",
                { operation: "create", requestSent: false },
              ),
        );
      };
      if (ends.aborted) return stop();
      ends.addEventListener("abort", stop, { once: true });
      void previous.then((outcome) => {
        ends.removeEventListener("abort", stop);
        resolve(outcome);
      });
    });
  }

  /**
   * Closes the client's own keep-alive connections; a `dispatcher` given in the options is left
   * open. A call waiting to retry stops waiting, and nothing is sent again.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.#transport.close();
  }

  /**
   * Looks for the endpoint an ambiguous create may have made (reconcile.ts). Cancelled meanwhile
   * (while it waits or lists), it says that the create was sent and may have made it; an error that
   * names candidates says more, and is kept. Closed meanwhile, it stops and says the same.
   */
  async #settle(
    params: CreateParams,
    snapshot: CreateSnapshot,
    failure: WebhookApiError,
    secrets: string[],
    options: CreateOptions,
    settleMs: number,
    earlier: WebhookEndpointRecord[],
  ): Promise<WebhookEndpointRecord | undefined> {
    // Bounded as a whole: the settle window, and the listings' own bound beyond it.
    const listings = this.#createListings(options, secrets, settleMs, "the endpoint may have been created");
    const before = earlier.length;
    try {
      return await settleAmbiguousCreate(listings.listing, params, snapshot, failure, {
        seen: () => [...earlier.slice(0, before), ...listings.seen],
        secrets,
        settleMs,
        clockSkewMs: this.#settings.clockSkewMs,
        ourCreatorIds: this.#principals(options),
        opposite: oppositeOrder(this.#settings.ascending),
        allowExisting: options.allowDuplicate === true,
        // Its waits end on close() too.
        signal: eitherSignal(options.signal, this.#closing.signal),
      });
    } catch (settling) {
      // Worded before the settling's listings, or copying the failure's fields: a signing secret
      // they returned is redacted from both.
      scrubSecrets(failure, secrets);
      scrubSecrets(settling, secrets);
      const about = {
        operation: "create",
        cause: failure,
        status: failure.status,
        traceId: failure.traceId,
      } as const;
      // An error that names candidates says more than either message below: it is kept.
      if (settling instanceof WebhookCreateUncertainError && settling.candidateIds.length > 0) throw settling;
      if (this.#closing.signal.aborted && options.signal?.aborted !== true)
        throw new WebhookCreateUncertainError(
          "create was sent, and the client was closed while it looked for the endpoint the create may have made; the endpoint may have been created",
          about,
        );
      if (options.signal?.aborted !== true) throw settling;
      throw new WebhookAbortError(
        "create was cancelled by the caller while the client looked for the endpoint it may have made; the endpoint may have been created",
        about,
      );
    } finally {
      earlier.push(...listings.seen);
      listings.done();
      // The failure was worded before the settling's listings, and is every error's cause, or thrown
      // as it is when the create may be sent again: a signing secret they returned is redacted from it.
      scrubSecrets(failure, secrets);
    }
  }

  /**
   * `#settle` for a create in progress: what it finds, taken, ends the create's uncertainty; refused
   * because someone else's endpoint is there, the create made none, and nothing is left uncertain.
   */
  async #settled(
    params: CreateParams,
    snapshot: CreateSnapshot,
    failure: WebhookApiError,
    secrets: string[],
    options: CreateOptions,
    progress: CreateProgress,
    settleMs = this.#settings.createSettleMs,
  ): Promise<WebhookEndpointRecord | undefined> {
    try {
      const found = await this.#settle(
        params,
        snapshot,
        failure,
        secrets,
        options,
        settleMs,
        progress.settled,
      );
      if (found) progress.mayHaveCreated = false;
      return found;
    } catch (settling) {
      if (settling instanceof WebhookEndpointExistsError) progress.mayHaveCreated = false;
      throw settling;
    }
  }

  /**
   * Before a create is sent again, after the backoff: a retry is a create like the first, so it is
   * not sent beside an endpoint that appeared during the wait. When no attempt reached the service,
   * the listing before a create runs again; after one the service answered ambiguously (and the
   * settling found none), one more settling round, which takes our own late commit or names what
   * appeared. Returns the endpoint taken, if any, or the ids the listing of step 1 showed.
   */
  async #beforeRetry(
    params: CreateParams,
    snapshot: CreateSnapshot,
    previous: { failure: WebhookApiError; sent: boolean },
    secrets: string[],
    options: CreateOptions,
    progress: CreateProgress,
  ): Promise<{ found?: WebhookEndpointRecord | undefined; listed?: ReadonlySet<number> }> {
    // An attempt that reached the service may have made it: until this round says otherwise, the
    // create's outcome is unknown (what waits on it, and the client's memory, see that).
    progress.mayHaveCreated = previous.sent;
    if (previous.sent)
      return {
        found: await this.#settled(params, snapshot, previous.failure, secrets, options, progress, 0),
      };
    // What this listing shows is, for the answer to come, what existed before the create.
    return { listed: (await this.#snapshot(params, options, secrets)).ids };
  }

  /** Aborted by `close`: ends the waits between attempts. */
  readonly #closing = new AbortController();

  /**
   * How a call's waits between attempts end early, and what they throw then: the caller's cancel
   * (a WebhookAbortError saying what it leaves, whose cause is the cancel's reason with the token,
   * the caller's `redact` values and the `listed` secrets of the operation redacted), or `close`
   * (nothing more is sent).
   */
  #waits(
    operation: "list" | "create",
    options: CallOptions,
    cancelled: string,
    listed: () => readonly string[] = () => [],
  ): { signal: AbortSignal | undefined; closing: AbortSignal; cancelled: (reason: unknown) => Error } {
    const { signal } = options;
    return {
      signal,
      closing: this.#closing.signal,
      cancelled: (reason) =>
        signal?.aborted === true
          ? new WebhookAbortError(cancelled, {
              operation,
              cause: sanitizeCause(reason, this.#redacted(options, listed())),
            })
          : new WebhookConnectionError(`${operation} was not sent again: the client was closed`, {
              operation,
              requestSent: false,
            }),
    };
  }

  /**
   * What a message built from anyone's text redacts: the token, the caller's `redact` values, and of
   * the signing secrets the operation listed those of MIN_EXTRA_SECRET_CHARS or more.
   */
  #redacted(options: CallOptions, listed: readonly string[]): string[] {
    return [
      this.#context.token,
      ...nonEmpty(options.redact),
      ...listed.filter((secret) => secret.length >= MIN_EXTRA_SECRET_CHARS),
    ];
  }

  /** Creator ids known to be ours: learnt from this client's creates, and those the caller says are. */
  #principals(options: CreateOptions): ReadonlySet<number> {
    const told = (options.ourCreatorIds ?? []).filter((id) => Number.isSafeInteger(id));
    return told.length === 0 ? this.#ourCreatorIds : new Set([...this.#ourCreatorIds, ...told]);
  }

  /** The listing before a create: what exists already (see `takeSnapshot`), within its bound. */
  async #snapshot(params: CreateParams, options: CreateOptions, secrets: string[]): Promise<CreateSnapshot> {
    const before = this.#createListings(options, secrets, 0, "the create was not sent");
    try {
      return await takeSnapshot(before.listing, params, {
        allowExisting: options.allowDuplicate === true,
        signal: options.signal,
        secrets,
      });
    } finally {
      before.done();
    }
  }

  async #createNow(
    params: CreateParams,
    options: CreateOptions,
    progress: CreateProgress,
    earlierUncertain: unknown,
  ): Promise<CreateResult> {
    const body = { webhook_name: params.webhookName, webhook_url: params.webhookUrl };
    const { secrets } = progress;
    let snapshot = await this.#snapshot(params, options, secrets);
    // Once a listing shows an endpoint there, what the earlier create made (or not) is visible: only
    // `allowDuplicate` gets this far with one shown.
    if (earlierUncertain !== undefined && !snapshot.showsOne)
      throw notSentAfterUncertain(params, earlierUncertain, secrets);
    // Failures after which the service certainly holds nothing from this call: a retry cannot duplicate.
    const nothingCreated = new WeakSet<object>();
    let attempts = 0;
    /** The last attempt's failure, and whether any attempt so far may have reached the service. */
    let previous: { failure: WebhookApiError; sent: boolean } | undefined;
    const result = await retrying(
      async () => {
        attempts++;
        if (previous !== undefined) {
          // A retry is a create like the first: not sent beside an endpoint that appeared meanwhile.
          const again = await this.#beforeRetry(params, snapshot, previous, secrets, options, progress);
          if (again.found) return { record: again.found, traceId: "", recovered: true };
          if (again.listed) snapshot = { ...snapshot, ids: new Set([...snapshot.ids, ...again.listed]) };
        }
        progress.mayHaveCreated = true;
        try {
          const raw = await this.#transport.post(CREATE_PATH, body, {
            operation: "create",
            // Given up on, a create can never be sent again (nothing proves the service did not
            // make it): its answer is waited for longer than a list's.
            timeoutMs: Math.max(
              options.timeoutMs ?? this.#settings.timeoutMs,
              this.#settings.createTimeoutMs,
            ),
            signal: options.signal,
          });
          // `secrets` holds the signing secrets this create's listings saw: a refusal quoting one is redacted.
          const envelope = interpretResponse("create", raw, CREATE_RESPONSE, {
            ...this.#context,
            secrets,
            redact: nonEmpty(options.redact),
          });
          const record = toRecord(envelope.data, [this.#context.token]);
          progress.mayHaveCreated = false;
          return { record, traceId: envelope.trace_id, recovered: false };
        } catch (error) {
          const outcome = classifyCreateFailure(error);
          if (!(error instanceof WebhookApiError)) throw error;
          if (outcome === "refused") {
            // A cancel by the caller is final but proves nothing: the request may have gone out.
            if (!(error instanceof WebhookAbortError)) progress.mayHaveCreated = false;
            throw error;
          }
          if (outcome === "ambiguous") {
            // Throws, leaving the create possibly made, unless the listings settle it.
            const found = await this.#settled(params, snapshot, error, secrets, options, progress);
            if (found) return { record: found, traceId: "", recovered: true };
          }
          progress.mayHaveCreated = false;
          // The settling judges the answer of the last attempt that reached the service.
          previous =
            outcome === "ambiguous" || previous === undefined
              ? { failure: error, sent: previous?.sent === true || outcome === "ambiguous" }
              : previous;
          nothingCreated.add(error);
          throw error;
        }
      },
      {
        maxRetries: options.maxRetries ?? this.#settings.maxRetries,
        canRetry: (error) => typeof error === "object" && error !== null && nothingCreated.has(error),
        backoff: this.#settings,
        ...this.#waits("create", options, CANCELLED_BEFORE_RESEND, () => secrets),
      },
    );
    if (!result.recovered)
      refuseExistingAnswer(result.record, params, snapshot, {
        clockSkewMs: this.#settings.clockSkewMs,
        secrets,
        ourCreatorIds: this.#principals(options),
      });
    this.#ourCreatorIds.add(result.record.creatorId);
    return { ...result, attempts };
  }

  /**
   * A create's listings (every record for a filter, with the service's own matching, and how the
   * listing ended), bounded as a whole by `createListTimeoutMs` (at least one request's deadline)
   * plus `extraMs`, from now: past it a listing fails with a `WebhookTimeoutError` that
   * says `after`. Each record's signing secret is appended to `seenSecrets` (once) as its page
   * comes, to be redacted from later messages, the listings' own included.
   */
  #createListings(
    options: CallOptions,
    seenSecrets: string[],
    extraMs: number,
    after: string,
  ): CreateListings {
    const ms =
      Math.max(this.#settings.createListTimeoutMs, options.timeoutMs ?? this.#settings.timeoutMs) + extraMs;
    const bound = new AbortController();
    const timer = setTimeout(() => bound.abort(), ms);
    const secrets = new Set(seenSecrets);
    const seen: WebhookEndpointRecord[] = [];
    const hooks: ListingHooks = {
      secrets: seenSecrets,
      observe: (records) => {
        for (const record of records) {
          seen.push(record);
          if (!secrets.has(record.signSecret)) {
            secrets.add(record.signSecret);
            seenSecrets.push(record.signSecret);
          }
        }
      },
    };
    const listing: ServiceListing = async (filter, signal) => {
      try {
        return await this.#collect(
          { ...filter, match: "service" },
          {
            ...options,
            ...hooks,
            signal: signal === undefined ? bound.signal : AbortSignal.any([signal, bound.signal]),
          },
        );
      } catch (error) {
        if (!bound.signal.aborted || signal?.aborted === true) throw error;
        throw new WebhookTimeoutError(
          `list for the create took longer than ${ms / 1000} s in all (every form of its name and URL, their pages and retries), and was stopped; ${after}`,
          { operation: "list", requestSent: true },
        );
      }
    };
    return { listing, seen, done: () => clearTimeout(timer) };
  }

  /**
   * Learns how many records the service sends in one page from a page no filter narrows (once per
   * client): a filtered listing's small pages alone cannot be told from a service's silent cap. A
   * failure leaves it unlearnt: the listing then proves nothing it could not prove before.
   */
  async #learnReach(limit: number, options: CallOptions): Promise<void> {
    if (this.#reachLearnt) return;
    this.#reachLearnt = true;
    await this.#fetchPage({ limit }, options).catch(() => undefined);
  }

  /** One page as the service sent it; identical concurrent requests share one. */
  #fetchPage(params: ListParams & { limit: number }, options: CallOptions): Promise<ServicePage> {
    const body = {
      cursor: params.cursor ?? "",
      limit: params.limit,
      webhook_name: params.webhookName ?? "",
      webhook_url: params.webhookUrl ?? "",
      ascending: params.ascending === undefined ? this.#settings.ascending : String(params.ascending),
    };
    if (options.signal) return this.#fetchPageNow(body, options);
    const key = JSON.stringify([body, options.timeoutMs, options.maxRetries, options.redact]);
    const inflight = this.#inflightLists.get(key);
    if (inflight) return inflight;
    const promise = this.#fetchPageNow(body, options).finally(() => this.#inflightLists.delete(key));
    this.#inflightLists.set(key, promise);
    return promise;
  }

  #fetchPageNow(
    body: { limit: number } & Record<string, unknown>,
    options: CallOptions,
  ): Promise<ServicePage> {
    const tokenOnly = [this.#context.token];
    const hooks = options as CallOptions & ListingHooks;
    return retrying(
      async () => {
        const raw = await this.#transport.post(LIST_PATH, body, this.#sendOptions("list", options));
        const envelope = interpretResponse("list", raw, LIST_RESPONSE, {
          ...this.#context,
          secrets: hooks.secrets,
          redact: nonEmpty(options.redact),
          listed: hooks.listed,
        });
        if (envelope.data.data.length > body.limit) {
          throw new WebhookInvalidResponseError(
            `list returned ${envelope.data.data.length} records in a page for which ${body.limit} were asked: a listing is bounded only if the service honours limit; if it answers in fixed pages larger than that, set the page size to its own (pageSize, webhooks:pageSize or WEBHOOKS_PAGE_SIZE)`,
            {
              operation: "list",
              status: raw.status,
              traceId: envelope.trace_id || undefined,
              field: "data.data",
            },
          );
        }
        if (envelope.data.data.length > this.#reach) this.#reach = envelope.data.data.length;
        const records = envelope.data.data.map((record) => toRecord(record, tokenOnly));
        hooks.observe?.(records);
        return {
          records,
          traceId: envelope.trace_id,
          continuation: readContinuation(envelope.data),
          // UTF-8 bytes, what the body was on the wire, not UTF-16 units: a CJK body is 3 bytes a
          // character there and at least 2 in memory, so counting units let a scan hold 2x its cap.
          bytes: Buffer.byteLength(raw.text, "utf8"),
        };
      },
      {
        maxRetries: options.maxRetries ?? this.#settings.maxRetries,
        canRetry: isRetryableList,
        backoff: this.#settings,
        ...this.#waits("list", options, "list was cancelled by the caller while it waited to retry", () => [
          ...(hooks.secrets ?? []),
          ...(hooks.listed?.values ?? []),
        ]),
      },
    );
  }

  /** Client-side re-matching: exact by default, since a service's filter may be partial or ignored. */
  #matching(records: WebhookEndpointRecord[], filter: ListParams): WebhookEndpointRecord[] {
    if (filter.match === "service") return records;
    const name = filter.webhookName ?? "";
    const url = filter.webhookUrl ?? "";
    if (name === "" && url === "") return records;
    return records.filter(
      (r) => (name === "" || sameName(r.webhookName, name)) && (url === "" || sameUrl(r.webhookUrl, url)),
    );
  }

  #sendOptions(operation: "list" | "create", options: CallOptions) {
    return { operation, timeoutMs: options.timeoutMs ?? this.#settings.timeoutMs, signal: options.signal };
  }
}

/** The caller's secret values worth redacting (an empty string would match everywhere). */
function nonEmpty(values: readonly string[] | undefined): string[] {
  return (values ?? []).filter((value) => value.length > 0);
}

/**
 * A create not sent because an earlier create of the same address through the client was sent and
 * may have made the endpoint, which no listing shows yet.
 */
function notSentAfterUncertain(
  params: CreateParams,
  earlier: unknown,
  secrets: readonly string[],
): WebhookCreateUncertainError {
  const name = quoteServiceText(params.webhookName, secrets);
  return new WebhookCreateUncertainError(
    `create of ${name} was not sent: an earlier create of this name and URL through this client was sent and may have made the endpoint, which no listing shows yet (${errorText(earlier, secrets)}). List the endpoints named ${name} later: adopt the one that appears, or create again once none has`,
    { operation: "create", cause: sanitizeCause(earlier, secrets) },
  );
}
