import type { Dispatcher } from "undici";

/** A webhook endpoint as the service describes it, in camelCase (1:1 with the API record). */
export interface WebhookEndpointRecord {
  /** `webhook_id`: the endpoint's id, assigned by the service. */
  webhookId: number;
  /** `webhook_name`: the name as the service stores it. */
  webhookName: string;
  /** `webhook_url`: the URL as the service stores it. */
  webhookUrl: string;
  /** `sign_secret`: the signing secret. Treat as a secret: never log it. */
  signSecret: string;
  /** `creator_id`: id of the principal that created the endpoint. */
  creatorId: number;
  /** `creator_name`: name of the principal that created the endpoint. */
  creatorName: string;
  /** `create_time`: milliseconds since the Unix epoch. */
  createTime: number;
  /** `operator_id`: id of the principal that last operated on the endpoint. */
  operatorId: number;
  /** `operator_name`: name of the principal that last operated on the endpoint. */
  operatorName: string;
  /** `operate_time`: milliseconds since the Unix epoch. */
  operateTime: number;
}

/** Options of `new WebhooksClient(...)`: only `baseUrl` and `accessToken` are required. */
export interface WebhooksClientOptions {
  /** Base URL of the service, e.g. `https://api.example.com`; paths `/open-api/v1/...` are appended. */
  baseUrl: string;
  /** The open-API access token, sent as the `Authorization` header and nowhere else. */
  accessToken: string;
  /**
   * Time allowed for one HTTP attempt (connect, headers and body), in milliseconds.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Time allowed for a create's answer, in milliseconds (never less than `timeoutMs`). Longer than
   * a list's: a create given up on may still be made by the service, and once given up on nothing
   * proves it was not, so it is never sent again. A slow service's own late answer settles it.
   * @default 60000
   */
  createTimeoutMs?: number;
  /**
   * How many times a failed call may be retried (list: on 429, 5xx, connection failures and
   * unusable bodies; create: only when the connection never carried the request, or after a
   * complete listing proved that nothing was created by a request the service is done with).
   * @default 3
   */
  maxRetries?: number;
  /**
   * Longest wait honoured from a `Retry-After` header, in milliseconds; a longer request is capped.
   * @default 30000
   */
  maxRetryAfterMs?: number;
  /**
   * First backoff delay in milliseconds; each retry doubles it (with full jitter) up to 8 s.
   * @default 250
   */
  retryBaseDelayMs?: number;
  /**
   * Records asked for per page by `listAll` and by lookups, when the caller gives no `limit`.
   * @default 100
   */
  pageSize?: number;
  /**
   * Most pages one listing (`listAll`, `scan`, a lookup) will fetch before stopping with a
   * `WebhookPagingError`.
   * @default 1000
   */
  maxPages?: number;
  /**
   * Most distinct records one listing will collect before stopping with a `WebhookPagingError`,
   * so that no server can make a listing grow without bound.
   * @default 50000
   */
  maxScanRecords?: number;
  /**
   * Most response bytes one listing will read, summed over its pages, before stopping with a
   * `WebhookPagingError`. Each response is also capped at 8 MB.
   * @default 33554432 (32 MB)
   */
  maxScanBytes?: number;
  /**
   * Value sent as `ascending` when the caller gives none. The document says only that it is a
   * string in the request; its accepted values are unknown, so it is configurable. No behaviour
   * of this package depends on the order of results.
   * @default "true"
   */
  ascending?: string;
  /**
   * After an ambiguous create (the request may have reached the service but no answer came back),
   * how long to keep looking for the endpoint before concluding that none was created, in
   * milliseconds. A service may still be processing a request whose connection we gave up on.
   * @default 3000
   */
  createSettleMs?: number;
  /**
   * Longest a create's listings may take in all, in milliseconds (never less than `timeoutMs`): those
   * before it is sent (every form of the name and URL, their pages and retries), and beyond
   * `createSettleMs` those that settle an ambiguous answer. Past it the create is not sent, or is
   * left uncertain, with a `WebhookTimeoutError` for the listing.
   * @default 60000
   */
  createListTimeoutMs?: number;
  /**
   * How far the service's clock may lag ours, in milliseconds, when deciding whether a listed
   * endpoint was created since a create attempt began.
   * @default 60000
   */
  clockSkewMs?: number;
  /**
   * Allow a plain `http://` base URL on a non-loopback host. The token would cross the network
   * in clear text, so this is refused unless set.
   * @default false
   */
  allowInsecureHttp?: boolean;
  /**
   * Where the token came from (e.g. `stack config webhooks:accessToken`), named in auth errors so
   * the user knows what to fix. Never the token itself.
   * @default "the client's accessToken option"
   */
  tokenSource?: string;
  /**
   * An undici dispatcher (`Agent`, `Pool`, `ProxyAgent`, `MockAgent`, ...) to send requests through
   * instead of the client's own keep-alive connections (Node's `http`/`https` modules). The client
   * never closes a dispatcher it was given.
   * @default the client's own keep-alive connections, closed by `close()`
   */
  dispatcher?: Dispatcher;
}

/** Per-call options; each overrides the client's setting for this call only. */
export interface CallOptions {
  /** Cancels the call; a create cancelled after sending may still have created the endpoint. */
  signal?: AbortSignal;
  /** Milliseconds per HTTP attempt. @default the client's `timeoutMs` */
  timeoutMs?: number;
  /** Retries allowed for this call. @default the client's `maxRetries` */
  maxRetries?: number;
  /**
   * Values the caller holds secret (a name or URL a Pulumi program marked secret, say): kept out of
   * every message and error this call builds, like the token, whatever the service echoes.
   * @default none
   */
  redact?: readonly string[];
}

/** Parameters of `list`: one page, filtered. */
export interface ListParams {
  /** Paging position; `""` (the default) asks for the first page. */
  cursor?: string;
  /** Records wanted in the page. @default the client's `pageSize` */
  limit?: number;
  /** Name filter. `""` means no filter. See `match`. */
  webhookName?: string;
  /** URL filter. `""` means no filter. See `match`. */
  webhookUrl?: string;
  /** Ordering switch, sent in string form. Booleans are sent as `"true"` / `"false"`. */
  ascending?: boolean | string;
  /**
   * How the name and URL filters match. `"exact"`: only records whose name and URL are exactly
   * the ones given are returned, up to the forms a service may store (surrounding white space and
   * Unicode normal form of a name; case of scheme and host, default port and one trailing slash of
   * a URL). `"service"`: whatever the service's own filter returns (it may match partially), for
   * searching.
   * @default "exact"
   */
  match?: "exact" | "service";
}

/** What the server said about continuing, in whatever form it used. */
export interface Continuation {
  /** A cursor to send back for the next page, when the response carried a non-empty one. */
  cursor?: string;
  /** A has-more flag, when the response carried one. */
  hasMore?: boolean;
  /** The response field the continuation was read from, e.g. `data.next_cursor`. */
  source?: string;
  /** True when that field held a cursor that cannot be used (a number too large to be exact). */
  unusable?: boolean;
}

/**
 * How a listing ended: `complete` when it proved that nothing else matches its filter (the
 * service's continuation said so, an empty page, or a page shorter than a page this service was
 * seen to send); otherwise the reason it cannot (the service ignores the paging position, caps its
 * pages without saying so, or failed when asked for more). A listing that is not complete shows
 * what it holds, but never proves an endpoint absent.
 */
export type ListingEnd = { complete: true } | { complete: false; reason: string };

/** One page of a listing. */
export interface ListPage {
  /** The page's records that match the filters (see `ListParams.match`). */
  records: WebhookEndpointRecord[];
  /** The response's trace id, or `""` when it did not carry one in the documented form. */
  traceId: string;
  /** What the server said about continuing, as it said it. */
  continuation: Continuation;
  /**
   * The cursor to pass for the next page, worked out from the continuation (or, with none, from the
   * last id of a page that may not be the last); undefined when the listing ended.
   */
  nextCursor?: string | undefined;
  /**
   * On the last page `listAll` yields, how the listing ended (see {@link ListingEnd}); undefined
   * on every other page, and on `list`'s. That last page may hold no new record: a page that only
   * repeated earlier ones, or none when asking for more failed.
   */
  end?: ListingEnd | undefined;
}

/** What to create. */
export interface CreateParams {
  /** The endpoint's name, sent as `webhook_name`. */
  webhookName: string;
  /** The URL that receives notifications, sent as `webhook_url`. */
  webhookUrl: string;
}

/** Options of `create`, on top of the per-call ones. */
export interface CreateOptions extends CallOptions {
  /**
   * Create even when an endpoint with the same name and URL already exists. Off by default: the
   * API cannot delete, so a second endpoint could never be removed.
   * @default false
   */
  allowDuplicate?: boolean;
  /**
   * Creator ids known to be this token's principal (the API cannot say which principal a token is;
   * a caller may know it, as `principalId` states it). After an ambiguous answer (a lost response, a
   * gateway's error, a timeout), a single endpoint with the name and URL that appeared since the
   * attempt began, created by one of them, is taken as this create's; one by any other creator is
   * not a candidate. Without them, only the creators of endpoints this client created count.
   */
  ourCreatorIds?: readonly number[];
}

/** The outcome of a successful `create`. */
export interface CreateResult {
  /** The endpoint created by this call, signing secret included. */
  record: WebhookEndpointRecord;
  /** The create response's trace id; `""` when the record was found by listing (`recovered`). */
  traceId: string;
  /**
   * True when the create's response was lost and the endpoint was found by listing instead:
   * the record is the one created by this call, not a new one.
   */
  recovered: boolean;
  /** HTTP attempts made to the create route (1 in the normal case). */
  attempts: number;
}

/** The outcome of `scan`. */
export interface ScanResult {
  /** Every record listed, each id once. */
  records: WebhookEndpointRecord[];
  /** Pages fetched. */
  pages: number;
  /** The trace id of the last page. */
  traceId: string;
  /** How the listing ended: only a complete one proves that an endpoint is not there. */
  end: ListingEnd;
}

/** A listing to filter and page through: the list parameters without the paging position. */
export type ListFilter = Omit<ListParams, "cursor">;
