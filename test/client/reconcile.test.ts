import { afterEach, describe, expect, it } from "vitest";
import {
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhookInvalidResponseError,
  WebhookServerError,
  WebhooksClient,
} from "../../src/client";
import { serviceProcessed } from "../../src/client/reconcile";
import { TOKEN, captureError } from "../support/helpers";
import { TRACE, scriptedService, type Stored } from "../support/scripted-service";

// Create reconciliation against services written here from the API document (filters compare the
// stored value exactly; every request is recorded). The expectations come from docs/client.md, "Create
// and the settle rules": one listing by name before a create; an endpoint that may be the requested one and
// already exists is named and never taken or duplicated; after an ambiguous answer, settle only on
// an endpoint that did not exist before the attempt, and only when it cannot be someone else's.

// No test here needs a request to time out: a timeout of seconds keeps a busy machine from making one.
const FAST = {
  retryBaseDelayMs: 2,
  maxRetryAfterMs: 20,
  timeoutMs: 5000,
  createSettleMs: 300,
  allowInsecureHttp: true,
} as const;
const HOUR = 3_600_000;
const ORDERS = { webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" } as const;

const clients: WebhooksClient[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const close of closers.splice(0)) await close();
});

async function serviceFor(options: Parameters<typeof scriptedService>[0]) {
  const service = await scriptedService(options);
  closers.push(() => service.close());
  return service;
}

function clientFor(
  url: string,
  settings: Partial<{ createSettleMs: number; clockSkewMs: number }> = {},
): WebhooksClient {
  const client = new WebhooksClient({ baseUrl: url, accessToken: TOKEN, ...FAST, ...settings });
  clients.push(client);
  return client;
}

function record(id: number, fields: Partial<Stored> = {}): Stored {
  const time = Date.now() - HOUR;
  return {
    webhook_id: id,
    webhook_name: ORDERS.webhookName,
    webhook_url: ORDERS.webhookUrl,
    sign_secret: `whsec_someone_${id}`,
    creator_id: 99,
    creator_name: "alice",
    create_time: time,
    operator_id: 99,
    operator_name: "alice",
    operate_time: time,
    ...fields,
  };
}

/**
 * A service that stores names in upper case and filters by the stored form: a listing by a lower-case name
 * finds nothing.
 */
const UPPER = (name: string, url: string) => ({ name: name.toUpperCase(), url });

/**
 * A client whose principal is known: it created an endpoint on this service (docs/client.md: settle only on
 * our own).
 */
async function clientWithKnownPrincipal(url: string): Promise<WebhooksClient> {
  const client = clientFor(url);
  await client.create({ webhookName: "warm-up", webhookUrl: "https://example.com/warm-up" });
  return client;
}

const serverError = { status: 500, body: { code: "500", msg: "internal error", trace_id: TRACE } };

describe("before a create", () => {
  it("one listing, by the declared name and nothing else, then one create", async () => {
    const service = await serviceFor({});
    const result = await clientFor(service.url).create(ORDERS);
    expect(result.record.webhookName).toBe("orders");
    const listings = service.listings();
    expect(listings).toHaveLength(1);
    expect(listings[0]!.webhook_name).toBe("orders");
    expect(listings[0]!.webhook_url ?? "").toBe("");
    expect(service.creates()).toBe(1);
  });

  it("an endpoint with the declared name and another URL does not stop the create", async () => {
    const service = await serviceFor({
      records: [record(1, { webhook_url: "https://example.com/hooks/other" })],
    });
    const result = await clientFor(service.url).create(ORDERS);
    expect(result.record.webhookId).not.toBe(1);
    expect(service.records).toHaveLength(2);
  });

  it("twelve existing endpoints with that name and URL: refused, naming all twelve ids, the first ten described", async () => {
    const existing = Array.from({ length: 12 }, (_, i) =>
      record(101 + i, { create_time: Date.UTC(2026, 0, 1 + i), creator_name: `person-${i}` }),
    );
    // One stored in another form a service may have rewritten it to.
    existing[1] = { ...existing[1]!, webhook_url: "https://example.com/Hooks/Orders" };
    const service = await serviceFor({ records: existing });
    const error = await captureError(clientFor(service.url).create(ORDERS));
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as WebhookEndpointExistsError).existingIds).toEqual(existing.map((r) => r.webhook_id));
    const message = (error as Error).message;
    expect(message).toMatch(/already exists/);
    expect(message).toMatch(/nothing was created/);
    expect(message).toContain('id 101, created 2026-01-01T00:00:00.000Z by "person-0"');
    expect(message).toContain('id 110, created 2026-01-10T00:00:00.000Z by "person-9"');
    expect(message).toContain("stored as name");
    expect(message).toContain("https://example.com/Hooks/Orders");
    expect(message).not.toContain("id 111");
    expect(message).not.toContain("id 112");
    expect(message).toContain("and 2 more");
    // Entries are separated by "; ", and one stored as declared carries nothing more.
    expect(message).toContain('by "person-2"; id 104, created');
    expect((error as WebhookEndpointExistsError).operation).toBe("create");
    expect(message).not.toContain("whsec_");
    expect(service.creates()).toBe(0);
  });

  it("three existing endpoints are all described, with no count of more", async () => {
    const service = await serviceFor({ records: [record(1), record(2), record(3)] });
    const message = String(((await captureError(clientFor(service.url).create(ORDERS))) as Error).message);
    expect(message).toMatch(/id 1, .*id 2, .*id 3, /);
    expect(message).not.toMatch(/more\)/);
    expect(message).not.toContain("stored as");
  });

  it("a creation time at the edge of what a date can hold is shown, one past it is not", async () => {
    const service = await serviceFor({
      records: [
        record(1, { create_time: 8.64e15 }),
        record(2, { create_time: 8.64e15 + 1 }),
        record(3, { create_time: -8.64e15 }),
      ],
    });
    const message = String(((await captureError(clientFor(service.url).create(ORDERS))) as Error).message);
    expect(message).toContain("id 1, created +275760-09-13T00:00:00.000Z");
    expect(message).toContain("id 2, created at an unknown time");
    expect(message).toContain("id 3, created -271821-04-20T00:00:00.000Z");
  });
});

describe("after an ambiguous create", () => {
  it("lists by name, then by URL when the name finds nothing, and polls for the whole settle window without hammering", async () => {
    // Every create fails having processed nothing.
    const service = await serviceFor({ onCreate: () => serverError });
    const started = Date.now();
    const error = await captureError(
      clientFor(service.url, { createSettleMs: 1000 }).create(ORDERS, { maxRetries: 0 }),
    );
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(WebhookServerError);
    const listings = service.listings();
    // The snapshot, then per round one listing by name and, since it finds nothing, the listings
    // by URL in each form a service may store it under (as declared and with a trailing slash).
    expect(listings[0]).toEqual(expect.objectContaining({ webhook_name: "orders" }));
    const byName = listings
      .slice(1)
      .filter((l) => l.webhook_name === "orders" && (l.webhook_url ?? "") === "");
    const byUrl = listings.slice(1).filter((l) => (l.webhook_name ?? "") === "" && l.webhook_url !== "");
    expect(byName.length + byUrl.length).toBe(listings.length - 1);
    expect(byUrl.map((l) => l.webhook_url)).toEqual(
      byName.flatMap(() => [ORDERS.webhookUrl, `${ORDERS.webhookUrl}/`]),
    );
    // Polled across the window (a late commit is still found) with growing pauses: a few rounds, not hundreds.
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(byName.length).toBeGreaterThanOrEqual(3);
    expect(byName.length).toBeLessThanOrEqual(6);
    // Not long past the window (the count above is what shows no hammering; a bound of seconds, which
    // a busy machine's slower listings stay well inside).
    expect(elapsed).toBeLessThan(10_000);
  });

  it("a single endpoint that appeared is named with the failure's trace id, not taken, when the answer did not say the request was processed", async () => {
    const service = await serviceFor({ afterStore: () => serverError });
    const error = await captureError(clientFor(service.url).create(ORDERS));
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    const uncertain = error as WebhookCreateUncertainError;
    expect(uncertain.candidateIds).toEqual([service.records[0]!.webhook_id]);
    expect(uncertain.traceId).toBe(TRACE);
    expect(uncertain.operation).toBe("create");
    expect(uncertain.message).toContain(`id ${service.records[0]!.webhook_id}`);
    expect(uncertain.message).toMatch(/not taken/);
    expect(uncertain.message).toMatch(/Nothing will be created again/);
    expect(uncertain.message).not.toContain(service.records[0]!.sign_secret);
    expect(service.creates()).toBe(1);
  });

  it("two endpoints that appeared are both named, neither taken", async () => {
    const service = await serviceFor({
      afterStore: (ours) => {
        // A person creates the same name and URL at that moment.
        service.records.push(record(5, { create_time: ours.create_time, sign_secret: "whsec_person" }));
        return serverError;
      },
    });
    const error = await captureError(clientFor(service.url).create(ORDERS));
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    expect([...(error as WebhookCreateUncertainError).candidateIds].sort()).toEqual(
      [5, service.records[0]!.webhook_id].sort(),
    );
    expect((error as Error).message).toContain(
      "2 endpoints with that name and URL were created since the attempt began",
    );
    expect((error as WebhookCreateUncertainError).operation).toBe("create");
    expect((error as WebhookCreateUncertainError).traceId).toBe(TRACE);
    expect(service.creates()).toBe(1);
  });

  it("an endpoint of our own principal made before the attempt, found only by URL, is not taken for this create", async () => {
    // The service stores names in upper case and filters by the stored form: the listing by the
    // declared name finds nothing, the listing by URL finds the old endpoint.
    let fail = false;
    const service = await serviceFor({
      store: UPPER,
      records: [
        record(1, {
          webhook_name: "ORDERS",
          creator_id: 7,
          creator_name: "pipeline",
          sign_secret: "whsec_old",
        }),
      ],
      onCreate: () => {
        if (!fail) return undefined;
        fail = false;
        return serverError;
      },
    });
    const client = await clientWithKnownPrincipal(service.url);
    fail = true;
    const result = await client.create(ORDERS);
    expect(result.record.webhookId).not.toBe(1);
    expect(result.record.signSecret).not.toBe("whsec_old");
    expect(result.attempts).toBe(2);
    expect(result.recovered).toBe(false);
  });

  it("our own endpoint found only by URL after a lost answer is taken, once", async () => {
    let lose = false;
    const service = await serviceFor({ store: UPPER, afterStore: () => (lose ? serverError : undefined) });
    const client = await clientWithKnownPrincipal(service.url);
    lose = true;
    const result = await client.create(ORDERS);
    expect(result.recovered).toBe(true);
    expect(service.records.filter((r) => r.webhook_name === "ORDERS")).toHaveLength(1);
    expect(result.record.webhookId).toBe(service.records.at(-1)!.webhook_id);
  });

  it("on a service whose clock runs an hour behind, our endpoint found by name after a lost answer is taken, not created twice", async () => {
    let lose = false;
    const service = await serviceFor({
      now: () => Date.now() - HOUR,
      afterStore: () => (lose ? serverError : undefined),
    });
    const client = await clientWithKnownPrincipal(service.url);
    lose = true;
    const result = await client.create(ORDERS);
    expect(result.recovered).toBe(true);
    expect(service.records.filter((r) => r.webhook_name === "orders")).toHaveLength(1);
    expect(service.creates()).toBe(2);
  });
});

describe("after an ambiguous create, with our principal known", () => {
  it("an endpoint another principal made at that moment is neither taken nor named as ours, and no retry is sent beside it", async () => {
    let person = false;
    const service = await serviceFor({
      onCreate: (body, records) => {
        if (!person) return undefined;
        person = false;
        records.push(
          record(5, {
            webhook_name: body.webhook_name,
            webhook_url: body.webhook_url,
            create_time: Date.now(),
            sign_secret: "whsec_person",
          }),
        );
        return serverError;
      },
    });
    const client = await clientWithKnownPrincipal(service.url);
    const createsBefore = service.creates();
    person = true;
    // docs/client.md: "A retry is a create like the first": the endpoint there now refuses it.
    const error = await captureError(client.create(ORDERS));
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as WebhookEndpointExistsError).existingIds).toEqual([5]);
    expect((error as Error).message).not.toContain("whsec_person");
    expect(service.creates() - createsBefore).toBe(1);
  });

  it("when the listing that would settle it fails, the error says so, with the create's status, trace id and cause", async () => {
    let listings = 0;
    const service = await serviceFor({
      afterStore: () => serverError,
      onList: () =>
        ++listings > 1
          ? { status: 500, body: { code: "500", msg: "list down", trace_id: "f".repeat(32) } }
          : undefined,
    });
    const error = await captureError(clientFor(service.url).create(ORDERS, { maxRetries: 0 }));
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    const uncertain = error as WebhookCreateUncertainError;
    expect(uncertain.operation).toBe("create");
    expect(uncertain.status).toBe(500);
    expect(uncertain.traceId).toBe(TRACE);
    expect(uncertain.cause).toBeInstanceOf(WebhookServerError);
    expect(uncertain.message).toMatch(/listing to check whether it was created also failed/);
    expect(service.creates()).toBe(1);
  });
});

describe("a create answered with an endpoint that is not the one requested", () => {
  const other = (createTime: number) => ({
    onCreate: () => ({
      status: 200,
      body: {
        code: "200",
        msg: "Success",
        trace_id: TRACE,
        data: record(77, {
          webhook_name: "elsewhere",
          webhook_url: "https://example.com/elsewhere",
          create_time: createTime,
        }),
      },
    }),
  });

  it("made before the attempt (beyond the clock-skew allowance): refused, naming it and how to adopt it", async () => {
    const service = await serviceFor(other(Date.now() - 2 * HOUR));
    const error = await captureError(clientFor(service.url).create(ORDERS));
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect((error as WebhookEndpointExistsError).existingIds).toEqual([77]);
    expect((error as WebhookEndpointExistsError).operation).toBe("create");
    const message = (error as Error).message;
    expect(message).toContain("existed before the request was sent (id 77, created");
    expect(message).toContain('stored as name "elsewhere"');
    expect(message).toContain("adoptWebhookId: 77");
  });

  it("made within the clock-skew allowance: returned, for the caller's stored-differently check", async () => {
    const service = await serviceFor(other(Date.now() - 30_000));
    const result = await clientFor(service.url, { clockSkewMs: 60_000 }).create(ORDERS);
    expect(result.record.webhookId).toBe(77);
  });
});

describe("whether a failed answer says the service processed the request", () => {
  // Section 2 of the API document: success is HTTP 2xx with code "200"; an error may come inside
  // HTTP 200 with another code. Only a success envelope whose data could not be used says so.
  const invalid = (status: number | undefined, serviceCode: string | undefined) =>
    new WebhookInvalidResponseError("unusable data", { status, serviceCode });
  it.each([
    [200, "200", true],
    [201, "200", true],
    [299, "200", true],
    [199, "200", false],
    [300, "200", false],
    [200, "500", false],
    [200, undefined, false],
    [undefined, "200", false],
  ])("HTTP %s with code %s: %s", (status, code, processed) => {
    expect(serviceProcessed(invalid(status, code))).toBe(processed);
  });
  it("a server error is never proof, whatever its status", () => {
    expect(serviceProcessed(new WebhookServerError("failed", { status: 200, serviceCode: "200" }))).toBe(
      false,
    );
  });
});
