import { afterEach, describe, expect, it } from "vitest";
import { WebhookCreateUncertainError, WebhookEndpointExistsError, WebhooksClient } from "../../src/client";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN, apiRecord, captureError } from "../support/helpers";
import { TRACE, scriptedService as service, type Stored } from "../support/scripted-service";

/** Alice's endpoint, made an hour before the attempt by another principal. */
const aliceRecord = (name: string, url: string): Stored =>
  apiRecord({
    webhook_id: 1000,
    webhook_name: name,
    webhook_url: url,
    sign_secret: "whsec_alice",
    creator_id: 99,
    creator_name: "alice",
    create_time: Date.now() - 3_600_000,
  });

// Services built from the API document's unknowns, each reading one of them otherwise than our
// emulator does. Expected results come from docs/client.md, "Create and the settle rules" (settle
// only on an endpoint that did not exist before the attempt; never take someone else's), and
// docs/lifecycle.md, "Stored forms" (whatever the service rewrites, repeated runs never create a
// second endpoint for one resource).

// No test here needs a request to time out: a timeout of seconds keeps a busy machine from making one.
const FAST = {
  retryBaseDelayMs: 2,
  maxRetryAfterMs: 20,
  timeoutMs: 5000,
  createSettleMs: 300,
  allowInsecureHttp: true,
} as const;
const clients: WebhooksClient[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const close of closers.splice(0)) await close();
});

function clientFor(url: string): WebhooksClient {
  const client = new WebhooksClient({ baseUrl: url, accessToken: TOKEN, ...FAST });
  clients.push(client);
  return client;
}

describe("a service that answers a create with an endpoint it already holds (names unique on its side)", () => {
  it("is refused, naming that endpoint; its secret is not handed over", async () => {
    const alice: Stored = aliceRecord("orders", "https://alice.example.net/her-hook");
    const upsert = await service({
      records: [alice],
      onCreate: (body, records) => {
        const same = records.find((r) => r.webhook_name === body.webhook_name);
        return same === undefined
          ? undefined
          : { status: 200, body: { code: "200", msg: "SUCCESS", trace_id: TRACE, data: same } };
      },
    });
    closers.push(() => upsert.close());
    const error = await captureError(
      clientFor(upsert.url).create({ webhookName: "orders", webhookUrl: "https://example.com/our-hook" }),
    );
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as WebhookEndpointExistsError).existingIds).toEqual([1000]);
    expect(String((error as Error).message)).not.toContain("whsec_alice");
  });

  it("is refused when the endpoint is another name and URL made before the attempt (URLs unique on its side)", async () => {
    const alice: Stored = aliceRecord("payments", "https://example.com/our-hook");
    const upsert = await service({
      records: [alice],
      onCreate: (body, records) => {
        const same = records.find((r) => r.webhook_url === body.webhook_url);
        return same === undefined
          ? undefined
          : { status: 200, body: { code: "200", msg: "SUCCESS", trace_id: TRACE, data: same } };
      },
    });
    closers.push(() => upsert.close());
    const error = await captureError(
      clientFor(upsert.url).create({ webhookName: "orders", webhookUrl: "https://example.com/our-hook" }),
    );
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as WebhookEndpointExistsError).existingIds).toEqual([1000]);
  });
});

describe("a service that reports errors inside HTTP 200", () => {
  let emulator: Emulator;
  afterEach(async () => emulator?.close());

  it("a failed create while a person creates the same name and URL names their endpoint, never takes it", async () => {
    emulator = await startEmulator({
      accessToken: TOKEN,
      profile: "errors-in-200",
      principals: [{ token: "alice-token", creator: { id: 99, name: "alice" } }],
    });
    emulator.injectNext("create", "server-error", 1);
    const params = { webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" };
    const alice = clientFor(emulator.url);
    const person = new WebhooksClient({
      baseUrl: emulator.url,
      accessToken: "alice-token",
      allowInsecureHttp: true,
    });
    clients.push(person);
    const acting = (async () => {
      while (!emulator.requests().some((r) => r.route === "create"))
        await new Promise((r) => setTimeout(r, 2));
      await person.create(params);
    })();
    const error = await captureError(alice.create(params));
    await acting;
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    const theirs = emulator.records().find((r) => r.creator_id === 99)!;
    expect((error as WebhookCreateUncertainError).candidateIds).toEqual([theirs.webhook_id]);
    expect(emulator.records()).toHaveLength(1);
  });

  it("an HTTP 200 body that cannot be read is no proof the create was processed either", async () => {
    let created = false;
    const odd = await service({
      onCreate: (body, records) => {
        if (created) return undefined;
        created = true;
        // Someone else's endpoint appears at that moment; ours was never made.
        const now = Date.now();
        records.push({
          webhook_id: 5,
          webhook_name: body.webhook_name,
          webhook_url: body.webhook_url,
          sign_secret: "whsec_person",
          creator_id: 99,
          creator_name: "alice",
          create_time: now,
          operator_id: 99,
          operator_name: "alice",
          operate_time: now,
        });
        return { status: 200, body: "<html>gateway</html>" };
      },
    });
    closers.push(() => odd.close());
    const error = await captureError(
      clientFor(odd.url).create({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" }),
    );
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    expect((error as WebhookCreateUncertainError).candidateIds).toEqual([5]);
  });
});

describe("a service that rewrites what it stores and filters by the stored form", () => {
  it.each([
    [
      "lower-cases names",
      (name: string, url: string) => ({ name: name.toLowerCase(), url }),
      { webhookName: "Orders", webhookUrl: "https://example.com/hooks/orders" },
    ],
    [
      "percent-decodes unreserved characters",
      (name: string, url: string) => ({ name, url: url.replace(/%7E/gi, "~") }),
      { webhookName: "orders", webhookUrl: "https://example.com/%7Eteam/hook" },
    ],
    [
      "lower-cases URLs and adds a trailing slash",
      (name: string, url: string) => ({ name, url: `${url.toLowerCase()}/` }),
      { webhookName: "orders", webhookUrl: "https://Example.com/Hooks/Orders" },
    ],
  ])(
    "%s: a second create of the same endpoint is refused, not a second endpoint",
    async (_what, store, params) => {
      const rewriting = await service({ store });
      closers.push(() => rewriting.close());
      const client = clientFor(rewriting.url);
      await client.create(params);
      const error = await captureError(client.create(params));
      expect(error).toBeInstanceOf(WebhookEndpointExistsError);
      expect(rewriting.records).toHaveLength(1);
    },
  );

  it("a lost answer to a create the service committed in another form is found, not sent again", async () => {
    let drop = true;
    const store = (name: string, url: string) => ({ name: name.toLowerCase(), url: `${url}/` });
    const lossy = await service({
      store,
      onCreate: (body, records) => {
        if (!drop) return undefined;
        drop = false;
        const now = Date.now();
        const stored = store(body.webhook_name, body.webhook_url);
        records.push({
          webhook_id: 42,
          webhook_name: stored.name,
          webhook_url: stored.url,
          sign_secret: "whsec_ours",
          creator_id: 7,
          creator_name: "pipeline",
          create_time: now,
          operator_id: 7,
          operator_name: "pipeline",
          operate_time: now,
        });
        return { status: 500, body: { code: "500", msg: "internal", trace_id: TRACE } };
      },
    });
    closers.push(() => lossy.close());
    const error = await captureError(
      clientFor(lossy.url).create({ webhookName: "Orders", webhookUrl: "https://example.com/hooks/orders" }),
    );
    // Found (whether taken or named depends on what is known of our principal), never created twice.
    expect(error === undefined || error instanceof WebhookCreateUncertainError).toBe(true);
    expect(lossy.records).toHaveLength(1);
  });
});
