import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookAuthError, WebhookRequestRefusedError, WebhooksClient } from "../../src/client";
import { EMULATOR_PROFILES, startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN, captureError } from "../support/helpers";

/**
 * The client against every plausible reading of the API document. Each profile gets the same
 * round trip: create, list with a name filter that other records partially match, page through
 * everything, and a refused token.
 */
// Not the profiles of random faults (flaky, behind-gateway): test/client/ambiguous-create.test.ts
// meets those one fault at a time.
const profiles = Object.keys(EMULATOR_PROFILES).filter(
  (name) => name !== "flaky" && name !== "behind-gateway",
);

describe.each(profiles)("client under emulator profile %s", (profile) => {
  let emulator: Emulator;
  let client: WebhooksClient;

  beforeAll(async () => {
    emulator = await startEmulator({ profile, accessToken: TOKEN });
    client = new WebhooksClient({
      baseUrl: emulator.url,
      accessToken: TOKEN,
      // A server that refuses a limit above its maximum needs a page size that fits it; one that
      // ignores limit (page-cap) gets the default, as any page larger than asked for is refused.
      pageSize: profile === "page-cap" ? 100 : 10,
      ascending: profile === "asc-desc" ? "asc" : "true",
      retryBaseDelayMs: 1,
    });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  it("creates an endpoint and gets the documented record back", async () => {
    const before = Date.now();
    const result = await client.create({
      webhookName: "orders",
      webhookUrl: "https://example.com/hooks/orders",
    });
    expect(result.recovered).toBe(false);
    expect(result.attempts).toBe(1);
    expect(result.traceId).toMatch(/^[0-9a-f]{32}$/);
    const record = result.record;
    expect(record).toMatchObject({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" });
    expect(record.operatorId).toBe(record.creatorId);
    expect(record.operateTime).toBe(record.createTime);
    expect(record.createTime).toBeGreaterThanOrEqual(before - 1000);
    expect(record.signSecret.length).toBeGreaterThan(16);
    expect(emulator.records().map((r) => r.webhook_id)).toContain(record.webhookId);
  });

  it("finds the exact record among names the filter may also match", async () => {
    // Each with its own URL: "Orders" at the URL of "orders" may be the same endpoint stored by a
    // service that folds case, so create refuses it (WebhookEndpointExistsError).
    // A service that stores names in lower case makes "Orders" the name "orders" itself.
    for (const name of profile === "rewriting-lowercase"
      ? ["orders-eu", "xorders"]
      : ["orders-eu", "xorders", "Orders"]) {
      // URLs that differ in more than case: a service may fold the case of a URL.
      await client.create({
        webhookName: name,
        webhookUrl: `https://example.com/hooks/${name.length}-${name}`,
      });
    }
    const { records } = await client.scan({ webhookName: "orders" });
    const exact = records.filter((r) => r.webhookName === "orders");
    expect(exact).toHaveLength(1);
    // Whatever the server's filter did, every returned record is a real stored one.
    const stored = new Map(emulator.records().map((r) => [r.webhook_id, r]));
    for (const record of records) expect(stored.get(record.webhookId)?.webhook_name).toBe(record.webhookName);
  });

  it("pages through every record exactly once, or says it cannot", async () => {
    for (let i = 0; i < 33; i++)
      emulator.addRecord({ webhook_name: `bulk-${i}`, webhook_url: `https://example.com/bulk/${i}` });
    const expected = emulator
      .records()
      .map((r) => r.webhook_id)
      .sort((a, b) => a - b);
    if (profile === "no-paging" || profile === "page-cap") {
      // No continuation and the cursor ignored: what one page holds is all a listing can show, and
      // no page larger than it was seen, so it cannot prove that nothing else exists.
      const shown = await client.scan({ limit: profile === "page-cap" ? 100 : 10 });
      expect(shown.end).toMatchObject({ complete: false });
      const ids = shown.records.map((r) => r.webhookId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.every((id) => expected.includes(id))).toBe(true);
      // A listing narrowed below a page the service was seen to send proves itself complete.
      const one = await client.scan({ webhookName: "bulk-3" });
      expect(one.end).toEqual({ complete: true });
      expect(one.records.map((r) => r.webhookName)).toEqual(["bulk-3"]);
      return;
    }
    const { records, pages } = await client.scan({ limit: 10 });
    const ids = records.map((r) => r.webhookId).sort((a, b) => a - b);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(expected.length / 10));
  });

  it("refuses a wrong token with an auth error that names the token's source, not the token", async () => {
    const wrong = new WebhooksClient({
      baseUrl: emulator.url,
      accessToken: "not-the-token",
      tokenSource: "stack config webhooks:accessToken",
      pageSize: 10,
      maxRetries: 0,
    });
    const error = await captureError(wrong.list({ ascending: profile === "asc-desc" ? "asc" : "true" }));
    await wrong.close();
    expect(error).toBeInstanceOf(WebhookAuthError);
    const auth = error as WebhookAuthError;
    expect(auth.code).toBe("WEBHOOK_AUTH_FAILED");
    expect(auth.message).toContain("stack config webhooks:accessToken");
    expect(auth.message).not.toContain("not-the-token");
    expect(auth.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(auth.status).toBe(profile === "errors-in-200" || profile === "strict" ? 200 : 401);
    expect(auth.serviceCode).toBeDefined();
  });

  if (profile === "unique-names" || profile === "strict") {
    it("surfaces the service's uniqueness refusal verbatim with its trace id", async () => {
      const error = await captureError(
        client.create({ webhookName: "orders", webhookUrl: "https://example.com/other" }),
      );
      expect(error).toBeInstanceOf(WebhookRequestRefusedError);
      const refused = error as WebhookRequestRefusedError;
      expect(refused.msg).toMatch(/already exists/);
      expect(refused.message).toContain(refused.traceId);
      expect(emulator.records().filter((r) => r.webhook_name === "orders")).toHaveLength(1);
    });
  }

  if (profile === "asc-desc" || profile === "strict-ascending") {
    it("reports a refused ascending value as the service's own error", async () => {
      const error = await captureError(client.list({ ascending: "sideways" }));
      expect(error).toBeInstanceOf(WebhookRequestRefusedError);
      expect((error as WebhookRequestRefusedError).msg).toMatch(/ascending/);
    });
  }
});
