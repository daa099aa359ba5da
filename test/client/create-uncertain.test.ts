// A create whose outcome is not known, and what it leaves for the creates after it (docs/client.md,
// "Create and the settle rules"): a later create of the same address through the client never runs
// as if the earlier one made nothing, what the create's listings saw stays redacted and named, and
// its listings are bounded as a whole. Real servers on loopback.
import { describe, expect, it } from "vitest";
import {
  WebhookAbortError,
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookServerError,
  WebhookTimeoutError,
  WebhooksClient,
} from "../../src/client";
import { TOKEN, apiRecord, captureError, everythingVisible, rawServer, waitUntil } from "../support/helpers";

const HOOK = { webhookName: "orders", webhookUrl: "https://example.com/orders" };
const ok = (data: unknown) => JSON.stringify({ code: "200", msg: "SUCCESS", trace_id: "t", data });
const listed = (records: unknown[]) => ok({ data: records });

/**
 * A service that stores what it is asked to create, committing each create `commitAfter` calls
 * later (the endpoint appears in listings only then) and answering the first create as `first`
 * says: a gateway's 502 page, or never (the caller cancels).
 */
async function lateCommitting(first: "502" | "hold") {
  const stored: ReturnType<typeof apiRecord>[] = [];
  const pending: ReturnType<typeof apiRecord>[] = [];
  const server = await rawServer((req, body, res) => {
    if (!req.url?.endsWith("create")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(listed(stored));
      return;
    }
    const { webhook_name, webhook_url } = JSON.parse(body) as { webhook_name: string; webhook_url: string };
    const record = apiRecord({ webhook_id: 100 + stored.length + pending.length, webhook_name, webhook_url });
    pending.push(record);
    if (pending.length + stored.length === 1) {
      if (first === "502") {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<html>bad gateway</html>");
      }
      return; // "hold": never answered
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(ok(record));
  });
  return { server, stored, commit: () => stored.push(...pending.splice(0)) };
}

describe("a create queued behind one whose outcome is unknown", () => {
  it("is not sent after a gateway's 502 that the service committed later; it says why", async () => {
    const { server, stored, commit } = await lateCommitting("502");
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      createSettleMs: 300,
      maxRetries: 0,
    });
    try {
      const first = captureError(client.create(HOOK));
      const second = captureError(client.create(HOOK));
      // One cancelled while it waits passes on what it waited for: the next is not sent either.
      const cancel = new AbortController();
      const cancelled = captureError(client.create(HOOK, { signal: cancel.signal }));
      const third = captureError(client.create(HOOK));
      cancel.abort();
      expect(await cancelled).toBeInstanceOf(WebhookAbortError);
      expect(await first).toBeInstanceOf(WebhookCreateUncertainError);
      for (const error of [await second, await third]) {
        expect(error).toBeInstanceOf(WebhookCreateUncertainError);
        expect((error as Error).message).toMatch(/was not sent: an earlier create of this name and URL/);
      }
      // Nor is one called later, once the queue is empty, in any form of the address: the client
      // remembers, even with allowDuplicate.
      for (const webhookUrl of [HOOK.webhookUrl, "https://EXAMPLE.com.:443/orders/"])
        expect(
          await captureError(client.create({ ...HOOK, webhookUrl }, { allowDuplicate: true })),
          webhookUrl,
        ).toBeInstanceOf(WebhookCreateUncertainError);
      // Once the endpoint shows, the earlier create's outcome is visible: with allowDuplicate, a
      // second one is made, as asked; without, it is refused as existing.
      commit();
      expect((await client.create(HOOK, { allowDuplicate: true })).record.webhookName).toBe(HOOK.webhookName);
      commit();
      expect(stored).toHaveLength(2);
      expect(await captureError(client.create(HOOK))).toBeInstanceOf(WebhookEndpointExistsError);
      // The first, and the one allowDuplicate asked for: none of those the memory refused.
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(2);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("is not sent when the create before it was cancelled once sent; one cancelled before it was sent leaves nothing", async () => {
    const { server } = await lateCommitting("hold");
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const cancel = new AbortController();
      const first = captureError(client.create(HOOK, { signal: cancel.signal }));
      const second = captureError(client.create(HOOK));
      await waitUntil("the first create was sent", () =>
        server.requests.some((r) => r.path.endsWith("create")),
      );
      cancel.abort();
      expect(await first).toBeInstanceOf(WebhookAbortError);
      const error = await second;
      expect(error).toBeInstanceOf(WebhookCreateUncertainError);
      expect((error as Error).message).toMatch(/an earlier create .* may have made the endpoint/);
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(1);
      // A create cancelled before it was sent (the listing before it was refused) made nothing:
      // the next create of the address is sent.
      const other = { webhookName: "billing", webhookUrl: "https://example.com/billing" };
      expect(await captureError(client.create(other, { signal: AbortSignal.abort() }))).toBeInstanceOf(
        WebhookAbortError,
      );
      expect((await client.create(other)).record.webhookName).toBe("billing");
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("what a create's listings saw", () => {
  it("a signing secret one listing returned is redacted from a later listing's error", async () => {
    const secret = "whsec_seenByTheFirstListingOnly";
    const server = await rawServer((req, body, res) => {
      const { webhook_name } = JSON.parse(body) as { webhook_name: string };
      res.writeHead(req.url?.endsWith("create") ? 500 : webhook_name === "Orders" ? 200 : 500, {
        "content-type": "application/json",
      });
      // The declared form lists someone else's endpoint; the lower-case form fails, quoting its secret.
      res.end(
        webhook_name === "Orders"
          ? listed([
              apiRecord({
                webhook_id: 9,
                webhook_name: "Orders",
                webhook_url: "https://x.example/",
                sign_secret: secret,
              }),
            ])
          : JSON.stringify({ code: "500", msg: `cannot re-sign ${secret}`, trace_id: "t", data: null }),
      );
    });
    const client = new WebhooksClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const error = await captureError(client.create({ webhookName: "Orders", webhookUrl: HOOK.webhookUrl }));
      expect(error).toBeInstanceOf(WebhookServerError);
      expect(everythingVisible(error)).not.toContain(secret);
      expect((error as Error).message).toContain("[REDACTED]");
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a signing secret the settling's listing returned is redacted from the create's own failure, quoted before it", async () => {
    // The service commits, then answers 500 quoting the new endpoint's secret; the settling lists it.
    const secret = "whsec_quotedBeforeItWasListed";
    const record = apiRecord({
      webhook_id: 5,
      ...{ webhook_name: HOOK.webhookName, webhook_url: HOOK.webhookUrl },
      sign_secret: secret,
      create_time: Date.now(),
    });
    let created = false;
    const server = await rawServer((req, _body, res) => {
      res.writeHead(req.url?.endsWith("create") ? 500 : 200, { "content-type": "application/json" });
      if (req.url?.endsWith("create")) {
        created = true;
        res.end(
          JSON.stringify({
            code: "500",
            msg: `rollback of ${secret} failed`,
            trace_id: "0123456789abcdef0123456789abcdef",
            data: null,
          }),
        );
      } else res.end(listed(created ? [{ ...record, create_time: Date.now() }] : []));
    });
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      createSettleMs: 0,
      maxRetries: 0,
    });
    try {
      const error = await captureError(client.create(HOOK));
      expect(error).toBeInstanceOf(WebhookCreateUncertainError);
      expect((error as WebhookCreateUncertainError).candidateIds).toEqual([5]);
      expect(everythingVisible(error)).not.toContain(secret);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a settling whose listing fails after a page showed a new endpoint names it", async () => {
    // The first settling listing shows the endpoint on its first page and fails on its second.
    let settleLists = 0;
    const server = await rawServer((req, _body, res) => {
      const create = req.url?.endsWith("create") === true;
      const created = server.requests.some((r) => r.path.endsWith("create"));
      if (create) {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<html>bad gateway</html>");
        return;
      }
      if (!created) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(listed([]));
        return;
      }
      settleLists++;
      const candidate = apiRecord({
        webhook_id: 77,
        ...{ webhook_name: HOOK.webhookName, webhook_url: HOOK.webhookUrl },
        create_time: Date.now(),
      });
      res.writeHead(settleLists === 1 ? 200 : 503, { "content-type": "application/json" });
      res.end(
        settleLists === 1
          ? ok({ data: [candidate], has_more: true })
          : JSON.stringify({ code: "503", msg: "unavailable", trace_id: "t", data: null }),
      );
    });
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      createSettleMs: 600_000,
      maxRetries: 0,
    });
    try {
      const error = await captureError(client.create(HOOK));
      expect(error).toBeInstanceOf(WebhookCreateUncertainError);
      expect((error as WebhookCreateUncertainError).candidateIds).toEqual([77]);
      expect((error as Error).message).toMatch(/listing to check whether it was created failed/);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("a create's listings are bounded as a whole", () => {
  /**
   * A service that asks each listing, by its body, to retry later twice before it answers (about
   * 0.8 s a listing with the client below); creates answer 502.
   */
  async function slowToList() {
    const asked = new Map<string, number>();
    const server = await rawServer((req, body, res) => {
      if (req.url?.endsWith("create")) {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<html>bad gateway</html>");
        return;
      }
      const times = (asked.get(body) ?? 0) + 1;
      asked.set(body, times);
      if (times % 3 !== 0) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "20" });
        res.end(JSON.stringify({ code: "429", msg: "slow down", trace_id: "t", data: null }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(listed([]));
    });
    const client = new WebhooksClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      timeoutMs: 1_000,
      createListTimeoutMs: 1_500,
      retryBaseDelayMs: 1,
      maxRetryAfterMs: 400,
      maxRetries: 10,
      createSettleMs: 300,
    });
    return { server, client };
  }

  it("before the create: every form of the name together, though each alone takes less than the bound", async () => {
    const { server, client } = await slowToList();
    try {
      // Three forms of the name (" Orders ", "Orders", "orders"), each listed in about 0.8 s.
      const error = await captureError(
        client.create({ webhookName: " Orders ", webhookUrl: HOOK.webhookUrl }),
      );
      expect(error).toBeInstanceOf(WebhookTimeoutError);
      expect(error).toMatchObject({ operation: "list" });
      expect((error as Error).message).toMatch(/took longer than 1.5 s in all .* the create was not sent/);
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(0);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("while settling: the window and the bound beyond it, then the create is uncertain", async () => {
    const { server, client } = await slowToList();
    try {
      const error = await captureError(client.create(HOOK));
      expect(server.requests.filter((r) => r.path.endsWith("create"))).toHaveLength(1);
      expect(error).toBeInstanceOf(WebhookCreateUncertainError);
      expect((error as Error).message).toMatch(
        /took longer than 1.8 s in all .* the endpoint may have been created/,
      );
    } finally {
      await client.close();
      await server.close();
    }
  });
});
