import { describe, expect, it } from "vitest";
import { WebhookAbortError, WebhookApiError, WebhookConfigError, WebhooksClient } from "../../src/client";
import { startEmulator } from "../../src/emulator";
import { TOKEN, apiRecord, captureError, everythingVisible, rawServer, waitUntil } from "../support/helpers";

/**
 * docs/client.md, "Redaction": every signing secret of 8 characters or more the operation has
 * listed is redacted (for `listAll` and `scan`, those of their earlier pages; for a create, those of
 * the creates of the same name and URL it waited behind too), a trace id that holds one is absent;
 * "Options": a call's options are checked before anything is sent, and read once.
 */
const HOOK = { webhookName: "orders", webhookUrl: "https://example.com/orders" };
const page = (records: unknown[], extra: Record<string, unknown> = {}, traceId = "0".repeat(32)) =>
  JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: traceId, data: { data: records, ...extra } });

/** A service whose first listing page holds one endpoint with `secret` and a cursor, and whose next page is `next`. */
async function twoPages(secret: string, next: { status: number; body: string }) {
  return rawServer((_req, body, res) => {
    const first = (JSON.parse(body) as { cursor?: string }).cursor === "";
    res.writeHead(first ? 200 : next.status, { "content-type": "application/json" });
    res.end(first ? page([apiRecord({ webhook_id: 7, sign_secret: secret })], { cursor: "c2" }) : next.body);
  });
}

describe("a listing operation's later pages redact what its earlier pages listed", () => {
  it("a refusal of the second page that quotes the first page's signing secret shows it redacted", async () => {
    const secret = "whsec_first_page_9a1c55";
    const server = await twoPages(secret, {
      status: 400,
      body: JSON.stringify({ code: "40001", msg: `bad cursor after ${secret}`, trace_id: "1".repeat(32) }),
    });
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const error = await captureError(client.scan({}));
      expect(error).toBeInstanceOf(WebhookApiError);
      expect(everythingVisible(error)).not.toContain(secret);
      expect((error as WebhookApiError).msg).toContain("bad cursor after");
      expect(server.requests).toHaveLength(2);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a second page whose trace id holds the first page's signing secret (32 hex digits, another case) reports none", async () => {
    const secret = "C0ffEE00c0FFee00c0ffee00C0FFEE00";
    const swapped = [...secret]
      .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .join("");
    const server = await twoPages(secret, { status: 200, body: page([], {}, swapped) });
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const pages = [];
      for await (const listed of client.listAll({})) pages.push(listed);
      expect(pages.map((listed) => listed.traceId)).toEqual(["0".repeat(32), ""]);
      expect(pages[0]?.records[0]?.signSecret).toBe(secret);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("a create waiting its turn behind another of the same name and URL", () => {
  it("cancelled with a reason that quotes a secret the earlier create listed: the cause shows it redacted", async () => {
    // An endpoint of the same name elsewhere, which the first create's listing by name returns; and
    // creates the service takes long to answer.
    const emulator = await startEmulator({ accessToken: TOKEN });
    const { sign_secret: secret } = emulator.addRecord({
      webhook_name: HOOK.webhookName,
      webhook_url: "https://example.com/elsewhere",
    });
    emulator.configure({ faults: { create: { rate: 1, kinds: { latency: 1 }, slowMs: 60_000 } } });
    const client = new WebhooksClient({
      baseUrl: emulator.url,
      accessToken: TOKEN,
      createTimeoutMs: 600_000,
    });
    try {
      const first = captureError(client.create(HOOK));
      await waitUntil("the first create is in flight", () => emulator.counters().create > 0);
      const cancel = new AbortController();
      const second = client.create(HOOK, { signal: cancel.signal });
      cancel.abort(new Error(`given up on ${secret}`));
      const error = await captureError(second);
      expect(error).toBeInstanceOf(WebhookAbortError);
      expect(((error as Error).cause as Error).message).toMatch(/^given up on/);
      expect(everythingVisible(error)).not.toContain(secret);
      expect(emulator.counters().create).toBe(1);
      await emulator.close();
      await first;
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});

describe("a call's options are checked before anything is sent, and read once", () => {
  const throwing = Object.defineProperty({}, "timeoutMs", {
    enumerable: true,
    get() {
      throw new Error("a getter that throws");
    },
  });
  const bad: [string, unknown][] = [
    ["null", null],
    ["a text", "fast"],
    ["an object whose getter throws", throwing],
    ["a signal that is not an AbortSignal", { signal: { aborted: false, addEventListener() {} } }],
    ["a signal of null", { signal: null }],
    ["redact as one text", { redact: "abc" }],
    ["redact holding a number", { redact: [1] }],
  ];
  const badForCreate: [string, unknown][] = [
    ...bad,
    ["allowDuplicate as a text", { allowDuplicate: "no" }],
    ["ourCreatorIds as one text", { ourCreatorIds: "12" }],
    ["ourCreatorIds holding a fraction", { ourCreatorIds: [1.5] }],
    ["ourCreatorIds as an array-like", { ourCreatorIds: { length: 1, 0: 12 } }],
  ];

  it("list, scan and create refuse each with a WebhookConfigError, and send nothing", async () => {
    const server = await rawServer((_req, _body, res) => res.end(page([])));
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN });
    try {
      for (const [what, options] of bad) {
        expect(await captureError(client.list({}, options as never)), `list: ${what}`).toBeInstanceOf(
          WebhookConfigError,
        );
        expect(await captureError(client.scan({}, options as never)), `scan: ${what}`).toBeInstanceOf(
          WebhookConfigError,
        );
      }
      for (const [what, options] of badForCreate)
        expect(await captureError(client.create(HOOK, options as never)), `create: ${what}`).toBeInstanceOf(
          WebhookConfigError,
        );
      expect(server.requests).toHaveLength(0);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("what a call uses is what was checked: each option is read once", async () => {
    const server = await rawServer((req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        req.url?.endsWith("create") === true
          ? JSON.stringify({
              code: "200",
              msg: "SUCCESS",
              trace_id: "2".repeat(32),
              data: apiRecord({ ...wire }),
            })
          : page([]),
      );
    });
    const wire = {
      webhook_id: 11,
      webhook_name: HOOK.webhookName,
      webhook_url: HOOK.webhookUrl,
      create_time: Date.now(),
    };
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN });
    const reads = { ourCreatorIds: 0, maxRetries: 0 };
    // A second read would see values no check allows.
    const options = Object.defineProperties(
      {},
      {
        ourCreatorIds: { enumerable: true, get: () => (reads.ourCreatorIds++ === 0 ? [1] : "12") },
        maxRetries: { enumerable: true, get: () => (reads.maxRetries++ === 0 ? 0 : Number.NaN) },
      },
    );
    try {
      const result = await client.create(HOOK, options);
      expect(result.record.webhookId).toBe(11);
      expect(reads).toEqual({ ourCreatorIds: 1, maxRetries: 1 });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
