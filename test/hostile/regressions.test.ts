// Single hostile responses, each a plain test of one rule (from the API document or docs/client.md):
// the rule, the response, and what the client must do with it. They pin cases the property tests
// reach only by chance; the labels B1-B8 are the ids test/hostile/servers.ts gives them (knownBug).
// test/hostile/oracle.ts's KNOWN_DEPARTURES are all off, so the property tests hold the client to
// the same rules with no exception.
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

describe("single hostile responses, each held to one rule of docs/client.md", () => {
  it("an empty page that carries a cursor is followed, not taken as the end of the listing", async () => {
    // docs/client.md: "follows a cursor field (...), else a has-more flag (...), else nothing (a page shorter
    // than the limit, or empty, ends the listing ...)". A service that filters after paging (or skips
    // deleted rows) returns empty pages with a cursor; stopping there silently drops every later
    // record: create's check would miss an existing endpoint (a duplicate that can never be
    // deleted), and read would report a live endpoint gone. (B1)
    const { client, cursors } = await serve((cursor, _path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(cursor === "" ? page({ data: [], next_cursor: "p2" }) : page({ data: [record(7)] }));
    });
    const result = await client.scan({ limit: 10 });
    expect(cursors).toEqual(["", "p2"]);
    expect(result.records.map((r) => r.webhookId)).toEqual([7]);
  });

  it("a token split by a control or invisible character does not come back whole in the error", async () => {
    // docs/client.md, "Redaction": the token is replaced after control and invisible characters are
    // removed, so "tok_live_5f2c\n9a71..." does not come back whole. Redacted before, it would: a
    // service that wraps long lines, or pads with zero-width spaces, would put the token into CI
    // logs through the error message. (B2)
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

  it("names quoted in create's errors have the token redacted", async () => {
    // docs/client.md, "Redaction": no error carries the token, quoted names and URLs included.
    // create's refusals quote the listed records' creator_name, webhook_name and webhook_url: a
    // service that echoes the caller into creator_name (or a record named after it) must not get
    // the token into WebhookEndpointExistsError or WebhookCreateUncertainError, nor through them
    // into the provider's ProviderError. (B3)
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

  it("an error message is at most 2000 characters, cut mark included", async () => {
    // docs/client.md, "Redaction": every error message is at most 2,000 bytes, the cut mark "…"
    // included. Reached by create's refusal when many lookalike records are named. (B4)
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

  it("a numeric cursor past 2^53 is sent back with its digits, or refused, never rounded", async () => {
    // docs/client.md, "Paging": a number is used in decimal when JSON holds it exactly; any other
    // number stops the listing. JSON.parse rounds 9007199254740993 to 9007199254740992: asking for
    // that page instead, with 64-bit ids as cursors (snowflake-style ids are ~1.9e18), would start
    // every page after the first at the wrong record, skipping or repeating records without any
    // error. (B5)
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

  it('a WebhookPagingError without a documented trace id has traceId undefined, not ""', async () => {
    // docs/client.md, "Errors": traceId only in the documented form (32 hexadecimal characters).
    // A page without one has traceId ""; the error it causes has none: undefined, not "". (B6)
    const { client } = await serve((_cursor, _path, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(page({ data: [record(1)], next_cursor: "same" }, "not-a-trace-id"));
    });
    const error = await captureError(client.scan({ limit: 10 }));
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect((error as WebhookPagingError).traceId).toBeUndefined();
  });

  it("an error envelope whose code is not a string or number still gives its trace_id and msg", async () => {
    // docs/client.md, "Errors": an error carries the service's msg and traceId. An envelope whose
    // code is null (or an object) still holds them: dropping it whole would lose msg and take the
    // trace id from the x-trace-id header instead, naming another trace than the service's. (B7)
    const { client } = await serve((_cursor, _path, res) => {
      res.writeHead(500, { "content-type": "application/json", "x-trace-id": OTHER_TRACE });
      res.end(JSON.stringify({ code: null, msg: "database unavailable", trace_id: TRACE }));
    });
    const error = (await captureError(client.list({}))) as WebhookApiError;
    expect(error.traceId).toBe(TRACE);
    expect(error.msg).toBe("database unavailable");
  });

  it.each(["deep-array-data", "tiny-values-8MB"])(
    "one response under the 8 MB cap does not take the client past 256 MB (%s)",
    async (name) => {
      // docs/client.md, "Bounds on what a server can make the client read": a body over 8 MB is
      // invalid, and one nesting too deep or holding too many containers or values is not parsed.
      // Bounding bytes alone does not bound what they parse into: 2 MB of nested arrays
      // ("[[[[...]]]]", 1e6 deep) parse into ~110 MB of arrays (twice, with the retry), 7.99 MB of
      // "{}," into 2.7 million objects, ~400 MB, enough to kill a Pulumi provider host (whose
      // baseline is larger). A valid page of `limit` records has about limit + 3 containers and
      // depth 4. (B8)
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
