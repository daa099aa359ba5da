/**
 * The independent oracle of the hostile-response tests: what a response means and what the client
 * must do with it, read from the API document and the client's stated rules (docs/client.md; the
 * README's promises: the token is never in an error message, nothing is duplicated or taken).
 * It is written from those statements and never from src/client: the rules are data (tables of
 * fields, clauses and caps) interpreted by small functions, and wherever a statement leaves a case
 * open the oracle says so ("unsure") instead of guessing, so a property never encodes a guess.
 *
 * A departure of the client from a statement is named in {@link KNOWN_DEPARTURES} (all off: none is
 * accepted); each has a plain test in test/hostile/regressions.test.ts. Switched on, the properties
 * would accept that behaviour there only, and count how often it mattered.
 */
import type { WebhookEndpointRecord } from "../../src/client";
import { TOKEN } from "../support/helpers";

export type Json = unknown;
export type Obj = Record<string, Json>;
export const isObject = (value: Json): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Known departures of the current client from the stated rules (see regressions.test.ts). */
export const KNOWN_DEPARTURES = {
  /** paging.ts: an empty page ends a listing even when it carries a cursor (or a has-more flag). */
  emptyPageEndsListing: false,
  /** errors.ts / redact.ts: a message cut at 2000 characters gets a "…" appended: 2001 characters. */
  cutMessageIs2001Chars: false,
  /**
   * redact.ts / responses.ts: the token is redacted before control characters are removed, so a token split
   * by one comes back whole.
   */
  tokenRejoinedAfterStripping: false,
  /** reconcile.ts: names and creator names quoted in create's errors are not redacted. */
  recordTextNotRedactedInCreateErrors: false,
  /** paging.ts: a WebhookPagingError carries traceId "" (not undefined) when the page had no documented trace id. */
  pagingErrorTraceIdEmpty: false,
  /**
   * responses.ts: an error envelope whose code is not a string or number is ignored whole, so the error's
   * trace id (and msg) come from elsewhere.
   */
  envelopeIgnoredWhenCodeUnreadable: false,
} as const;

/** How often the properties met each departure (printed with the totals). */
export const departuresMet: Record<keyof typeof KNOWN_DEPARTURES, number> = {
  emptyPageEndsListing: 0,
  cutMessageIs2001Chars: 0,
  tokenRejoinedAfterStripping: 0,
  recordTextNotRedactedInCreateErrors: 0,
  pagingErrorTraceIdEmpty: 0,
  envelopeIgnoredWhenCodeUnreadable: 0,
};

// ---------------------------------------------------------------------------------------------
// 1. The statements, as data.

/** API document, section 2: the record's fields and their JSON types; docs/client.md, "Bounds": the text caps. */
type FieldRule = { field: string; camel: keyof WebhookEndpointRecord } & (
  { type: "integer" } | { type: "text"; min: number; max: number }
);
export const RECORD_RULES: readonly FieldRule[] = [
  { field: "webhook_id", camel: "webhookId", type: "integer" },
  { field: "webhook_name", camel: "webhookName", type: "text", min: 0, max: 4096 },
  { field: "webhook_url", camel: "webhookUrl", type: "text", min: 0, max: 16_384 },
  { field: "sign_secret", camel: "signSecret", type: "text", min: 1, max: 4096 },
  { field: "creator_id", camel: "creatorId", type: "integer" },
  { field: "creator_name", camel: "creatorName", type: "text", min: 0, max: 4096 },
  { field: "create_time", camel: "createTime", type: "integer" },
  { field: "operator_id", camel: "operatorId", type: "integer" },
  { field: "operator_name", camel: "operatorName", type: "text", min: 0, max: 4096 },
  { field: "operate_time", camel: "operateTime", type: "integer" },
];
export const RECORD_FIELD_NAMES = RECORD_RULES.map((rule) => rule.field);

export const STATED = {
  /** Section 2: code "200" on success (a bare number 200 says the same). */
  successCodes: new Set<Json>(["200", 200]),
  /** Section 2: "Identifier of the request trace, 32 hexadecimal characters." */
  traceIdForm: /^[0-9a-fA-F]{32}$/,
  /**
   * docs/client.md, "Bounds": a body over 8 MB is invalid. Read as 8 MiB; bodies between 8,000,000 and 8
   * MiB are never generated.
   */
  maxBodyBytes: 8 * 1024 * 1024,
  ambiguousBodyBytes: 8_000_000,
  /** docs/client.md, "Paging": a cursor over 4096 characters stops a listing. */
  maxCursorChars: 4096,
  /** docs/client.md: cursor fields, first present wins. */
  cursorFields: ["cursor", "next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next"],
  /** docs/client.md: has-more flags. */
  flagFields: ["has_more", "hasMore", "has_next", "hasNext"],
} as const;

/** An error class by name: the error table of docs/client.md. */
export type ErrorName =
  | "WebhookConnectionError"
  | "WebhookInvalidResponseError"
  | "WebhookRequestRefusedError"
  | "WebhookAuthError"
  | "WebhookRateLimitError"
  | "WebhookServerError"
  | "WebhookPagingError"
  | "WebhookCreateUncertainError"
  | "WebhookEndpointExistsError";

/** docs/client.md error table, by HTTP status, first matching row wins (a redirect is never followed). */
const STATUS_TABLE: readonly [(status: number) => boolean, ErrorName][] = [
  [(s) => s >= 300 && s < 400, "WebhookRequestRefusedError"],
  [(s) => s === 401 || s === 403, "WebhookAuthError"],
  [(s) => s === 429, "WebhookRateLimitError"],
  [(s) => s >= 500, "WebhookServerError"],
  [() => true, "WebhookRequestRefusedError"],
];
/** docs/client.md error table, by the envelope's code (a service may answer errors inside HTTP 200). */
const CODE_TABLE: readonly [(code: string) => boolean, ErrorName][] = [
  [(c) => c.startsWith("401") || c.startsWith("403"), "WebhookAuthError"],
  [(c) => c.startsWith("429"), "WebhookRateLimitError"],
  [(c) => c.startsWith("5"), "WebhookServerError"],
  [() => true, "WebhookRequestRefusedError"],
];
/** docs/client.md: list is retried on 429, 5xx, connection failures and unusable bodies. */
const LIST_RETRIES: ReadonlySet<ErrorName> = new Set([
  "WebhookRateLimitError",
  "WebhookServerError",
  "WebhookConnectionError",
  "WebhookInvalidResponseError",
]);

/**
 * What a failed create may have done (docs/client.md, "Create and the settle rules"): a refusal
 * (a redirect, 401/403, any other 4xx but 429) is final; only a connection that never carried the
 * request processed nothing; everything else (a 429 or any 5xx, whoever sent it, a body that is not
 * the envelope, a drop after sending) is ambiguous, settled by listing.
 */
export type CreateFailureKind = "refused" | "not-processed" | "ambiguous";

// ---------------------------------------------------------------------------------------------
// 2. A response as the server sends it.

export interface Hostile {
  /** What kind of response this is, for a readable counterexample. */
  kind: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Send the headers and part of the body, then drop the connection. */
  cut: boolean;
}

/** Response headers past about this size make the HTTP parser give up on the exchange (16 KiB). */
export const HEADER_LIMIT = 16 * 1024;

function headerBytes(response: Hostile): number {
  return Object.entries(response.headers).reduce(
    (sum, [name, value]) => sum + name.length + (Array.isArray(value) ? value.join("") : value).length + 4,
    0,
  );
}

/** Statuses whose responses carry no body on the wire. */
const BODYLESS = new Set([204, 304]);

// ---------------------------------------------------------------------------------------------
// 3. What one response means.

export type Verdict = "yes" | "no" | "unsure";
const all = (verdicts: Verdict[]): Verdict =>
  verdicts.includes("no") ? "no" : verdicts.includes("unsure") ? "unsure" : "yes";

/**
 * "At most N characters": counted in UTF-16 code units or in code points, the two readings can
 * disagree on text with characters outside the BMP; there the rule is not settled.
 */
export function withinLength(text: string, min: number, max: number): Verdict {
  const units = text.length >= min && text.length <= max;
  const points = [...text].length;
  const byPoints = points >= min && points <= max;
  return units === byPoints ? (units ? "yes" : "no") : "unsure";
}

/** Integers must survive a JSON round trip exactly (an id that does not would name another endpoint). */
const isExactInteger = (value: Json): boolean => typeof value === "number" && Number.isSafeInteger(value);

export function recordVerdict(value: Json): Verdict {
  if (!isObject(value)) return "no";
  return all(
    RECORD_RULES.map((rule) => {
      const field = value[rule.field];
      if (rule.type === "integer") return isExactInteger(field) ? "yes" : "no";
      return typeof field === "string" ? withinLength(field, rule.min, rule.max) : "no";
    }),
  );
}

const INVISIBLE_OR_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;

/**
 * The record in the package's camelCase: the documented fields, nothing else, with the client's
 * token redacted from the principal names (docs/client.md: "a service may name its principal after the
 * key"; the token never reaches a record the client returns, even split by an invisible character).
 */
export function asRecord(value: Json): WebhookEndpointRecord {
  const source = value as Obj;
  const principal = (name: Json): Json => {
    if (typeof name !== "string") return name;
    const shown = name.replace(INVISIBLE_OR_CONTROL, "");
    return shown.includes(TOKEN) ? shown.split(TOKEN).join("[REDACTED]") : name;
  };
  return Object.fromEntries(
    RECORD_RULES.map((rule) => [
      rule.camel,
      rule.field === "creator_name" || rule.field === "operator_name"
        ? principal(source[rule.field])
        : source[rule.field],
    ]),
  ) as unknown as WebhookEndpointRecord;
}

export type Meaning =
  | {
      kind: "list-page";
      envelope: Obj;
      data: Obj;
      records: WebhookEndpointRecord[];
      traceId: string;
      textLength: number;
      utf8Bytes: number;
    }
  | { kind: "created"; envelope: Obj; record: WebhookEndpointRecord; traceId: string }
  | {
      kind: "failure";
      error: ErrorName;
      /** HTTP status the error carries (none when the exchange itself failed). */
      status: number | undefined;
      /** The envelope's trace id when it has the documented form. */
      envelopeTraceId: string | undefined;
      /** Every documented-form trace id the response carries anywhere. */
      traceIds: Set<string>;
      /** The body is an envelope whose code a client can read (a string or a finite number). */
      codeReadable: boolean;
      /** The body is the service's own envelope saying it is done with the request. */
      serviceDone: boolean;
      /**
       * A 2xx status line and an envelope whose code said success: the service processed the request,
       * whatever became of its data.
       */
      processed: boolean;
      create: CreateFailureKind;
      why: string;
    }
  | { kind: "unsure"; why: string };

/** The body text as a client receives it: UTF-8, a byte-order mark dropped, nothing on 204/304. */
export function receivedText(response: Hostile): string {
  return BODYLESS.has(response.status) ? "" : new TextDecoder().decode(response.body);
}

/**
 * docs/client.md: "a body nesting deeper than 64 levels, or holding more than 200,000 objects and arrays,
 * is not read: it counts as a body that is not JSON".
 */
function parse(text: string): { ok: true; json: Json } | { ok: false } {
  if (text.trim() === "") return { ok: false };
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  let containers = 0;
  let deepest = 0;
  const walk = (value: Json, depth: number): void => {
    if (typeof value !== "object" || value === null) return;
    containers++;
    deepest = Math.max(deepest, depth);
    for (const inner of Array.isArray(value) ? value : Object.values(value)) walk(inner, depth + 1);
  };
  walk(json, 1);
  return deepest > 64 || containers > 200_000 ? { ok: false } : { ok: true, json };
}

export const documentedTraceId = (value: Json): string | undefined =>
  typeof value === "string" && STATED.traceIdForm.test(value) ? value : undefined;

function traceIdsIn(response: Hostile, text: string, json: Json): Set<string> {
  const found = new Set<string>();
  const add = (value: Json) => {
    const id = documentedTraceId(value);
    if (id !== undefined) found.add(id);
  };
  if (isObject(json)) add(json.trace_id);
  const header = response.headers["x-trace-id"];
  for (const value of Array.isArray(header) ? header : [header]) add(value);
  for (const match of text.matchAll(/"trace_id"\s*:\s*"([0-9a-fA-F]{32})"/g)) add(match[1]);
  return found;
}

/** What a failure of this class, with this status and code, may have done on the service. */
function createKindOf(error: ErrorName): CreateFailureKind {
  if (
    error === "WebhookConnectionError" ||
    error === "WebhookInvalidResponseError" ||
    error === "WebhookRateLimitError" ||
    error === "WebhookServerError"
  )
    return "ambiguous";
  return "refused";
}

/** The envelope's code as text, when it has one a client can read (a string or a finite number). */
function codeText(json: Json): string | undefined {
  if (!isObject(json)) return undefined;
  const { code } = json;
  if (typeof code === "string") return code;
  if (typeof code === "number" && Number.isFinite(code)) return String(code);
  return undefined;
}

/**
 * The meaning of one response to `operation`. `limit` is the page size asked for (list only): "A
 * list page with more records than the limit asked for is an invalid response".
 */
export function meaningOf(response: Hostile, operation: "list" | "create", limit = Infinity): Meaning {
  const failure = (
    error: ErrorName,
    why: string,
    status: number | undefined,
    text = "",
    json: Json = undefined,
  ): Meaning => {
    const code = codeText(json);
    return {
      kind: "failure",
      error,
      status,
      envelopeTraceId: isObject(json) ? documentedTraceId(json.trace_id) : undefined,
      traceIds: traceIdsIn(response, text, json),
      codeReadable: code !== undefined,
      // "the service's own answer: its envelope, with a code a client can read and its trace id",
      // never a 502, 503 or 504 in its code either.
      serviceDone:
        code !== undefined &&
        !["", "null"].includes(code.trim()) &&
        !/^50[234]/.test(code.trim()) &&
        isObject(json) &&
        documentedTraceId(json.trace_id) !== undefined,
      // "a 2xx status and a success code whose data was unusable": a 2xx alone proves nothing on a
      // service that reports errors inside HTTP 200, nor does a body that could not be read.
      processed:
        status !== undefined &&
        status >= 200 &&
        status < 300 &&
        error === "WebhookInvalidResponseError" &&
        code === "200",
      create: createKindOf(error),
      why,
    };
  };
  // An error carries the HTTP status "when there was one": once the status line arrived, even if
  // the body then failed.
  const headers = headerBytes(response);
  if (headers > HEADER_LIMIT)
    return failure("WebhookConnectionError", "headers past the parser's limit", undefined);
  if (headers > HEADER_LIMIT - 512) return { kind: "unsure", why: "headers at the parser's limit" };
  if (response.cut)
    return failure("WebhookConnectionError", "the connection dropped mid-body", response.status);
  const wireBytes = BODYLESS.has(response.status) ? 0 : response.body.length;
  if (wireBytes > STATED.maxBodyBytes)
    return failure("WebhookInvalidResponseError", "body over 8 MB", response.status);
  if (wireBytes > STATED.ambiguousBodyBytes) return { kind: "unsure", why: "body between 8 MB and 8 MiB" };

  const text = receivedText(response);
  const body = parse(text);
  const json = body.ok ? body.json : undefined;
  if (response.status < 200 || response.status >= 300) {
    const [, error] = STATUS_TABLE.find(([applies]) => applies(response.status))!;
    return failure(error, `HTTP ${response.status}`, response.status, text, json);
  }
  if (!body.ok)
    return failure("WebhookInvalidResponseError", "a body that is not JSON", response.status, text);
  if (isObject(json) && STATED.successCodes.has(json.code)) {
    const envelopeShape: Verdict =
      typeof json.msg === "string" && typeof json.trace_id === "string" ? "yes" : "no";
    if (operation === "create") {
      const verdict = all([envelopeShape, recordVerdict(json.data)]);
      if (verdict === "unsure") return { kind: "unsure", why: "a record field at its length cap" };
      if (verdict === "no")
        return failure(
          "WebhookInvalidResponseError",
          "not the documented create shape",
          response.status,
          text,
          json,
        );
      return {
        kind: "created",
        envelope: json,
        record: asRecord(json.data),
        traceId: documentedTraceId(json.trace_id) ?? "",
      };
    }
    const data = json.data;
    const items = isObject(data) && Array.isArray(data.data) ? (data.data as Json[]) : undefined;
    const verdict = all([envelopeShape, items === undefined ? "no" : all(items.map(recordVerdict))]);
    if (verdict === "unsure") return { kind: "unsure", why: "a record field at its length cap" };
    if (verdict === "no")
      return failure(
        "WebhookInvalidResponseError",
        "not the documented list shape",
        response.status,
        text,
        json,
      );
    if (items!.length > limit)
      return failure(
        "WebhookInvalidResponseError",
        "more records than the limit",
        response.status,
        text,
        json,
      );
    return {
      kind: "list-page",
      envelope: json,
      data: data as Obj,
      records: items!.map(asRecord),
      traceId: documentedTraceId(json.trace_id) ?? "",
      textLength: text.length,
      utf8Bytes: Buffer.byteLength(text),
    };
  }
  const code = codeText(json);
  if (code === undefined)
    return failure("WebhookInvalidResponseError", "no readable envelope code", response.status, text, json);
  const [, error] = CODE_TABLE.find(([applies]) => applies(code))!;
  return failure(error, `envelope code ${code}`, response.status, text, json);
}

// ---------------------------------------------------------------------------------------------
// 4. Continuation: the three clauses of docs/client.md, in order, the first that applies decides.

/**
 * What follows a page: the end (proven complete or not), a cursor (`probe`: see clause 3), or the oracle
 * cannot say.
 */
export type Next =
  | { ends: true; complete: boolean }
  | { cursor: string; probe?: true; guessed?: true }
  | { unsure: string }
  | { unusable: string };

/**
 * What a client remembers between its listings: the most records the service sent in one page, whether
 * it asked for a page to learn that, and whether the service showed it reads a guessed cursor as "after
 * this id" (docs/client.md: "not asked again for the life of the client").
 */
export interface ClientMemory {
  reach: number;
  reachLearnt: boolean;
  pagesById: boolean;
}
export const freshMemory = (): ClientMemory => ({ reach: 0, reachLearnt: false, pagesById: false });

export interface ContinuationReading {
  next: Next;
  /** What `ListPage.continuation` must report. */
  reported: { cursor: string | undefined; hasMore: boolean | undefined | "false-or-absent" };
  /** The stated rule and the client's known departure disagree on this page. */
  departure: boolean;
}

/**
 * docs/client.md: "a number is used in decimal when it is a whole number JSON holds exactly (a safe
 * integer); any other number is unusable and stops the listing with a WebhookPagingError".
 */
function decimal(value: number): string | undefined {
  return Number.isSafeInteger(value) ? String(value) : undefined;
}

export function continuationOf(
  data: Obj,
  records: readonly WebhookEndpointRecord[],
  limit: number,
  reach: number,
): ContinuationReading {
  // "first present wins": a field is present when it holds a cursor, i.e. a string or a number.
  const cursorEntry = STATED.cursorFields
    .map((field) => data[field])
    .find((value) => typeof value === "string" || typeof value === "number");
  const flag = STATED.flagFields
    .map((field) => data[field])
    .find((value): value is boolean => typeof value === "boolean");
  const last = records.at(-1);
  const clauses: readonly { applies: boolean; reading: () => Omit<ContinuationReading, "departure"> }[] = [
    {
      // "follows a cursor field ... a number is used in decimal; an empty string means the listing ended"
      applies: cursorEntry !== undefined,
      reading: () => {
        if (cursorEntry === "")
          return {
            next: { ends: true, complete: true },
            reported: { cursor: undefined, hasMore: "false-or-absent" },
          };
        const text = typeof cursorEntry === "number" ? decimal(cursorEntry) : (cursorEntry as string);
        return text === undefined
          ? {
              next: { unusable: `numeric cursor ${String(cursorEntry)}` },
              reported: { cursor: undefined, hasMore: undefined },
            }
          : { next: { cursor: text }, reported: { cursor: text, hasMore: undefined } };
      },
    },
    {
      // "else a has-more flag: true continues from the last record's webhook_id in decimal, false
      // ends"; "a has-more flag on a page with no record to continue from ends it possibly incomplete".
      applies: flag !== undefined,
      reading: () => ({
        next:
          flag === false
            ? { ends: true, complete: true }
            : last !== undefined
              ? // "The last record's id, sent as the cursor (after a has-more flag of true ...) is a guessed cursor"
                { cursor: String(last.webhookId), guessed: true }
              : { ends: true, complete: false },
        reported: { cursor: undefined, hasMore: flag },
      }),
    },
    {
      // "else nothing: an empty page ends the listing, complete; so does a page shorter than the
      // most records the service was seen to send in one page; a full page continues past its last
      // id; any other page is followed by a request for what comes after its last id (a probe)".
      applies: true,
      reading: () => ({
        next:
          last === undefined || (records.length < limit && records.length < reach)
            ? { ends: true, complete: true }
            : records.length >= limit
              ? { cursor: String(last.webhookId), guessed: true }
              : { cursor: String(last.webhookId), probe: true, guessed: true },
        reported: { cursor: undefined, hasMore: undefined },
      }),
    },
  ];
  const stated = clauses.find((clause) => clause.applies)!.reading();
  if (KNOWN_DEPARTURES.emptyPageEndsListing && records.length === 0 && "cursor" in stated.next) {
    return { next: { ends: true, complete: true }, reported: stated.reported, departure: true };
  }
  return { ...stated, departure: false };
}

// ---------------------------------------------------------------------------------------------
// 5. Matching: "exact" (the default filters) and "may be the same endpoint" (create's checks).

/** Name: "exact up to surrounding white space and Unicode NFC". */
const exactNameForm = (name: string) => name.replace(/^\s+|\s+$/gu, "").normalize("NFC");

/**
 * URL: "exact up to the scheme/host case, default port, and one trailing slash of the path",
 * applied to the text's parts (scheme, authority, path, rest). Undefined when the text has no
 * scheme://authority form.
 */
function exactUrlForm(url: string): string | undefined {
  const parts = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(.*)$/s.exec(url);
  if (!parts) return undefined;
  const scheme = parts[1]!.toLowerCase();
  const defaultPort = ({ https: ":443", http: ":80" } as Record<string, string>)[scheme];
  let authority = parts[2]!.toLowerCase();
  if (defaultPort !== undefined && authority.endsWith(defaultPort))
    authority = authority.slice(0, -defaultPort.length);
  const path = parts[3]!.endsWith("/") ? parts[3]!.slice(0, -1) : parts[3]!;
  return `${scheme}://${authority}${escapesNormal(path)}${escapesNormal(parts[4]!)}`;
}

/**
 * RFC 3986, 6.2.2: percent-escapes compare without case, and an escaped unreserved character
 * (ALPHA, DIGIT, "-", ".", "_", "~") is that character.
 */
function escapesNormal(text: string): string {
  return text.replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
    const decoded = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return /^[A-Za-z0-9\-._~]$/.test(decoded) ? decoded : escape.toUpperCase();
  });
}

/**
 * A standard URL reader (WHATWG) may treat more forms as one URL than the stated rule lists (dot
 * segments, percent-escape case, surrounding blanks, ...). Where the two disagree the rule is not
 * settled: the oracle answers "unsure" there rather than pick one.
 */
function whatwgForm(url: string, loose: boolean): string | undefined {
  try {
    const parsed = new URL(url);
    const upper = escapesNormal;
    const path = loose
      ? upper(parsed.pathname).replace(/\/+$/, "")
      : upper(parsed.pathname).replace(/\/$/, "");
    // Credentials and a fragment are part of the address.
    const userinfo =
      parsed.username === "" && parsed.password === "" ? "" : `${parsed.username}:${parsed.password}@`;
    const form = `${parsed.protocol}//${userinfo}${parsed.host}${path}${upper(parsed.search)}${parsed.hash}`;
    return loose ? form.toLowerCase() : form;
  } catch {
    return undefined;
  }
}

function agree(stated: boolean, reader: boolean): Verdict {
  return stated === reader ? (stated ? "yes" : "no") : "unsure";
}

export function sameNameExact(a: string, b: string): Verdict {
  return a === b || exactNameForm(a) === exactNameForm(b) ? "yes" : "no";
}

export function sameUrlExact(a: string, b: string): Verdict {
  if (a === b) return "yes";
  const [fa, fb] = [exactUrlForm(a), exactUrlForm(b)];
  const [wa, wb] = [whatwgForm(a, false), whatwgForm(b, false)];
  return agree(fa !== undefined && fa === fb, wa !== undefined && wa === wb);
}

/**
 * "same name ignoring case/whitespace/NFKC": surrounding white space; inner blanks or invisible characters
 * are not settled.
 */
export function mayBeSameName(a: string, b: string): Verdict {
  const form = (name: string) =>
    name
      .normalize("NFKC")
      .replace(/^\s+|\s+$/gu, "")
      .toLowerCase();
  if (form(a) === form(b)) return "yes";
  const wider = (name: string) =>
    name
      .normalize("NFKC")
      .replace(/[\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/gu, "")
      .toLowerCase();
  return wider(a) === wider(b) ? "unsure" : "no";
}

/** "same URL ignoring case and trailing slashes" (and whatever "exact" already ignores). */
export function mayBeSameUrl(a: string, b: string): Verdict {
  if (sameUrlExact(a, b) === "yes") return "yes";
  const form = (url: string) => {
    const exact = exactUrlForm(url.toLowerCase());
    return exact === undefined ? url.toLowerCase().replace(/\/+$/, "") : exact.replace(/\/+((?=[?#])|$)/, "");
  };
  const [wa, wb] = [whatwgForm(a, true), whatwgForm(b, true)];
  return agree(form(a) === form(b), wa !== undefined && wa === wb);
}

export interface Filter {
  webhookName?: string;
  webhookUrl?: string;
  match?: "exact" | "service";
}

/** Whether a record passes the client-side filter ("exact" by default; "service": whatever the service returned). */
export function passesFilter(record: WebhookEndpointRecord, filter: Filter): Verdict {
  if (filter.match === "service") return "yes";
  const checks: Verdict[] = [];
  if (filter.webhookName) checks.push(sameNameExact(record.webhookName, filter.webhookName));
  if (filter.webhookUrl) checks.push(sameUrlExact(record.webhookUrl, filter.webhookUrl));
  return all(checks);
}

export function mayBeSameEndpoint(
  record: WebhookEndpointRecord,
  wanted: { webhookName: string; webhookUrl: string },
): Verdict {
  return all([
    mayBeSameName(record.webhookName, wanted.webhookName),
    mayBeSameUrl(record.webhookUrl, wanted.webhookUrl),
  ]);
}

// ---------------------------------------------------------------------------------------------
// 6. A listing: the pages the client must fetch, the cursors it must send, where it must stop.

export interface ListingLimits {
  limit: number;
  maxPages: number;
  maxScanRecords: number;
  maxScanBytes: number;
  maxRetries: number;
}

/** Responses in the order the server hands them out; one per list request. */
export interface ResponseQueue {
  next(): Hostile;
}

export interface ForecastPage {
  /** The page's records as the service sent them. */
  service: WebhookEndpointRecord[];
  /** The records the client must hand back for it (after its filter). */
  records: WebhookEndpointRecord[];
  traceId: string;
  continuation: ContinuationReading;
  /** The next cursor `ListPage.nextCursor` must carry (none on the page that ends the listing). */
  nextCursor: string | undefined;
  /** On the last page: whether the listing proved itself complete. */
  end?: { complete: boolean };
  /** A page standing for a request that failed after a probe: its failure (the page holds nothing). */
  failed?: Extract<Meaning, { kind: "failure" }>;
}

export type Ending =
  | { ok: true; complete: boolean }
  | { ok: false; error: ErrorName; failure?: Extract<Meaning, { kind: "failure" }>; beforeYield: boolean };

/**
 * One list request: its cursor, and whether it carried the listing's filters or none (asking for a page to
 * learn its size).
 */
export interface ForecastRequest {
  cursor: string;
  unfiltered?: true;
}

export interface ListingForecast {
  /** Every list request, in order (a retried request repeats). */
  requests: ForecastRequest[];
  pages: ForecastPage[];
  ending: Ending;
  /** Set when a statement does not settle what happens next: the forecast stops there. */
  unsure?: string;
  departures: number;
}

/** The records a scan must return: every listed record passing the filter, each id once (its first such copy). */
export function scanRecords(pages: readonly ForecastPage[]): WebhookEndpointRecord[] {
  const byId = new Map<number, WebhookEndpointRecord>();
  for (const record of pages.flatMap((page) => page.records))
    if (!byId.has(record.webhookId)) byId.set(record.webhookId, record);
  return [...byId.values()];
}

/**
 * One list page, as the client must fetch it: a response that is retryable (docs/client.md) is asked for
 * again, up to `maxRetries` times. A page the client accepts teaches it how many records the
 * service sends in one.
 */
function fetchForecast(
  queue: ResponseQueue,
  request: ForecastRequest,
  limits: ListingLimits,
  memory: ClientMemory,
  requests: ForecastRequest[],
  wasted: { textLength: number },
): Meaning {
  let meaning: Meaning = { kind: "unsure", why: "no request" };
  for (let attempt = 0; attempt <= limits.maxRetries; attempt++) {
    requests.push(request);
    const response = queue.next();
    meaning = meaningOf(response, "list", limits.limit);
    if (meaning.kind === "list-page") memory.reach = Math.max(memory.reach, meaning.records.length);
    if (meaning.kind !== "failure" || !LIST_RETRIES.has(meaning.error)) return meaning;
    // A response given up on still counts as "response bytes" in one reading of maxScanBytes.
    if (!response.cut && response.body.length <= STATED.maxBodyBytes)
      wasted.textLength += receivedText(response).length;
  }
  return meaning;
}

/** A fetched page as the client must hand it back: its records through the filter, its continuation read. */
function readPage(
  meaning: Extract<Meaning, { kind: "list-page" }>,
  filter: Filter,
  limit: number,
  reach: number,
): { page: ForecastPage; unsure?: string } | { unsure: string } {
  const records: WebhookEndpointRecord[] = [];
  for (const record of meaning.records) {
    const verdict = passesFilter(record, filter);
    if (verdict === "unsure")
      return { unsure: `filter match of ${JSON.stringify(record.webhookUrl.slice(0, 60))}` };
    if (verdict === "yes") records.push(record);
  }
  const continuation = continuationOf(meaning.data, meaning.records, limit, reach);
  const next = continuation.next;
  const page: ForecastPage = {
    service: meaning.records,
    records,
    traceId: meaning.traceId,
    continuation,
    nextCursor: "cursor" in next ? next.cursor : undefined,
  };
  return "unsure" in next ? { page, unsure: next.unsure } : { page };
}

/** One page as `list` must return it: fetched (with retries) and read. No paging rule applies to a single page. */
export function forecastPage(
  queue: ResponseQueue,
  filter: Filter,
  limits: ListingLimits,
  memory: ClientMemory = freshMemory(),
  cursor = "",
): { cursors: string[]; page?: ForecastPage; meaning: Meaning; unsure?: string } {
  const requests: ForecastRequest[] = [];
  const meaning = fetchForecast(queue, { cursor }, limits, memory, requests, { textLength: 0 });
  const cursors = requests.map((request) => request.cursor);
  if (meaning.kind === "unsure") return { cursors, meaning, unsure: meaning.why };
  if (meaning.kind !== "list-page") return { cursors, meaning };
  return { cursors, meaning, ...readPage(meaning, filter, limits.limit, memory.reach) };
}

/**
 * docs/client.md: a failed request after a probe ends the listing possibly incomplete, unless the token was
 * refused.
 */
const ENDS_A_PROBE: ReadonlySet<ErrorName> = new Set([
  "WebhookConnectionError",
  "WebhookInvalidResponseError",
  "WebhookRequestRefusedError",
  "WebhookRateLimitError",
  "WebhookServerError",
]);

/**
 * docs/client.md: a listing "stops with a WebhookPagingError after maxPages pages, maxScanRecords
 * distinct records or maxScanBytes response bytes, on a cursor over 4096 characters, and on a
 * cursor that cannot be used"; it ends possibly incomplete, with no error, "on a cursor the
 * service already returned, and on a page that only repeats records already listed", the latter
 * complete after a probe's page shorter than a page the service was seen to send (once per client,
 * a filtered listing asks for one page without filters to learn that). The first request's cursor is "".
 */
export function forecastListing(
  queue: ResponseQueue,
  filter: Filter,
  limits: ListingLimits,
  memory: ClientMemory = freshMemory(),
): ListingForecast {
  const forecast: ListingForecast = {
    requests: [],
    pages: [],
    ending: { ok: true, complete: true },
    departures: 0,
  };
  const sentCursors = new Set<string>();
  const listedIds = new Set<number>();
  const bytes = { textLength: 0, utf8: 0, wasted: { textLength: 0 } };
  const filtered = (filter.webhookName ?? "") !== "" || (filter.webhookUrl ?? "") !== "";
  const stop = (ending: Ending): ListingForecast => Object.assign(forecast, { ending });
  const unsure = (why: string): ListingForecast => Object.assign(forecast, { unsure: why });
  const ends = (page: ForecastPage, complete: boolean): ListingForecast => {
    forecast.pages.push({ ...page, nextCursor: undefined, end: { complete } });
    return stop({ ok: true, complete });
  };
  /** Records of the page the request probes past, while it does. */
  let probed: number | undefined;
  /** docs/client.md: the guessed cursors sent, and the service's records of the page the last one came from. */
  const guesses = { count: 0, source: [] as readonly WebhookEndpointRecord[] };
  /** "once per client, a filtered listing asks for one page without filters to learn that"; undefined when it went well. */
  const learnReach = (probedPage: number): string | undefined => {
    if (probedPage < memory.reach || !filtered || memory.reachLearnt) return undefined;
    memory.reachLearnt = true;
    const learnt = fetchForecast(queue, { cursor: "", unfiltered: true }, limits, memory, forecast.requests, {
      textLength: 0,
    });
    return learnt.kind === "unsure" ? `the page asked for to learn its size: ${learnt.why}` : undefined;
  };
  for (let cursor = ""; ;) {
    if (forecast.pages.length === limits.maxPages)
      return stop({ ok: false, error: "WebhookPagingError", beforeYield: true });
    sentCursors.add(cursor);
    const meaning = fetchForecast(queue, { cursor }, limits, memory, forecast.requests, bytes.wasted);
    if (meaning.kind === "unsure") return unsure(meaning.why);
    if (meaning.kind === "failure") {
      if (probed !== undefined && ENDS_A_PROBE.has(meaning.error)) {
        const failedPage = {
          service: [],
          records: [],
          traceId: "",
          continuation: { next: { ends: true, complete: false }, reported: {}, departure: false },
          nextCursor: undefined,
          failed: meaning,
        } as unknown as ForecastPage;
        return ends(failedPage, false);
      }
      return stop({ ok: false, error: meaning.error, failure: meaning, beforeYield: true });
    }
    if (meaning.kind !== "list-page") throw new Error("a list forecast met a create meaning");

    const read = readPage(meaning, filter, limits.limit, memory.reach);
    if (!("page" in read)) return unsure(read.unsure);
    if ("unusable" in read.page.continuation.next)
      return stop({ ok: false, error: "WebhookPagingError", beforeYield: true });
    const ids = meaning.records.map((record) => record.webhookId);
    if (ids.length > 0 && ids.every((id) => listedIds.has(id))) {
      const why = probed === undefined ? undefined : learnReach(probed);
      if (why !== undefined) return unsure(why);
      return ends(read.page, probed !== undefined && probed < memory.reach);
    }
    for (const id of ids) listedIds.add(id);
    bytes.textLength += meaning.textLength;
    bytes.utf8 += meaning.utf8Bytes;
    const readings = [bytes.textLength, bytes.utf8, bytes.textLength + bytes.wasted.textLength].map(
      (total) => total > limits.maxScanBytes,
    );
    if (new Set(readings).size > 1)
      return unsure("maxScanBytes: characters, UTF-8 bytes and bytes of retried responses disagree");
    if (listedIds.size > limits.maxScanRecords || readings[0])
      return stop({ ok: false, error: "WebhookPagingError", beforeYield: true });

    if (read.page.continuation.departure) forecast.departures++;
    const next = read.page.continuation.next;
    if ("unsure" in next) return unsure(next.unsure);
    if ("ends" in next && (!next.complete || guesses.count === 0 || memory.pagesById))
      return ends(read.page, next.complete);
    if ("ends" in next) {
      // "No proof is needed when the only guessed cursor was a probe of a page reached without one,
      // answered with an empty page, and that page is shorter than one the service was seen to send"
      if (guesses.count === 1 && probed !== undefined && meaning.records.length === 0) {
        const why = learnReach(probed);
        if (why !== undefined) return unsure(why);
        if (probed < memory.reach) return ends(read.page, true);
      }
      const checked = checkPagesById(queue, guesses.source, limits, memory, forecast.requests);
      if (typeof checked === "string") return unsure(checked);
      if ("failure" in checked) return stop({ ok: false, ...checked, beforeYield: true });
      return ends(read.page, checked.complete);
    }
    if (sentCursors.has(next.cursor)) return ends(read.page, false);
    forecast.pages.push(read.page);
    if (next.cursor.length > STATED.maxCursorChars)
      return stop({ ok: false, error: "WebhookPagingError", beforeYield: false });
    cursor = next.cursor;
    probed = next.probe === true ? meaning.records.length : undefined;
    if (next.guessed === true) Object.assign(guesses, { count: guesses.count + 1, source: meaning.records });
  }
}

/**
 * docs/client.md: "with the same filter, it sends as the cursor the id of the record before the last one
 * of the page the last guessed cursor came from; the service pages by the record id when the answer's
 * first record is that page's last record. Any other answer (an empty page, another record first, a
 * request that fails after the list retries) ends the listing possibly incomplete; a cancelled call or a
 * refused token still throws. A page of one record gives nothing to check with: possibly incomplete, with
 * no check sent. A service shown to page by the record id is not asked again for the life of the client."
 * Returns how the listing ends, the failure it throws, or why the oracle cannot say.
 */
function checkPagesById(
  queue: ResponseQueue,
  source: readonly WebhookEndpointRecord[],
  limits: ListingLimits,
  memory: ClientMemory,
  requests: ForecastRequest[],
): { complete: boolean } | { error: ErrorName; failure: Extract<Meaning, { kind: "failure" }> } | string {
  const [before, last] = source.slice(-2);
  if (before === undefined || last === undefined) return { complete: false };
  const answer = fetchForecast(queue, { cursor: String(before.webhookId) }, limits, memory, requests, {
    textLength: 0,
  });
  if (answer.kind === "unsure") return `the check that the service pages by the record id: ${answer.why}`;
  if (answer.kind === "failure")
    return ENDS_A_PROBE.has(answer.error) ? { complete: false } : { error: answer.error, failure: answer };
  if (answer.kind !== "list-page") throw new Error("a list forecast met a create meaning");
  if (answer.records[0]?.webhookId !== last.webhookId) return { complete: false };
  memory.pagesById = true;
  return { complete: true };
}

// ---------------------------------------------------------------------------------------------
// 7. create: list first, post once, settle an ambiguous answer by listing (docs/client.md, in order).

export interface CreateSettings extends ListingLimits {
  clockSkewMs: number;
  /** What the client remembers from its earlier listings; updated as the forecast goes. */
  memory: ClientMemory;
  /** Creator ids of endpoints this client created before (its principal, once known); empty when unknown. */
  ourCreatorIds: ReadonlySet<number>;
  /** When the call began, by the test's clock (the records' times are generated far from the edges). */
  startedAt: number;
}

export type CreateOutcome =
  | { kind: "created"; record: WebhookEndpointRecord; traceId: string; attempts: number }
  | {
      kind: "recovered";
      record: WebhookEndpointRecord;
      attempts: number;
      because: "the service said it processed the request" | "our principal created it";
    }
  | { kind: "exists"; ids: number[] }
  | { kind: "uncertain"; ids: number[] | undefined }
  | { kind: "failed"; error: ErrorName; failure?: Extract<Meaning, { kind: "failure" }> };

export interface CreateForecast {
  /** Every list request: its cursor and filters, in order. */
  listRequests: { cursor: string; webhook_name: string; webhook_url: string }[];
  createPosts: number;
  outcome?: CreateOutcome;
  unsure?: string;
  departures: number;
}

/**
 * "a listing by name (one per form a service may store it under: as declared, trimmed and NFC,
 * lower-cased)". Written from that sentence, not from the client.
 */
function nameLookups(name: string): string[] {
  const forms: string[] = [];
  for (const form of [name, name.trim().normalize("NFC"), name.trim().normalize("NFC").toLowerCase()])
    if (!forms.includes(form)) forms.push(form);
  return forms;
}

/**
 * "the URL listing in each form a service may store it under: as declared, its WHATWG
 * serialisation, that with the path's trailing slash toggled (no query or fragment), with
 * unreserved characters percent-decoded, and the declared URL lower-cased".
 */
function urlLookups(declared: string): string[] {
  const forms = [declared];
  const add = (form: string) => {
    if (!forms.includes(form)) forms.push(form);
  };
  if (!URL.canParse(declared)) return forms;
  const parsed = new URL(declared);
  add(parsed.href);
  if (parsed.search === "" && parsed.hash === "")
    add(parsed.href.endsWith("/") ? parsed.href.replace(/\/+$/, "") : `${parsed.href}/`);
  add(
    parsed.href.replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
      const ch = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
      return /^[A-Za-z0-9\-._~]$/.test(ch) ? ch : escape;
    }),
  );
  add(declared.toLowerCase());
  return forms;
}

export function forecastCreate(
  params: { webhookName: string; webhookUrl: string },
  creates: readonly Hostile[],
  lists: ResponseQueue,
  settings: CreateSettings,
): CreateForecast {
  const forecast: CreateForecast = { listRequests: [], createPosts: 0, departures: 0 };
  const list = (filter: { webhookName?: string; webhookUrl?: string }) => {
    const listing = forecastListing(lists, { ...filter, match: "service" }, settings, settings.memory);
    forecast.departures += listing.departures;
    for (const request of listing.requests) {
      forecast.listRequests.push({
        cursor: request.cursor,
        webhook_name: request.unfiltered ? "" : (filter.webhookName ?? ""),
        webhook_url: request.unfiltered ? "" : (filter.webhookUrl ?? ""),
      });
    }
    return listing;
  };
  const done = (outcome: CreateOutcome) => Object.assign(forecast, { outcome });
  const unsure = (why: string) => Object.assign(forecast, { unsure: why });

  // Each listing once per lookup form: the records, and whether every one of them proved itself complete.
  const listAll = (
    filters: { webhookName?: string; webhookUrl?: string }[],
  ): { records: WebhookEndpointRecord[]; complete: boolean } | { unsure: string } | { failed: Ending } => {
    const records: WebhookEndpointRecord[] = [];
    let complete = true;
    for (const filter of filters) {
      const listing = list(filter);
      if (listing.unsure !== undefined) return { unsure: listing.unsure };
      if (!listing.ending.ok) return { failed: listing.ending };
      complete &&= listing.ending.complete;
      // "every copy of an id a service lists more than once": a create's checks look at each.
      records.push(...listing.pages.flatMap((page) => page.records));
    }
    return { records, complete };
  };
  const failedListing = (ending: Ending) =>
    ending.ok
      ? done({ kind: "failed", error: "WebhookPagingError" })
      : done({ kind: "failed", error: ending.error, ...(ending.failure ? { failure: ending.failure } : {}) });

  /**
   * "FIRST lists by name (with the service's own matching, all pages)", once per lookup form; "a
   * listing by name that cannot prove itself complete is narrowed by URL". The ids it listed, or
   * the outcome it ends the create with.
   */
  const listBefore = (): Set<number> | CreateForecast => {
    const before = listAll(nameLookups(params.webhookName).map((webhookName) => ({ webhookName })));
    if ("unsure" in before) return unsure(`listing before the create: ${before.unsure}`);
    if ("failed" in before) return failedListing(before.failed);
    const listedBefore = [...before.records];
    let provenBefore = before.complete;
    if (!before.complete) {
      const byUrl = listAll(urlLookups(params.webhookUrl).map((webhookUrl) => ({ webhookUrl })));
      if ("unsure" in byUrl) return unsure(`listing by URL before the create: ${byUrl.unsure}`);
      if ("failed" in byUrl) return failedListing(byUrl.failed);
      listedBefore.push(...byUrl.records);
      provenBefore = byUrl.complete;
    }
    const lookalikes = listedBefore.map((record) => ({ record, verdict: mayBeSameEndpoint(record, params) }));
    if (lookalikes.some((entry) => entry.verdict === "unsure"))
      return unsure("a listed record is not settled as the same endpoint or not");
    const existing = [
      ...new Set(
        lookalikes.filter((entry) => entry.verdict === "yes").map((entry) => entry.record.webhookId),
      ),
    ];
    // "when neither can prove itself complete, nothing is sent (WebhookPagingError)"
    if (!provenBefore && existing.length === 0) return done({ kind: "failed", error: "WebhookPagingError" });
    // "refuses with WebhookEndpointExistsError (nothing sent) when a listed record may be the same endpoint"
    if (existing.length > 0) return done({ kind: "exists", ids: existing });
    return new Set(listedBefore.map((record) => record.webhookId));
  };
  const first = listBefore();
  if (!(first instanceof Set)) return first;
  const idsBefore = first;
  // "created by our own principal when that is known"
  const ours = (record: WebhookEndpointRecord) =>
    settings.ourCreatorIds.size === 0 || settings.ourCreatorIds.has(record.creatorId);

  /**
   * One settling round after an ambiguous answer (the tests run with createSettleMs 0: one round):
   * "retry" when the create may be sent again, else the outcome it ends with.
   */
  const settle = (
    meaning: Extract<Meaning, { kind: "failure" }>,
    attempt: number,
  ): "retry" | CreateForecast => {
    // "only records NOT in the pre-create listing, loosely the same endpoint, (and when found by the
    // URL listing, created since the attempt began minus clockSkewMs) count", and "created by our
    // own principal when that is known"; another principal's such record is theirs.
    const sort = (
      records: WebhookEndpointRecord[],
      sinceAttempt: boolean,
      into: { found: number[]; theirs: number[] },
    ) => {
      for (const record of records) {
        if (idsBefore.has(record.webhookId)) continue;
        const verdict = mayBeSameEndpoint(record, params);
        if (verdict === "unsure") return "a new record is not settled as the same endpoint or not";
        if (verdict !== "yes") continue;
        if (!ours(record)) {
          if (!into.theirs.includes(record.webhookId)) into.theirs.push(record.webhookId);
        } else if (
          (!sinceAttempt || record.createTime >= settings.startedAt - settings.clockSkewMs) &&
          !into.found.includes(record.webhookId)
        )
          into.found.push(record.webhookId);
      }
      return undefined;
    };
    const sorted = { found: [] as number[], theirs: [] as number[] };
    const records: WebhookEndpointRecord[] = [];
    // Any listing that fails leaves the create uncertain.
    const byName = listAll(nameLookups(params.webhookName).map((webhookName) => ({ webhookName })));
    if ("failed" in byName) return done({ kind: "uncertain", ids: undefined });
    if ("unsure" in byName) return unsure(`settling listing: ${byName.unsure}`);
    records.push(...byName.records);
    let why = sort(byName.records, false, sorted);
    let proven = byName.complete;
    if (why === undefined && sorted.found.length === 0) {
      const byUrl = listAll(urlLookups(params.webhookUrl).map((webhookUrl) => ({ webhookUrl })));
      if ("failed" in byUrl) return done({ kind: "uncertain", ids: undefined });
      if ("unsure" in byUrl) return unsure(`settling listing: ${byUrl.unsure}`);
      records.push(...byUrl.records);
      why = sort(byUrl.records, true, sorted);
      proven ||= byUrl.complete;
    }
    // "when neither proved itself complete and none is found, the name is listed once more in the
    // other order (the client's ascending "true": "false"), where the newest come first"
    if (why === undefined && sorted.found.length === 0 && !proven) {
      const newest = listAll(nameLookups(params.webhookName).map((webhookName) => ({ webhookName })));
      if ("failed" in newest) return done({ kind: "uncertain", ids: undefined });
      if ("unsure" in newest) return unsure(`settling listing: ${newest.unsure}`);
      records.push(...newest.records);
      why = sort(newest.records, false, sorted);
    }
    if (why !== undefined) return unsure(why);
    const { found, theirs } = sorted;
    // "exactly one is the result only if it cannot be someone else's: the service said it processed
    // our request (a 2xx status whose body was lost or unusable), or it was created by our own
    // principal, and no copy of it was listed as another principal's; otherwise it is named in a
    // WebhookCreateUncertainError, not taken"; "more -> WebhookCreateUncertainError naming them"
    if (found.length === 1) {
      const id = found[0]!;
      // The first copy that made it a candidate.
      const record = records.find(
        (r) => r.webhookId === id && ours(r) && mayBeSameEndpoint(r, params) === "yes",
      )!;
      // "An id that the service lists under our principal and under another's is named, not taken"
      // (its copies under any name and URL).
      const contested = records.some((r) => r.webhookId === id && r.creatorId !== record.creatorId);
      if (!theirs.includes(id) && !contested) {
        if (meaning.processed)
          return done({
            kind: "recovered",
            record,
            attempts: attempt + 1,
            because: "the service said it processed the request",
          });
        if (settings.ourCreatorIds.has(record.creatorId))
          return done({
            kind: "recovered",
            record,
            attempts: attempt + 1,
            because: "our principal created it",
          });
      }
      return done({ kind: "uncertain", ids: found });
    }
    if (found.length > 1) return done({ kind: "uncertain", ids: found });
    // "none after createSettleMs -> sent again, only when a complete listing shows none and the
    // service itself answered (its envelope, with a code a client can read and its trace id):
    // never after an answer from something in front of it, a reset, no answer at all, or a 502,
    // 503 or 504, whatever its body"
    // "(a success answer whose data could not be used never: the service made it)"
    if (!proven || [502, 503, 504].includes(meaning.status ?? 0) || !meaning.serviceDone || meaning.processed)
      return done({ kind: "uncertain", ids: [] });
    // "A retry is a create like the first: when that listing shows an endpoint with this name and
    // URL that was not in the first listing and that another principal created, it is not sent,
    // and the create fails with WebhookEndpointExistsError naming it"
    if (theirs.length > 0) return done({ kind: "exists", ids: theirs });
    return "retry";
  };

  /** The last failure that permits a retry, and whether an attempt so far may have reached the service. */
  let previous: { meaning: Extract<Meaning, { kind: "failure" }>; sent: boolean } | undefined;
  for (let attempt = 0; attempt <= settings.maxRetries; attempt++) {
    // "A retry is a create like the first": before it is sent, after the wait, the listing before a
    // create runs again when no attempt reached the service; after one that did (and was settled as
    // having made none), one more settling round.
    if (previous !== undefined) {
      if (previous.sent) {
        const again = settle(previous.meaning, attempt);
        if (again !== "retry") return again;
      } else {
        const again = listBefore();
        if (!(again instanceof Set)) return again;
        // What it shows existed before the create, for the answer to come.
        for (const id of again) idsBefore.add(id);
      }
    }
    forecast.createPosts++;
    const response = creates[attempt];
    if (response === undefined) throw new Error("the generator gave fewer create responses than attempts");
    const meaning = meaningOf(response, "create");
    if (meaning.kind === "unsure") return unsure(`create response: ${meaning.why}`);
    if (meaning.kind === "created") {
      // "A create answered with an endpoint that existed before the attempt is refused": one the
      // listing before it returned, or one that is not the request in any stored form and was
      // created before the attempt began (less the clock-skew allowance); and "our principal known,
      // one another principal created".
      const record = meaning.record;
      if (idsBefore.has(record.webhookId)) return done({ kind: "exists", ids: [record.webhookId] });
      const same = mayBeSameEndpoint(record, params);
      if (same === "unsure") return unsure("a created record is not settled as the same endpoint or not");
      if (same === "no" && record.createTime < settings.startedAt - settings.clockSkewMs)
        return done({ kind: "exists", ids: [record.webhookId] });
      if (!ours(record)) return done({ kind: "exists", ids: [record.webhookId] });
      return done({ kind: "created", record, traceId: meaning.traceId, attempts: attempt + 1 });
    }
    if (meaning.kind !== "failure") throw new Error("a create forecast met a list meaning");
    // "a refusal (4xx other than 429) is final"
    if (meaning.create === "refused") return done({ kind: "failed", error: meaning.error, failure: meaning });
    if (meaning.create === "ambiguous") {
      const settled = settle(meaning, attempt);
      if (settled !== "retry") return settled;
    }
    if (attempt === settings.maxRetries)
      return done({ kind: "failed", error: meaning.error, failure: meaning });
    // The settling before a retry judges the answer of the last attempt that reached the service.
    if (meaning.create === "ambiguous" || previous === undefined)
      previous = { meaning, sent: previous?.sent === true || meaning.create === "ambiguous" };
  }
  throw new Error("unreachable");
}
