// Property-based tests: thousands of generated responses, from valid to hostile, served over real
// HTTP to the client's list, create and scan. Each call must settle, and either return exactly what
// a valid response says (checked against an independent reading of the API document) or reject
// with a typed WebhookApiError that nowhere carries the token. Seeds are fixed: runs reproduce.
import fc from "fast-check";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CREATE_PATH,
  LIST_PATH,
  WebhookApiError,
  WebhookAuthError,
  WebhookConnectionError,
  WebhookInvalidResponseError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  WebhooksClient,
  type WebhookEndpointRecord,
} from "../../src/client";
import { TOKEN, everythingVisible, rawServer } from "../support/helpers";

// ---------------------------------------------------------------------------------------------
// Bookkeeping shared by the whole file.

const tally = { served: 0, typedErrors: 0, correctResults: 0, recoveredCreates: 0, multiPageScans: 0, unexpectedPaths: 0, serverFaults: 0 };
const crashes = { unhandledRejection: 0, uncaughtException: 0 };
const onRejection = () => void crashes.unhandledRejection++;
const onException = () => void crashes.uncaughtException++;
beforeAll(() => {
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
});
afterAll(() => {
  process.off("unhandledRejection", onRejection);
  process.off("uncaughtException", onException);
});

/** A client that fails fast: every hostile response costs at most a few milliseconds. */
function fastClient(baseUrl: string, extra: { maxRetries: number; maxPages?: number }): WebhooksClient {
  return new WebhooksClient({
    baseUrl,
    accessToken: TOKEN,
    retryBaseDelayMs: 1,
    maxRetryAfterMs: 5,
    timeoutMs: 2000,
    createSettleMs: 0,
    ...extra,
  });
}

// ---------------------------------------------------------------------------------------------
// What a response is, and how the server sends it.

interface Hostile {
  /** What kind of response this is, for a readable counterexample. */
  kind: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Send the headers and part of the body, then drop the connection. */
  cut: boolean;
}

/** Headers beyond this size make undici fail the exchange (its default maxHeaderSize is 16 KiB). */
const HEADER_LIMIT = 16 * 1024;

function send(res: ServerResponse, response: Hostile): void {
  tally.served++;
  try {
    if (response.cut) {
      res.writeHead(response.status, { ...response.headers, "content-length": String(response.body.length + 1000) });
      res.write(response.body.subarray(0, Math.floor(response.body.length / 2)), () => res.destroy());
      return;
    }
    res.writeHead(response.status, response.headers);
    res.end(response.body);
  } catch {
    // A generator bug (a header Node refuses to send): counted, and the suite fails on it.
    tally.serverFaults++;
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The oracle: an independent reading of the API document, written without the client's code.

type Json = unknown;
const isObject = (value: Json): value is Record<string, Json> => typeof value === "object" && value !== null && !Array.isArray(value);
const isSafe = (value: Json) => typeof value === "number" && Number.isSafeInteger(value);
const isString = (value: Json) => typeof value === "string";

const RECORD_FIELDS = [
  "webhook_id",
  "webhook_name",
  "webhook_url",
  "sign_secret",
  "creator_id",
  "creator_name",
  "create_time",
  "operator_id",
  "operator_name",
  "operate_time",
] as const;

function isRecord(value: Json): value is Record<string, Json> {
  return (
    isObject(value) &&
    isSafe(value.webhook_id) &&
    isString(value.webhook_name) &&
    isString(value.webhook_url) &&
    isString(value.sign_secret) &&
    value.sign_secret.length >= 1 &&
    isSafe(value.creator_id) &&
    isString(value.creator_name) &&
    isSafe(value.create_time) &&
    isSafe(value.operator_id) &&
    isString(value.operator_name) &&
    isSafe(value.operate_time)
  );
}

function isSuccessEnvelope(value: Json): value is Record<string, Json> {
  return isObject(value) && (value.code === "200" || value.code === 200) && isString(value.msg) && isString(value.trace_id);
}

const isListEnvelope = (value: Json) =>
  isSuccessEnvelope(value) && isObject(value.data) && Array.isArray(value.data.data) && value.data.data.every(isRecord);
const isCreateEnvelope = (value: Json) => isSuccessEnvelope(value) && isRecord(value.data);

function camel(record: Json): WebhookEndpointRecord {
  const r = record as Record<(typeof RECORD_FIELDS)[number], never>;
  return {
    webhookId: r.webhook_id,
    webhookName: r.webhook_name,
    webhookUrl: r.webhook_url,
    signSecret: r.sign_secret,
    creatorId: r.creator_id,
    creatorName: r.creator_name,
    createTime: r.create_time,
    operatorId: r.operator_id,
    operatorName: r.operator_name,
    operateTime: r.operate_time,
  };
}

/** A trace id as the client hands it back: any echo of the token replaced. */
const redacted = (value: Json) => String(value).split(TOKEN).join("[REDACTED]");

/** Whether the exchange fails below HTTP (cut body, oversized headers). */
function transportBreaks(response: Hostile): boolean {
  if (response.cut) return true;
  const size = Object.entries(response.headers).reduce(
    (sum, [name, value]) => sum + name.length + (Array.isArray(value) ? value.join("") : value).length + 4,
    0,
  );
  return size > HEADER_LIMIT - 512;
}

/** The body text as the client receives it (no body on 204 / 304; UTF-8, BOM dropped). */
function receivedText(response: Hostile): string {
  if (response.status === 204 || response.status === 304) return "";
  return new TextDecoder().decode(response.body);
}

function parsed(response: Hostile): { ok: true; json: Json } | { ok: false } {
  const text = receivedText(response);
  if (text.trim() === "") return { ok: false };
  try {
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The parsed body when the document says the response is a success the client must accept. */
function acceptable(response: Hostile, shape: "list" | "create"): Record<string, Json> | undefined {
  if (transportBreaks(response) || response.status < 200 || response.status >= 300) return undefined;
  const body = parsed(response);
  if (!body.ok) return undefined;
  const valid = shape === "list" ? isListEnvelope(body.json) : isCreateEnvelope(body.json);
  return valid ? (body.json as Record<string, Json>) : undefined;
}

/** The documented continuation reading: cursor-like fields first, then has-more-like flags. */
function continuationOf(data: Record<string, Json>): { cursor?: string; hasMore?: boolean } {
  for (const field of ["cursor", "next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next"]) {
    const value = data[field];
    if (value === "") return { hasMore: false };
    if (typeof value === "string") return { cursor: value };
    if (typeof value === "number" && Number.isFinite(value)) return { cursor: String(value) };
  }
  for (const field of ["has_more", "hasMore", "has_next", "hasNext"]) {
    const value = data[field];
    if (typeof value === "boolean") return { hasMore: value };
  }
  return {};
}

function nextCursorOf(records: WebhookEndpointRecord[], data: Record<string, Json>, limit: number): string | undefined {
  const last = records.at(-1);
  if (last === undefined) return undefined;
  const { cursor, hasMore } = continuationOf(data);
  if (cursor !== undefined) return cursor;
  if (hasMore === false) return undefined;
  if (hasMore === true) return String(last.webhookId);
  return records.length < limit ? undefined : String(last.webhookId);
}

/** The error class the HTTP status alone decides, for a response that arrived whole. */
function classForStatus(status: number): new (...args: never[]) => WebhookApiError {
  if (status === 401 || status === 403) return WebhookAuthError;
  if (status === 429) return WebhookRateLimitError;
  if (status >= 500) return WebhookServerError;
  return WebhookRequestRefusedError;
}

function expectTypedSafeError(error: unknown, operation: "list" | "create", response: Hostile): void {
  if (!(error instanceof WebhookApiError)) {
    throw new Error(`expected a WebhookApiError for a ${response.kind} response, got ${String(error)}`);
  }
  expect(error.operation).toBe(operation);
  const visible = everythingVisible(error);
  if (visible.includes(TOKEN)) {
    throw new Error(`the token leaked into a ${error.name} (${response.kind}, HTTP ${response.status}): ${error.message.slice(0, 300)}`);
  }
  tally.typedErrors++;
}

/** Awaits the call, failing the property if it has not settled well within the client's limits. */
async function settle<T>(promise: Promise<T>, ms = 15_000): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the call did not settle within ${ms} ms`)), ms);
  });
  try {
    return { ok: true, value: await Promise.race([promise, hang]) };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("the call did not settle")) throw error;
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// Generators.

/** A value written verbatim into the JSON text (numbers JSON.stringify cannot produce). */
const RAW_PREFIX = "@@raw@@";
const raw = (text: string) => `${RAW_PREFIX}${text}@@`;
const RAW_PATTERN = new RegExp(`"${RAW_PREFIX}([^"@]*)@@"`, "g");
const jsonText = (value: Json) => (JSON.stringify(value) ?? "").replace(RAW_PATTERN, "$1");

const TRACE = "0123456789abcdef0123456789abcdef";
const FUTURE = Date.now() + 3_600_000;
const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);
const text = fc.oneof(
  { arbitrary: fc.string({ maxLength: 24 }), weight: 6 },
  { arbitrary: fc.string({ maxLength: 12, unit: "grapheme" }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 12, unit: "binary" }), weight: 1 },
);
const safeInt = fc.oneof(fc.nat({ max: 10_000 }), fc.maxSafeInteger(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER));
const hugeString = fc
  .tuple(fc.integer({ min: 100_000, max: 1_000_000 }), fc.constantFrom("x", "é", "\u{1F600}", "\\", '"', TOKEN))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
const deepNesting = fc.tuple(fc.integer({ min: 50, max: 2000 }), fc.boolean()).map(([depth, arrays]) => {
  let value: Json = 1;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { v: value };
  return value;
});
const rawNumber = fc.constantFrom("1e400", "-1e400", "-0", "1.0", "2e2", "1E2", "0.5", "9007199254740993", "1e-400", "-1", "1e21").map(raw);
const tokenEcho = fc.constantFrom(TOKEN, `Bearer ${TOKEN}`, `invalid token ${TOKEN}`, `${TOKEN}${TOKEN}`, `{"token":"${TOKEN}"}`);

/** A value of any type but (usually) not the one the field needs. */
const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 53), "", "200", "1", "null", "true", "[]", "{}"), weight: 6 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double(), weight: 2 },
  { arbitrary: text, weight: 2 },
  { arbitrary: rawNumber, weight: 2 },
  { arbitrary: tokenEcho, weight: 2 },
  { arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }), weight: 2 },
  { arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), weight: 2 },
  { arbitrary: deepNesting, weight: 1 },
);

const extraKey = fc.string({ minLength: 1, maxLength: 10 }).filter((key) => !(RECORD_FIELDS as readonly string[]).includes(key) && key !== "__proto__");
const extras = fc.dictionary(extraKey, fc.oneof(fc.jsonValue({ maxDepth: 3 }), tokenEcho), { maxKeys: 3 });

function recordArb(id: fc.Arbitrary<number> = safeInt): fc.Arbitrary<Record<string, Json>> {
  return fc
    .tuple(
      fc.record({
        webhook_id: id,
        webhook_name: text,
        webhook_url: fc.oneof(text, fc.webUrl()),
        sign_secret: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constant("whsec_abc")),
        creator_id: safeInt,
        creator_name: text,
        create_time: safeInt,
        operator_id: safeInt,
        operator_name: text,
        operate_time: safeInt,
      }),
      fc.option(extras, { freq: 4, nil: undefined }),
    )
    .map(([record, more]) => ({ ...more, ...record }));
}

const CURSOR_FIELDS = ["cursor", "next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next", "nextcursor", "Cursor"];
const HAS_MORE_FIELDS = ["has_more", "hasMore", "has_next", "hasNext", "more", "HasMore"];
const cursorValue = fc.oneof(
  { arbitrary: fc.constantFrom("", "c1", "c2", "c3", "0", "1"), weight: 4 },
  { arbitrary: fc.string({ maxLength: 10 }), weight: 2 },
  { arbitrary: fc.oneof(fc.nat({ max: 50 }), fc.double(), rawNumber), weight: 2 },
  { arbitrary: fc.constantFrom(null, true, [], ["c1"], { next: "c1" }), weight: 2 },
  { arbitrary: tokenEcho, weight: 1 },
);
const hasMoreValue = fc.constantFrom<Json>(true, false, "true", "false", 1, 0, null, [], {}, "yes");
const continuation: fc.Arbitrary<Record<string, Json>> = fc.oneof(
  { arbitrary: fc.constant({}), weight: 4 },
  { arbitrary: fc.tuple(fc.constantFrom(...CURSOR_FIELDS), cursorValue).map(([field, value]) => ({ [field]: value })), weight: 3 },
  { arbitrary: fc.tuple(fc.constantFrom(...HAS_MORE_FIELDS), hasMoreValue).map(([field, value]) => ({ [field]: value })), weight: 3 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom(...CURSOR_FIELDS), cursorValue, fc.constantFrom(...HAS_MORE_FIELDS), hasMoreValue)
      .map(([c, cv, h, hv]) => ({ [c]: cv, [h]: hv })),
    weight: 1,
  },
);

const successCode = fc.constantFrom<Json>("200", 200, raw("2e2"), raw("200.0"));
const envelopeTrace = fc.oneof({ arbitrary: hex32, weight: 4 }, { arbitrary: fc.constantFrom("", TRACE), weight: 1 }, { arbitrary: text, weight: 1 });

function listEnvelope(records: fc.Arbitrary<Record<string, Json>[]>): fc.Arbitrary<Record<string, Json>> {
  return fc
    .tuple(successCode, fc.oneof(fc.constant("SUCCESS"), text), envelopeTrace, records, continuation, fc.option(extras, { freq: 5, nil: undefined }))
    .map(([code, msg, trace_id, data, more, envelopeExtras]) => ({ ...envelopeExtras, code, msg, trace_id, data: { ...more, data } }));
}

const validList = listEnvelope(fc.array(recordArb(), { maxLength: 6 }));
/** Valid lists whose ids repeat, within the page. */
const duplicatedIds = listEnvelope(
  fc.tuple(recordArb(fc.nat({ max: 3 })), fc.nat({ max: 3 })).map(([record, copies]) => Array.from({ length: copies + 2 }, () => ({ ...record }))),
);
const validCreate = fc
  .tuple(successCode, fc.oneof(fc.constant("SUCCESS"), text), envelopeTrace, recordArb(), fc.option(extras, { freq: 5, nil: undefined }))
  .map(([code, msg, trace_id, data, more]) => ({ ...more, code, msg, trace_id, data }));

/** One change to a valid envelope: a field deleted, given a wrong type, or wrapped in extra nesting. */
const mutation = fc.record({
  target: fc.constantFrom("code", "msg", "trace_id", "data", "data.data", "record", "record", "record"),
  field: fc.constantFrom(...RECORD_FIELDS),
  index: fc.nat({ max: 5 }),
  op: fc.constantFrom("delete", "wrong", "wrong", "wrong", "object-wrap", "array-wrap"),
  value: wrongValue,
});
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(envelope: Record<string, Json>, mutations: Mutation[], shape: "list" | "create"): Record<string, Json> {
  const copy = structuredClone(envelope);
  for (const m of mutations) {
    let holder: Record<string, Json> | undefined;
    let key: string;
    if (m.target === "record") {
      const records = shape === "list" ? (isObject(copy.data) && Array.isArray(copy.data.data) ? copy.data.data : undefined) : undefined;
      const record = shape === "create" ? copy.data : records?.[m.index % Math.max(1, records.length)];
      if (!isObject(record)) {
        if (records) records.push(m.value);
        continue;
      }
      holder = record;
      key = m.field;
    } else if (m.target === "data.data") {
      if (!isObject(copy.data)) continue;
      holder = copy.data;
      key = "data";
    } else {
      holder = copy;
      key = m.target;
    }
    const current = holder[key];
    if (m.op === "delete") delete holder[key];
    else if (m.op === "wrong") holder[key] = m.value;
    else if (m.op === "object-wrap") holder[key] = { value: current, data: current };
    else holder[key] = [current];
  }
  return copy;
}

const errorEnvelope = fc.record(
  {
    code: fc.oneof(
      fc.constantFrom<Json>("40001", "40101", "40301", "40401", "40901", "42901", "50001", "50301", "500", "503", "429", "401", "abc", "", " 200", "200 "),
      fc.constantFrom<Json>(400, 401, 403, 429, 500, 503, 50301, 200.5, -200, null, true, [], {}),
      rawNumber,
      tokenEcho,
    ),
    msg: fc.oneof(text, tokenEcho, fc.constant(`${"m".repeat(400)} ${TOKEN}`), wrongValue),
    message: fc.oneof(text, tokenEcho),
    trace_id: fc.oneof(hex32, tokenEcho, wrongValue),
    data: fc.constantFrom<Json>(null, {}, [], { data: [] }),
  },
  { requiredKeys: ["code"] },
);

/** Responses that carry the token back in every place a server could put it. */
function tokenEchoes(valid: fc.Arbitrary<Record<string, Json>>, shape: "list" | "create"): fc.Arbitrary<Record<string, Json>> {
  return fc
    .tuple(valid, fc.constantFrom("msg", "message", "trace_id", "code", "record-string", "record-number", "extra"), tokenEcho, fc.nat({ max: 5 }))
    .map(([envelope, where, echo, index]) => {
      const copy = structuredClone(envelope);
      const records = shape === "list" ? ((copy.data as { data: Record<string, Json>[] }).data ?? []) : [copy.data as Record<string, Json>];
      const record = records[index % Math.max(1, records.length)];
      if (where === "record-string" && record) record.webhook_name = echo;
      else if (where === "record-number" && record) record.webhook_id = echo;
      else if (where === "extra") copy.echo = { nested: [echo] };
      else copy[where.startsWith("record") ? "msg" : where] = echo;
      return copy;
    });
}

const garbageText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ maxLength: 50, unit: "binary" }),
  fc.constantFrom("<html><body>502 Bad Gateway</body></html>", "undefined", "NaN", "{'code': '200'}", "{", "}", '{"code":"200",}', "\u00a0", "OK"),
);

function bodies(shape: "list" | "create"): fc.Arbitrary<{ kind: string; body: Buffer }> {
  const valid = shape === "list" ? validList : validCreate;
  const json = (kind: string, arbitrary: fc.Arbitrary<Json>) => arbitrary.map((value) => ({ kind, body: Buffer.from(jsonText(value)) }));
  return fc.oneof(
    { arbitrary: json("valid", valid), weight: 14 },
    { arbitrary: json("valid-duplicated-ids", shape === "list" ? duplicatedIds : validCreate), weight: 2 },
    { arbitrary: json("mutated", fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([v, ms]) => mutate(v, ms, shape))), weight: 14 },
    { arbitrary: json("token-echo", tokenEchoes(valid, shape)), weight: 5 },
    { arbitrary: json("error-envelope", errorEnvelope), weight: 6 },
    {
      arbitrary: json(
        "extra-nesting",
        fc.tuple(valid, fc.constantFrom("wrapped", "array", "data-data-data", "data-array")).map(([v, how]) => {
          if (how === "wrapped") return { code: "200", msg: "SUCCESS", trace_id: TRACE, data: v };
          if (how === "array") return [v];
          if (how === "data-data-data") return { ...v, data: { data: { data: (v.data as { data?: Json }).data ?? v.data } } };
          return { ...v, data: [v.data] };
        }),
      ),
      weight: 3,
    },
    { arbitrary: json("top-level-scalar", fc.oneof(fc.constantFrom<Json>(null, true, 200, "200", [], [{}]), fc.jsonValue({ maxDepth: 3 }))), weight: 3 },
    { arbitrary: garbageText.map((t) => ({ kind: "not-json", body: Buffer.from(t) })), weight: 4 },
    { arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: "random-bytes", body: Buffer.from(bytes) })), weight: 1 },
    {
      arbitrary: fc.tuple(valid, fc.double({ min: 0, max: 1, noNaN: true })).map(([v, at]) => {
        const full = jsonText(v);
        return { kind: "truncated-json", body: Buffer.from(full.slice(0, Math.floor(full.length * at))) };
      }),
      weight: 3,
    },
    {
      arbitrary: fc.tuple(valid, fc.constantFrom("\ufeff", "x", "\n{}", ",", "\u0000")).map(([v, affix]) => ({
        kind: "json-with-affix",
        body: Buffer.from(affix === "\ufeff" ? affix + jsonText(v) : jsonText(v) + affix),
      })),
      weight: 2,
    },
    { arbitrary: fc.constantFrom("", " ", "\n\t ", "\r\n").map((t) => ({ kind: "empty", body: Buffer.from(t) })), weight: 2 },
    {
      arbitrary: fc.tuple(valid, hugeString, fc.constantFrom("msg", "record", "garbage", "extra")).map(([v, huge, where]) => {
        if (where === "garbage") return { kind: "huge-garbage", body: Buffer.from(huge) };
        const copy: Record<string, Json> = structuredClone(v);
        if (where === "msg") copy.msg = huge;
        else if (where === "extra") copy.padding = huge;
        else {
          const records = shape === "list" ? (copy.data as { data: Record<string, Json>[] }).data : [copy.data as Record<string, Json>];
          if (records[0]) records[0].webhook_url = huge;
          else copy.msg = huge;
        }
        return { kind: `huge-${where}`, body: Buffer.from(jsonText(copy)) };
      }),
      weight: 1,
    },
  );
}

const status = fc.oneof(
  { arbitrary: fc.constant(200), weight: 30 },
  { arbitrary: fc.constantFrom(201, 202, 203, 204, 205, 206, 226, 299), weight: 4 },
  { arbitrary: fc.constantFrom(300, 301, 302, 303, 304, 307, 308), weight: 3 },
  { arbitrary: fc.constantFrom(400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 429, 451, 499), weight: 6 },
  { arbitrary: fc.constantFrom(500, 501, 502, 503, 503, 504, 599), weight: 6 },
  { arbitrary: fc.integer({ min: 200, max: 599 }), weight: 5 },
);

/** Characters Node lets through in a header value. */
const headerSafe = fc.string({ maxLength: 40, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });
const headers: fc.Arbitrary<Record<string, string | string[]>> = fc.record(
  {
    "content-type": fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "text/html",
      "text/plain",
      "application/json; charset=iso-8859-1",
      "application/octet-stream",
      "garbage/////",
      "",
    ),
    "retry-after": fc.oneof(
      fc.constantFrom("0", "1", "-1", "1.5", "30", "99999999999999999999", "1e9", "NaN", "Infinity", "", "  2  ", "0x10", "tomorrow"),
      fc.constantFrom("Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", new Date(Date.now() + 60_000).toUTCString()),
      headerSafe,
      fc.constant(TOKEN),
    ),
    "x-trace-id": fc.oneof(
      { arbitrary: hex32, weight: 4 },
      { arbitrary: headerSafe, weight: 2 },
      { arbitrary: fc.constantFrom(TOKEN, `trace ${TOKEN}`, ""), weight: 2 },
      { arbitrary: fc.tuple(hex32, headerSafe).map(([a, b]) => [a, b]), weight: 1 },
      { arbitrary: fc.constant("t".repeat(20_000)), weight: 1 },
    ),
    location: fc.constantFrom("/elsewhere", "http://127.0.0.1:1/open-api/v1/webhooks", `https://evil.example/?token=${TOKEN}`, ""),
    "www-authenticate": fc.constantFrom(`Bearer ${TOKEN}`, 'Bearer error="invalid_token"'),
    "set-cookie": fc.constantFrom([`session=${TOKEN}`], ["a=1", "b=2"]),
    connection: fc.constantFrom("close", "keep-alive"),
  },
  { requiredKeys: [] },
);

function responses(shape: "list" | "create"): fc.Arbitrary<Hostile> {
  return fc
    .tuple(bodies(shape), status, headers, fc.nat({ max: 99 }))
    // A 204 / 304 has no body to cut short.
    .map(([{ kind, body }, code, head, roll]) => ({ kind, status: code, headers: head, body, cut: roll < 2 && code !== 204 && code !== 304 }));
}

// ---------------------------------------------------------------------------------------------

describe("list against generated responses", () => {
  let current: Hostile | undefined;
  let server: Awaited<ReturnType<typeof rawServer>>;
  let client: WebhooksClient;
  beforeAll(async () => {
    server = await rawServer((req, _body, res) => {
      if (req.url !== LIST_PATH || current === undefined) {
        tally.unexpectedPaths++;
        res.writeHead(404).end();
        return;
      }
      send(res, current);
    });
    client = fastClient(server.url, { maxRetries: 1 });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it("returns exactly the records of a valid page, else a typed error without the token", async () => {
    await fc.assert(
      fc.asyncProperty(responses("list"), async (response) => {
        current = response;
        const before = tally.served;
        const outcome = await settle(client.list({ webhookName: "n", limit: 10 }));
        const requests = tally.served - before;
        const valid = acceptable(response, "list");
        if (outcome.ok) {
          expect(valid, `resolved on a ${response.kind} response (HTTP ${response.status})`).toBeDefined();
          const data = valid!.data as Record<string, Json> & { data: Json[] };
          expect(outcome.value.records).toEqual(data.data.map(camel));
          expect(outcome.value.traceId).toBe(redacted(valid!.trace_id));
          const { cursor, hasMore } = continuationOf(data);
          expect(outcome.value.continuation.cursor).toBe(cursor);
          expect(outcome.value.continuation.hasMore).toBe(hasMore);
          expect(requests).toBe(1);
          tally.correctResults++;
          return;
        }
        expect(valid, `rejected a valid page: ${String(outcome.error)}`).toBeUndefined();
        expectTypedSafeError(outcome.error, "list", response);
        const error = outcome.error as WebhookApiError;
        if (!transportBreaks(response) && (response.status < 200 || response.status >= 300)) {
          expect(error).toBeInstanceOf(classForStatus(response.status));
          expect(error.status).toBe(response.status);
        }
        if (transportBreaks(response)) expect(error).toBeInstanceOf(WebhookConnectionError);
        const retryable =
          error instanceof WebhookRateLimitError ||
          error instanceof WebhookServerError ||
          error instanceof WebhookInvalidResponseError ||
          error instanceof WebhookConnectionError;
        expect(requests).toBe(retryable ? 2 : 1);
      }),
      { seed: 20_260_611, numRuns: 2600 },
    );
  }, 180_000);
});

describe("create (and the listing that settles an ambiguous create) against generated responses", () => {
  const NAME = "hook-a";
  const URL_ = "https://example.com/hooks/a";
  let current: { create: Hostile; list: Hostile } | undefined;
  const counts = { create: 0, list: 0 };
  let server: Awaited<ReturnType<typeof rawServer>>;
  let client: WebhooksClient;
  beforeAll(async () => {
    server = await rawServer((req, _body, res) => {
      if (current === undefined || (req.url !== LIST_PATH && req.url !== CREATE_PATH)) {
        tally.unexpectedPaths++;
        res.writeHead(404).end();
        return;
      }
      const which = req.url === CREATE_PATH ? "create" : "list";
      counts[which]++;
      send(res, current[which]);
    });
    client = fastClient(server.url, { maxRetries: 1, maxPages: 5 });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  /** Lists that may hold our endpoint: records with our exact name and URL, new or too old. */
  const candidateList = fc
    .tuple(validList, fc.array(fc.record({ id: fc.nat({ max: 20 }), old: fc.boolean(), nearMiss: fc.nat({ max: 3 }) }), { maxLength: 3 }), fc.boolean())
    .map(([envelope, inserts, withContinuation]) => {
      const copy = structuredClone(envelope);
      const data = copy.data as Record<string, Json> & { data: Json[] };
      if (!withContinuation) for (const key of Object.keys(data)) if (key !== "data") delete data[key];
      for (const insert of inserts) {
        data.data.push({
          webhook_id: insert.id,
          webhook_name: insert.nearMiss === 1 ? `${NAME} ` : NAME,
          webhook_url: insert.nearMiss === 2 ? `${URL_}/` : URL_,
          sign_secret: "whsec_found",
          creator_id: 1,
          creator_name: "c",
          create_time: insert.old ? 0 : FUTURE,
          operator_id: 1,
          operator_name: "c",
          operate_time: FUTURE,
        });
      }
      return copy;
    });
  const listForCreate = fc.oneof(
    { arbitrary: candidateList.map((v): Hostile => ({ kind: "candidates", status: 200, headers: {}, body: Buffer.from(jsonText(v)), cut: false })), weight: 3 },
    { arbitrary: responses("list"), weight: 2 },
  );

  it("returns the created record, or the one found after an ambiguous answer, else a typed error", async () => {
    await fc.assert(
      fc.asyncProperty(responses("create"), listForCreate, async (create, list) => {
        current = { create, list };
        counts.create = 0;
        counts.list = 0;
        const startedAt = Date.now();
        const outcome = await settle(client.create({ webhookName: NAME, webhookUrl: URL_ }));
        const valid = acceptable(create, "create");
        expect(counts.create).toBeGreaterThanOrEqual(1);
        expect(counts.create).toBeLessThanOrEqual(2);
        if (valid) {
          // A valid answer is taken as is: one request, no listing.
          expect(outcome.ok, `rejected a valid create: ${outcome.ok ? "" : String(outcome.error)}`).toBe(true);
          if (!outcome.ok) return;
          expect(outcome.value.record).toEqual(camel(valid.data));
          expect(outcome.value.traceId).toBe(redacted(valid.trace_id));
          expect(outcome.value).toMatchObject({ recovered: false, attempts: 1 });
          expect(counts).toEqual({ create: 1, list: 0 });
          tally.correctResults++;
          return;
        }
        const listed = acceptable(list, "list");
        const candidates = listed
          ? (listed.data as { data: Json[] }).data
              .map(camel)
              .filter((r) => r.webhookName === NAME && r.webhookUrl === URL_ && r.createTime >= startedAt - 60_000)
              // One endpoint listed twice is still one endpoint: the first matching copy stands.
              .filter((r, i, all) => all.findIndex((k) => k.webhookId === r.webhookId) === i)
          : [];
        if (outcome.ok) {
          // Only a listing that shows exactly one endpoint like ours may stand in for the answer.
          expect(outcome.value.recovered, `resolved a ${create.kind} create without recovering`).toBe(true);
          expect(counts.list).toBeGreaterThanOrEqual(1);
          expect(candidates).toHaveLength(1);
          expect(outcome.value.record).toEqual(candidates[0]);
          tally.correctResults++;
          tally.recoveredCreates++;
          return;
        }
        expectTypedSafeError(outcome.error, "create", create);
        const wholeAndRefused = !transportBreaks(create) && create.status >= 300 && create.status < 500 && create.status !== 429;
        if (wholeAndRefused) {
          // A refusal is final: never retried, never settled by listing.
          expect(outcome.error).toBeInstanceOf(classForStatus(create.status));
          expect(counts).toEqual({ create: 1, list: 0 });
        }
        // An answer that certainly leaves the outcome open, with a listing showing one endpoint
        // like ours on a single page, must be recovered, not reported as a failure.
        const body = parsed(create);
        const ambiguous =
          transportBreaks(create) ||
          (!body.ok && ((create.status >= 200 && create.status < 300) || (create.status >= 500 && create.status !== 503)));
        const singlePage =
          listed !== undefined &&
          (() => {
            const data = listed.data as Record<string, Json> & { data: Json[] };
            const next = continuationOf(data);
            return next.cursor === undefined && next.hasMore !== true && data.data.length < 100;
          })();
        if (ambiguous && singlePage && candidates.length === 1) {
          throw new Error(`an ambiguous ${create.kind} create (HTTP ${create.status}) was not recovered from a listing showing it: ${String(outcome.error)}`);
        }
      }),
      { seed: 4_242, numRuns: 1400 },
    );
  }, 180_000);
});

describe("scan against generated page sequences", () => {
  const TERMINAL: Hostile = {
    kind: "terminal",
    status: 200,
    headers: {},
    body: Buffer.from(JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: TRACE, data: { data: [] } })),
    cut: false,
  };
  let pages: Hostile[] = [];
  let cursorsSent: Json[] = [];
  let server: Awaited<ReturnType<typeof rawServer>>;
  let client: WebhooksClient;
  const MAX_PAGES = 4;
  beforeAll(async () => {
    server = await rawServer((req, body, res) => {
      if (req.url !== LIST_PATH) {
        tally.unexpectedPaths++;
        res.writeHead(404).end();
        return;
      }
      cursorsSent.push((JSON.parse(body) as { cursor: Json }).cursor);
      send(res, pages[cursorsSent.length - 1] ?? TERMINAL);
    });
    client = fastClient(server.url, { maxRetries: 0, maxPages: MAX_PAGES });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const scanPage = fc
    .tuple(
      successCode,
      hex32,
      fc.array(recordArb(fc.integer({ min: 1, max: 30 })), { maxLength: 5 }),
      fc.oneof(continuation, fc.constantFrom<Record<string, Json>>({ cursor: "c1" }, { next_cursor: "c2" }, { has_more: true }, { has_more: false })),
    )
    .map(([code, trace_id, data, more]): Hostile => ({
      kind: "valid-page",
      status: 200,
      headers: { "content-type": "application/json" },
      body: Buffer.from(jsonText({ code, msg: "SUCCESS", trace_id, data: { ...more, data } })),
      cut: false,
    }));
  const sequence = fc.array(fc.oneof({ arbitrary: scanPage, weight: 6 }, { arbitrary: responses("list"), weight: 1 }), { minLength: 1, maxLength: 6 });

  /** What scan must do with these pages, read from its documentation. */
  function expectedScan(served: Hostile[], limit: number) {
    const seenCursors = new Set<string>([""]);
    const seenIds = new Set<number>();
    const records: WebhookEndpointRecord[] = [];
    const cursors: string[] = [];
    let cursor = "";
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES) return { ok: false as const, cursors };
      cursors.push(cursor);
      const envelope = acceptable(served[page - 1] ?? TERMINAL, "list");
      if (!envelope) return { ok: false as const, cursors };
      const data = envelope.data as Record<string, Json> & { data: Json[] };
      const pageRecords = data.data.map(camel);
      const fresh = pageRecords.filter((r) => !seenIds.has(r.webhookId));
      if (pageRecords.length > 0 && fresh.length === 0) return { ok: false as const, cursors };
      for (const r of fresh) seenIds.add(r.webhookId);
      // scan reports each id once, the first time it is listed.
      for (const r of pageRecords) if (!records.some((k) => k.webhookId === r.webhookId)) records.push(r);
      const next = nextCursorOf(pageRecords, data, limit);
      if (next === undefined) return { ok: true as const, cursors, records, pages: page };
      if (seenCursors.has(next)) return { ok: false as const, cursors };
      seenCursors.add(next);
      cursor = next;
    }
  }

  it("follows the continuation exactly as documented, else a typed error without the token", async () => {
    await fc.assert(
      fc.asyncProperty(sequence, fc.integer({ min: 1, max: 5 }), async (served, limit) => {
        pages = served;
        cursorsSent = [];
        const outcome = await settle(client.scan({ limit }));
        const expected = expectedScan(served, limit);
        expect(cursorsSent).toEqual(expected.cursors);
        if (outcome.ok) {
          expect(expected.ok, "scan resolved where the documented paging fails").toBe(true);
          if (!expected.ok) return;
          expect(outcome.value.records).toEqual(expected.records);
          expect(outcome.value.pages).toBe(expected.pages);
          tally.correctResults++;
          if (expected.pages > 1) tally.multiPageScans++;
          return;
        }
        expect(expected.ok, `scan rejected a sequence the documented paging accepts: ${String(outcome.error)}`).toBe(false);
        expectTypedSafeError(outcome.error, "list", served[cursorsSent.length - 1] ?? TERMINAL);
      }),
      { seed: 77, numRuns: 800 },
    );
  }, 180_000);
});

describe("totals", () => {
  it(">= 5000 hostile responses served, no crash, no unhandled rejection", async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(
      `hostile responses: ${tally.served}, typed errors: ${tally.typedErrors}, correct results: ${tally.correctResults}` +
        ` (of which ${tally.recoveredCreates} creates recovered by listing, ${tally.multiPageScans} multi-page scans)`,
    );
    expect(tally.served).toBeGreaterThanOrEqual(5000);
    expect(tally.unexpectedPaths).toBe(0);
    expect(tally.serverFaults).toBe(0);
    expect(crashes).toEqual({ unhandledRejection: 0, uncaughtException: 0 });
  });
});
