import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "undici";
import {
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookInvalidResponseError,
  WebhooksClient,
} from "../../src/client";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN, apiRecord, captureError, rawServer } from "../support/helpers";

/**
 * The create promise against other actors (docs/client.md, "Create and the settle rules"): settle
 * only on an endpoint that did not exist before the attempt, never on someone else's; an endpoint
 * with exactly the declared name and URL that already exists is neither taken nor duplicated.
 */
// No test here needs a request to time out: a timeout of seconds keeps a busy machine from making one
// (which would change the attempts counted).
const FAST = { retryBaseDelayMs: 2, maxRetryAfterMs: 20, timeoutMs: 5000, createSettleMs: 400 } as const;

describe("create never takes or duplicates an endpoint that existed before it began", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, ...FAST });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  it("refuses, naming it, when an endpoint with this name and URL exists; nothing is sent", async () => {
    const handMade = emulator.addRecord({
      webhook_name: "payments",
      webhook_url: "https://hooks.example.com/payments",
    });
    const creates = emulator.counters().create;
    const error = await captureError(
      client.create({ webhookName: "payments", webhookUrl: "https://hooks.example.com/payments" }),
    );
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as WebhookEndpointExistsError).existingIds).toEqual([handMade.webhook_id]);
    expect((error as Error).message).toContain(`id ${handMade.webhook_id}`);
    expect(emulator.counters().create).toBe(creates);
    expect(emulator.records().filter((r) => r.webhook_name === "payments")).toHaveLength(1);
  });

  it("counts another form of the same URL as the same endpoint", async () => {
    emulator.addRecord({ webhook_name: "forms", webhook_url: "https://example.com/forms/" });
    const error = await captureError(
      client.create({ webhookName: "forms", webhookUrl: "HTTPS://Example.COM:443/forms" }),
    );
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
  });

  it("after a 500 that processed nothing, does not settle on the endpoint that existed before (allowDuplicate)", async () => {
    const handMade = emulator.addRecord({
      webhook_name: "ledger",
      webhook_url: "https://hooks.example.com/ledger",
    });
    emulator.injectNext("create", "server-error");
    const result = await client.create(
      { webhookName: "ledger", webhookUrl: "https://hooks.example.com/ledger" },
      { allowDuplicate: true },
    );
    expect(result.record.webhookId).not.toBe(handMade.webhook_id);
    expect(result.recovered).toBe(false);
    expect(result.attempts).toBe(2);
    expect(
      emulator
        .records()
        .filter((r) => r.webhook_name === "ledger")
        .map((r) => r.webhook_id),
    ).toEqual([handMade.webhook_id, result.record.webhookId]);
  });

  it("an uncertain create names the candidates, and a second create refuses instead of duplicating", async () => {
    emulator.injectNext("create", "drop-after-commit");
    // The listing before the create answers; the two attempts of the settling listing fail.
    emulator.injectNext("list", "server-error", 2, { after: 1 });
    const error = await captureError(
      client.create({ webhookName: "orphan", webhookUrl: "https://example.com/orphan" }, { maxRetries: 1 }),
    );
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    expect((error as Error).message).toMatch(/may exist/);
    const [orphan] = emulator.records().filter((r) => r.webhook_name === "orphan");
    expect(orphan).toBeDefined();
    const again = await captureError(
      client.create({ webhookName: "orphan", webhookUrl: "https://example.com/orphan" }),
    );
    expect(again).toBeInstanceOf(WebhookEndpointExistsError);
    expect((again as WebhookEndpointExistsError).existingIds).toEqual([orphan!.webhook_id]);
  });

  it("concurrent creates of one name and URL through one client make one endpoint", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        client.create({ webhookName: "burst", webhookUrl: "https://example.com/burst" }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(WebhookEndpointExistsError);
    expect(emulator.records().filter((r) => r.webhook_name === "burst")).toHaveLength(1);
  });

  it("concurrent creates of addresses a service may hold as one endpoint make one endpoint", async () => {
    // One after another, the second is refused as existing (a trailing slash, the default port and
    // the host's case are forms of one URL); at once, neither may list before the other is made.
    const forms = [
      "https://example.com/burst-2",
      "https://example.com/burst-2/",
      "https://EXAMPLE.com:443/burst-2",
    ];
    const results = await Promise.allSettled(
      forms.map((webhookUrl) => client.create({ webhookName: "burst-2", webhookUrl })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(WebhookEndpointExistsError);
    expect(emulator.records().filter((r) => r.webhook_name === "burst-2")).toHaveLength(1);
  });
});

describe("list filters mean exact matches unless the service's own matching is asked for", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN, profile: "partial-filters" });
    client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, ...FAST });
    for (const name of ["orders-1", "orders-10", "orders-11", "xorders-1"])
      emulator.addRecord({ webhook_name: name, webhook_url: `https://example.com/${name}` });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  it("list, listAll and scan yield only orders-1 for the name orders-1", async () => {
    expect((await client.list({ webhookName: "orders-1" })).records.map((r) => r.webhookName)).toEqual([
      "orders-1",
    ]);
    const pages: string[] = [];
    for await (const page of client.listAll({ webhookName: "orders-1" }))
      pages.push(...page.records.map((r) => r.webhookName));
    expect(pages).toEqual(["orders-1"]);
    expect((await client.scan({ webhookName: "orders-1" })).records.map((r) => r.webhookName)).toEqual([
      "orders-1",
    ]);
    expect(
      (await client.scan({ webhookUrl: "https://example.com/orders-1" })).records.map((r) => r.webhookName),
    ).toEqual(["orders-1"]);
  });

  it('match: "service" gives whatever the service\'s filter returns', async () => {
    const names = (await client.scan({ webhookName: "orders-1", match: "service" })).records
      .map((r) => r.webhookName)
      .sort();
    expect(names).toEqual(["orders-1", "orders-10", "orders-11", "xorders-1"]);
  });
});

describe("the 8 MB response cap holds through a caller's own dispatcher", () => {
  it("a 9 MB list answer through an Agent without maxResponseSize is an invalid response, not 9 MB in memory", async () => {
    const record = apiRecord({
      webhook_name: "orders",
      webhook_url: "https://example.com/hooks/orders",
      sign_secret: "s",
    });
    const body = JSON.stringify({
      code: "200",
      msg: "SUCCESS",
      trace_id: "",
      data: { data: [record] },
      padding: "p".repeat(9_000_000),
    });
    const server = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    const dispatcher = new Agent();
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      allowInsecureHttp: true,
      dispatcher,
      maxRetries: 0,
    });
    try {
      const error = await captureError(client.list({ webhookName: "orders" }));
      expect(error).toBeInstanceOf(WebhookInvalidResponseError);
      expect((error as Error).message).toMatch(/larger than 8 MB/);
      // docs/client.md, Errors: `operation` says which call failed, `status` what the service said.
      expect(error).toMatchObject({ operation: "list", status: 200 });
    } finally {
      await client.close();
      await dispatcher.close();
      await server.close();
    }
  });
});
