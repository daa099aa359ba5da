import type { Dispatcher } from "undici";

/** A webhook endpoint as the service describes it, in camelCase (1:1 with the API record). */
export interface WebhookEndpointRecord {
  webhookId: number;
  webhookName: string;
  webhookUrl: string;
  /** The signing secret. Treat as a secret: never log it. */
  signSecret: string;
  creatorId: number;
  creatorName: string;
  /** Milliseconds since the Unix epoch. */
  createTime: number;
  operatorId: number;
  operatorName: string;
  /** Milliseconds since the Unix epoch. */
  operateTime: number;
}

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
   * How many times a failed call may be retried (list: on 429, 5xx, connection failures and
   * unusable bodies; create: only when the service certainly did not act, or after a listing
   * proved that nothing was created).
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
   * Most pages `listAll` will fetch before stopping with a `WebhookPagingError`.
   * @default 1000
   */
  maxPages?: number;
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
   */
  tokenSource?: string;
  /** An undici dispatcher to use instead of the client's own keep-alive Agent. */
  dispatcher?: Dispatcher;
}

/** Per-call options; each overrides the client's setting for this call only. */
export interface CallOptions {
  /** Cancels the call; a create cancelled after sending may still have created the endpoint. */
  signal?: AbortSignal;
  /** Milliseconds per HTTP attempt. @default the client's `timeoutMs` */
  timeoutMs?: number;
  /** @default the client's `maxRetries` */
  maxRetries?: number;
}

export interface ListParams {
  /** Paging position; `""` (the default) asks for the first page. */
  cursor?: string;
  /** Records wanted in the page. @default the client's `pageSize` */
  limit?: number;
  /** Name filter; the service may match it exactly or partially. `""` means no filter. */
  webhookName?: string;
  /** URL filter; the service may match it exactly or partially. `""` means no filter. */
  webhookUrl?: string;
  /** Ordering switch, sent in string form. Booleans are sent as `"true"` / `"false"`. */
  ascending?: boolean | string;
}

/** What the server said about continuing, in whatever form it used. */
export interface Continuation {
  /** A cursor to send back for the next page, when the response carried a non-empty one. */
  cursor?: string;
  /** A has-more flag, when the response carried one. */
  hasMore?: boolean;
  /** The response field the continuation was read from, e.g. `data.next_cursor`. */
  source?: string;
}

export interface ListPage {
  records: WebhookEndpointRecord[];
  traceId: string;
  continuation: Continuation;
}

export interface CreateParams {
  webhookName: string;
  webhookUrl: string;
}

export interface CreateResult {
  record: WebhookEndpointRecord;
  traceId: string;
  /**
   * True when the create's response was lost and the endpoint was found by listing instead:
   * the record is the one created by this call, not a new one.
   */
  recovered: boolean;
  /** HTTP attempts made to the create route (1 in the normal case). */
  attempts: number;
}

export interface ScanResult {
  /** Every record listed, each id once. */
  records: WebhookEndpointRecord[];
  pages: number;
  /** The trace id of the last page. */
  traceId: string;
}
