import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  WebhookApiError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhooksClient,
  type CreateResult,
} from "../../src/client";
import { startEmulator, type Emulator, type FaultKind } from "../../src/emulator";
import { TOKEN, captureError, rawServer } from "../support/helpers";
import { sized } from "../support/tier.mjs";

/**
 * The latency fault makes the client give up (timeoutMs) before the service commits (slowMs), and the
 * commit must land inside the settle window. The client and the emulator share one event loop, so
 * their timers fire in order of due time however busy the machine; what load can still do is delay
 * the emulator's reading of the request (the commit is scheduled from there) or any answer past its
 * timeout. Hence margins of seconds (a 0.5 s delay before the read, 1 s for any answer) rather than
 * tenths: the commit is due 0.5 s after the client gives up and the window ends 1 s after that.
 */
const FAST = { retryBaseDelayMs: 2, maxRetryAfterMs: 20, timeoutMs: 1000, createSettleMs: 1000 } as const;
const SLOW_MS = 1500;

describe("create under each fault, one at a time", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN, faults: { create: { rate: 0, slowMs: SLOW_MS } } });
    client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, ...FAST });
    // One create that succeeds: the client now knows its own principal (the creator of what it
    // created), which lets it take a single endpoint found after a lost answer as its own.
    await client.create({ webhookName: "warm-up", webhookUrl: "https://example.com/warm-up" });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  const cases: { kind: FaultKind; recovered: boolean; attempts: number }[] = [
    // The service stored the endpoint but the answer was lost or unusable: found by listing.
    { kind: "drop-after-commit", recovered: true, attempts: 1 },
    { kind: "truncated", recovered: true, attempts: 1 },
    { kind: "malformed", recovered: true, attempts: 1 },
    // The client gave up while the service was still working: found once it committed.
    { kind: "latency", recovered: true, attempts: 1 },
    // Nothing was processed: the listing proves it and one retry creates it.
    { kind: "reset-before", recovered: false, attempts: 2 },
    { kind: "server-error", recovered: false, attempts: 2 },
    { kind: "rate-limit", recovered: false, attempts: 2 },
  ];

  it.each(cases)("$kind ends with exactly one endpoint", async ({ kind, recovered, attempts }) => {
    const name = `fault-${kind}`;
    emulator.injectNext("create", kind);
    const createsBefore = emulator.counters().create;
    const result = await client.create({ webhookName: name, webhookUrl: `https://example.com/${name}` });
    const stored = emulator.records().filter((r) => r.webhook_name === name);
    expect(stored).toHaveLength(1);
    expect(result.record.webhookId).toBe(stored[0]!.webhook_id);
    expect(result.record.signSecret).toBe(stored[0]!.sign_secret);
    expect(result.recovered).toBe(recovered);
    expect(result.attempts).toBe(attempts);
    expect(emulator.counters().create - createsBefore).toBe(attempts);
  });

  it("with its principal unknown, a single endpoint found after a lost answer is named, not taken", async () => {
    const fresh = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, ...FAST });
    emulator.injectNext("create", "drop-after-commit");
    const error = await captureError(
      fresh.create({ webhookName: "unknown-principal", webhookUrl: "https://example.com/unknown-principal" }),
    );
    await fresh.close();
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    const [stored] = emulator.records().filter((r) => r.webhook_name === "unknown-principal");
    expect((error as WebhookCreateUncertainError).candidateIds).toEqual([stored!.webhook_id]);
    expect((error as Error).message).toMatch(/not taken/);
  });

  it("with its principal unknown, a 2xx answer whose body was lost still settles on the one endpoint", async () => {
    const fresh = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, ...FAST });
    emulator.injectNext("create", "malformed");
    const result = await fresh.create({
      webhookName: "processed",
      webhookUrl: "https://example.com/processed",
    });
    await fresh.close();
    expect(result.recovered).toBe(true);
    expect(
      emulator
        .records()
        .filter((r) => r.webhook_name === "processed")
        .map((r) => r.webhook_id),
    ).toEqual([result.record.webhookId]);
  });

  it("never retries when the endpoint may exist but the listing cannot be had", async () => {
    emulator.injectNext("create", "drop-after-commit");
    // The listing before the create answers; every listing after it fails.
    emulator.injectNext("list", "server-error", 10, { after: 1 });
    const error = await captureError(
      client.create(
        { webhookName: "unsettled", webhookUrl: "https://example.com/unsettled" },
        { maxRetries: 3 },
      ),
    );
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    expect((error as Error).message).toMatch(/may exist/);
    expect(emulator.records().filter((r) => r.webhook_name === "unsettled")).toHaveLength(1);
    expect(
      emulator
        .requests()
        .filter(
          (r) => r.route === "create" && (r.body as { webhook_name?: string })?.webhook_name === "unsettled",
        ),
    ).toHaveLength(1);
    emulator.reset();
  });

  it("refuses to guess between two endpoints created since the attempt began", async () => {
    // Our create is slow to commit (the client gives up first); while it is in flight, someone
    // else creates the same name and URL.
    emulator.injectNext("create", "latency");
    const attempt = captureError(
      client.create({ webhookName: "twin", webhookUrl: "https://example.com/twin" }),
    );
    while (
      !emulator
        .requests()
        .some((r) => r.route === "create" && (r.body as { webhook_name?: string })?.webhook_name === "twin")
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    emulator.addRecord({ webhook_name: "twin", webhook_url: "https://example.com/twin" });
    const error = await attempt;
    expect(error).toBeInstanceOf(WebhookCreateUncertainError);
    expect((error as WebhookCreateUncertainError).candidateIds).toHaveLength(2);
    expect(emulator.records().filter((r) => r.webhook_name === "twin")).toHaveLength(2);
  });

  it("retries a create that never left (connection refused) and reports it as not sent", async () => {
    const dead = await rawServer(() => undefined);
    const url = dead.url;
    await dead.close();
    const offline = new WebhooksClient({ baseUrl: url, accessToken: TOKEN, ...FAST, maxRetries: 2 });
    const error = await captureError(
      offline.create({ webhookName: "x", webhookUrl: "https://example.com/x" }),
    );
    await offline.close();
    expect(error).toBeInstanceOf(WebhookConnectionError);
    expect((error as WebhookConnectionError).requestSent).toBe(false);
  });
});

/**
 * The headline figure: seeded runs of mixed faults on both routes, every create ending in either a
 * result or an honest error, and never two endpoints for one requested create.
 */
describe(
  "ambiguous creates over seeded trials: 330 in the unit tier, 880 in test:deep",
  { tags: ["budgeted"] },
  () => {
    const SEEDS = sized({ ci: [11, 23, 37], deep: [11, 23, 37, 41, 59, 71, 83, 97] });
    const PER_SEED = 110;

    it.each(SEEDS)(
      "seed %i: zero duplicates, every result matches the service",
      async (seed) => {
        const emulator = await startEmulator({
          accessToken: TOKEN,
          seed,
          faults: {
            create: { rate: 0.45, slowMs: 800, retryAfterSeconds: 1 },
            list: {
              rate: 0.15,
              slowMs: 800,
              kinds: {
                "server-error": 1,
                "rate-limit": 1,
                "reset-before": 1,
                truncated: 1,
                malformed: 1,
                "drop-after-commit": 1,
              },
            },
          },
        });
        // Ten in flight: an answer may wait for nine others, so timeoutMs stays below SLOW_MS but not by much.
        const client = new WebhooksClient({
          baseUrl: emulator.url,
          accessToken: TOKEN,
          ...FAST,
          timeoutMs: 500,
          maxRetries: 6,
        });
        const outcomes: (CreateResult | WebhookApiError)[] = [];
        try {
          const names = Array.from({ length: PER_SEED }, (_, i) => `trial-${seed}-${i}`);
          // Ten creates in flight at a time, as a parallel `pulumi up` would issue them.
          for (let i = 0; i < names.length; i += 10) {
            const batch = names.slice(i, i + 10).map((name) =>
              client
                .create({ webhookName: name, webhookUrl: `https://example.com/hooks/${name}` })
                .catch((error: unknown) => {
                  if (error instanceof WebhookApiError) return error;
                  throw error;
                }),
            );
            outcomes.push(...(await Promise.all(batch)));
          }
          const byName = new Map<string, number[]>();
          for (const record of emulator.records()) {
            byName.set(record.webhook_name, [...(byName.get(record.webhook_name) ?? []), record.webhook_id]);
          }
          const duplicates = [...byName.values()].filter((ids) => ids.length > 1).length;
          expect(duplicates).toBe(0);
          let succeeded = 0;
          let recovered = 0;
          names.forEach((name, i) => {
            const outcome = outcomes[i]!;
            if (outcome instanceof WebhookApiError) {
              // An error never hides an endpoint unless it says so.
              if (!(outcome instanceof WebhookCreateUncertainError))
                expect(byName.get(name) ?? []).toHaveLength(0);
              return;
            }
            succeeded++;
            if (outcome.recovered) recovered++;
            expect(byName.get(name)).toEqual([outcome.record.webhookId]);
          });
          const faults = Object.values(emulator.counters().faults).reduce((a, b) => a + b, 0);
          console.log(
            `seed ${seed}: ${names.length} creates, ${succeeded} succeeded (${recovered} recovered by listing), ${faults} faults injected, ${duplicates} duplicates`,
          );
          expect(succeeded).toBeGreaterThan(names.length * 0.9);
          expect(recovered).toBeGreaterThan(0);
        } finally {
          await client.close();
          await emulator.close();
        }
      },
      180_000,
    );
  },
);
