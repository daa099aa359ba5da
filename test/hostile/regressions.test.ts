// Bugs in src/client found by the hostile-response tests, kept as regression tests: each test states
// the rule (from the API document, docs/client.md or the trust-hardening issue), the input, and what
// the client must do. All eight (B1-B8) are fixed; test/hostile/oracle.ts's KNOWN_DEPARTURES are
// all off, so the property tests hold the client to the rules with no exception.
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  WebhookApiError,
  WebhookEndpointExistsError,
  WebhookPagingError,
  WebhookRequestRefusedError,
  WebhooksClient,
} from "../../src/client";
import { TOKEN, captureError, everythingVisible, rawServer } from "../support/helpers";
import { runChild } from "./child-runner";
import { hostileSpecs, startHostile } from "./servers";

const TRACE = "0123456789abcdef0123456789abcdef";
const OTHER_TRACE = "fedcba9876543210fedcba9876543210";
const record = (id: number, over: Record<string, unknown> = {}) => ({
  webhook_id: id,
  webhook_name: "orders",
  webhook_url: "https://example.com/hooks/orders",
  sign_secret: `whsec_${id}`,
  creator_id: 1,
  creator_name: "ci",
  create_time: 1,
  operator_id: 1,
  operator_name: "ci",
  operate_time: 1,
  ...over,
});
const page = (data: Record<string, unknown>, traceId = TRACE) =>
  JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: traceId, data });

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A server answering list requests by cursor, and a client on it; `cursors` records what was sent. */
async function serve(answer: (cursor: string, path: string, res: ServerResponse) => void) {
  const cursors: string[] = [];
  const server = await rawServer((req, body, res) => {
    const sent = (JSON.parse(body) as { cursor?: unknown }).cursor;
    const cursor = typeof sent === "string" ? sent : "";
    if (req.url?.endsWith("/webhooks")) cursors.push(cursor);
    answer(cursor, req.url ?? "", res);
  });
  const client = new WebhooksClient({
    baseUrl: server.url,
    accessToken: TOKEN,
    maxRetries: 0,
    retryBaseDelayMs: 1,
    createSettleMs: 0,
  });
  closers.push(
    () => server.close(),
    () => client.close(),
  );
  return { client, cursors };
}

describe("regressions: bugs the hostile tests found, fixed", () => {
  it("B1 paging.ts:56 — an empty page that carries a cursor must be followed, not taken as the end of the listing", async () => {
    // docs/client.md: "follows a cursor field (...), else a has-more flag (...), else nothing (a page shorter
    // than the limit, or empty, ends the listing ...)". A service that filters after paging (or skips
    // deleted rows) returns empty pages with a cursor; stopping there silently drops every later
    // record: create's check misses an existing endpoint (a duplicate that can never be deleted),
    // and read reports a live endpoint gone.
    const { client, cursors } = await serve((cursor, _path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      // The second page ends the listing with an empty cursor.
      res.end(
        cursor === "" ? page({ data: [], next_cursor: "p2" }) : page({ data: [record(7)], next_cursor: "" }),
      );
    });
    const result = await client.scan({ limit: 10 });
    expect(cursors).toEqual(["", "p2"]);
    expect(result.records.map((r) => r.webhookId)).toEqual([7]);
  });

  it("B2 responses.ts:131-132, redact.ts:38/48 — a token split by a control or invisible character must not come back whole", async () => {
    // The issue: quoted service text "never contains the token". The token is redacted BEFORE the
    // control and invisible characters are removed, so "tok_live_5f2c\n9a71..." is not redacted and
    // then becomes the token. A service that wraps long lines, or pads with zero-width spaces, puts
    // the token into CI logs through the error message.
    const { client } = await serve((_cursor, _path, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          code: `400${TOKEN.slice(0, 4)}\u200b${TOKEN.slice(4)}`,
          msg: `bad token ${TOKEN.slice(0, 12)}\n${TOKEN.slice(12)}`,
          trace_id: TRACE,
        }),
      );
    });
    const error = await captureError(client.list({}));
    expect(error).toBeInstanceOf(WebhookRequestRefusedError);
    expect(everythingVisible(error)).not.toContain(TOKEN);
  });

  it("B3 reconcile.ts:58-59 — names quoted in create's errors must have the token redacted", async () => {
    // PRODUCT.md: the access token is "never in an error message". describeEndpoints quotes the
    // listed records' creator_name, webhook_name and webhook_url with no secrets to redact (the
    // `[]` arguments), and WebhookApiError does not redact, so a service that echoes the caller
    // into creator_name (or a record named after it) leaks the token in WebhookEndpointExistsError
    // and WebhookCreateUncertainError, and through them in the provider's ProviderError.
    const { client } = await serve((_cursor, path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(path.endsWith("/create") ? "{}" : page({ data: [record(5, { creator_name: TOKEN })] }));
    });
    const error = await captureError(
      client.create({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" }),
    );
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it("B4 redact.ts:33 (via errors.ts) — an error message is at most 2000 characters, cut mark included", async () => {
    // The issue: "Every error message is at most 2000 characters". showable() keeps 2000 characters
    // and then appends "…": 2001. Reached by create's refusal when many lookalike records are named.
    const name = `orders-${"x".repeat(400)}`;
    const { client } = await serve((_cursor, _path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        page({
          data: Array.from({ length: 10 }, (_, i) =>
            record(i + 1, {
              webhook_name: name.toUpperCase(),
              webhook_url: "https://example.com/hooks/orders/",
              creator_name: "c".repeat(80),
            }),
          ),
        }),
      );
    });
    const error = await captureError(
      client.create({ webhookName: name, webhookUrl: "https://example.com/hooks/orders" }),
    );
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as Error).message.length).toBeLessThanOrEqual(2000);
  });

  it("B5 paging.ts:40 — a numeric cursor past 2^53 must be sent back with its digits, or refused, never rounded", async () => {
    // docs/client.md: "a number is used in decimal". JSON.parse rounds 9007199254740993 to
    // 9007199254740992, and the client asks for that page instead: with 64-bit ids as cursors
    // (snowflake-style ids are ~1.9e18) every page after the first starts at the wrong record,
    // skipping or repeating records without any error. Records' own ids are checked to be exact
    // (zod int() accepts only safe integers); the cursor is not.
    const { client, cursors } = await serve((cursor, _path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        cursor === ""
          ? `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":{"data":[${JSON.stringify(record(1))}],"next_cursor":9007199254740993}}`
          : page({ data: [] }),
      );
    });
    const outcome = await client.scan({ limit: 10 }).then(
      () => "resolved",
      (error: unknown) => error,
    );
    if (outcome === "resolved") expect(cursors).toEqual(["", "9007199254740993"]);
    else expect(outcome).toBeInstanceOf(WebhookApiError);
    expect(cursors).not.toContain("9007199254740992");
  });

  it('B6 paging.ts:90/97/107/113 — a WebhookPagingError without a documented trace id has traceId undefined, not ""', async () => {
    // The issue: "ListPage.traceId is the envelope's trace_id only when it is in the documented
    // form, else "" (errors: traceId undefined)". pagesOf passes the page's "" on to the error.
    // A cursor too long to be one stops the listing with the error (a repeated cursor no longer
    // does: it ends the listing possibly incomplete).
    const { client } = await serve((_cursor, _path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(page({ data: [record(1)], next_cursor: "x".repeat(4097) }, "not-a-trace-id"));
    });
    const error = await captureError(client.scan({ limit: 10 }));
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect((error as WebhookPagingError).traceId).toBeUndefined();
  });

  it("B7 responses.ts:116 — an error envelope whose code is not a string or number still gives its trace_id and msg", async () => {
    // PRODUCT.md: errors carry "code, msg, traceId". detailsOf reads the envelope with a schema that
    // requires code to be a string or number; when it is null (or an object), the whole envelope is
    // dropped: msg is lost and traceId is taken from the x-trace-id header instead, i.e. the error
    // names a different trace id than the one the service put in the envelope.
    const { client } = await serve((_cursor, _path, res) => {
      res.writeHead(500, { "content-type": "application/json", "x-trace-id": OTHER_TRACE });
      res.end(JSON.stringify({ code: null, msg: "database unavailable", trace_id: TRACE }));
    });
    const error = (await captureError(client.list({}))) as WebhookApiError;
    expect(error.traceId).toBe(TRACE);
    expect(error.msg).toBe("database unavailable");
  });

  it.each(["deep-array-data", "tiny-values-8MB"])(
    "B8 responses.ts:37 (transport.ts:39 the only bound) — one response under the 8 MB cap must not take the client past 256 MB (%s)",
    async (name) => {
      // The issue bounds a response at 8 MB, but the body is then JSON.parse'd whole: 2 MB of nested
      // arrays ("[[[[...]]]]", 1e6 deep) becomes ~110 MB of arrays (twice, with the retry), and
      // 7.99 MB of "{}," becomes 2.7 million objects, ~400 MB; the call's process peaks at 285 MB and
      // at 480-660 MB (hostile-servers.test.ts). A Pulumi provider host (whose baseline is larger)
      // can be killed by one such answer. Bounding bytes does not bound what they parse into: the
      // body's containers and depth need a bound before JSON.parse (a valid page of `limit` records
      // has about limit + 3 containers and depth 4).
      const spec = hostileSpecs(TOKEN).find((candidate) => candidate.name === name)!;
      const server = await startHostile(spec, TOKEN, { otherHost: "http://127.0.0.2:9" });
      closers.push(() => server.close());
      const run = await runChild({ face: "client", op: "list" }, server.url, 60_000);
      expect(run.report, run.output.slice(-500)).toBeDefined();
      expect(run.report!.peakKb / 1024).toBeLessThan(256);
    },
    90_000,
  );
});
