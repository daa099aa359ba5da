import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import {
  WebhookAuthError,
  WebhookConnectionError,
  WebhookInvalidResponseError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  WebhookTimeoutError,
} from "../../src/client";
import {
  MAX_BACKOFF_MS,
  backoffDelay,
  classifyCreateFailure,
  isRetryableList,
  retrying,
  sleep,
} from "../../src/client/retry";

// Retry classification and backoff, from docs/client.md, "Retries": list is retried with backoff and
// jitter, honouring Retry-After; and create's rule that a blind retry after a request that may have
// been processed makes a duplicate, so only failures that certainly processed nothing are retried.

describe("what a failed create may have done", () => {
  it.each([
    [
      "a connection that never carried the request",
      new WebhookConnectionError("refused", { requestSent: false }),
      "not-processed",
    ],
    [
      "a connection dropped after the request was sent",
      new WebhookConnectionError("reset", { requestSent: true }),
      "ambiguous",
    ],
    ["a timeout after sending", new WebhookTimeoutError("timed out", { requestSent: true }), "ambiguous"],
    ["429", new WebhookRateLimitError("slow down", { status: 429, retryAfterMs: 100 }), "not-processed"],
    ["HTTP 503", new WebhookServerError("unavailable", { status: 503 }), "not-processed"],
    [
      "code 503 inside HTTP 200",
      new WebhookServerError("unavailable", { status: 200, serviceCode: "503" }),
      "not-processed",
    ],
    [
      "a service code beginning 503",
      new WebhookServerError("unavailable", { status: 200, serviceCode: "50301" }),
      "not-processed",
    ],
    ["HTTP 500", new WebhookServerError("internal", { status: 500, serviceCode: "500" }), "ambiguous"],
    ["HTTP 502 with no envelope", new WebhookServerError("bad gateway", { status: 502 }), "ambiguous"],
    [
      "a code that merely contains 503",
      new WebhookServerError("internal", { status: 500, serviceCode: "5503" }),
      "ambiguous",
    ],
    ["an unusable body", new WebhookInvalidResponseError("truncated", { status: 200 }), "ambiguous"],
    ["an auth refusal", new WebhookAuthError("no", { status: 401 }), "refused"],
    ["a request refused", new WebhookRequestRefusedError("bad", { status: 400 }), "refused"],
    ["something that is not an API error", new Error("bug"), "refused"],
  ])("%s: %s", (_what, error, expected) => {
    expect(classifyCreateFailure(error)).toBe(expected);
  });
});

describe("which list failures are retried", () => {
  it.each([
    [new WebhookRateLimitError("429", { status: 429 }), true],
    [new WebhookServerError("500", { status: 500 }), true],
    [new WebhookInvalidResponseError("bad body", {}), true],
    [new WebhookConnectionError("reset", { requestSent: true }), true],
    [new WebhookAuthError("401", { status: 401 }), false],
    [new WebhookRequestRefusedError("400", { status: 400 }), false],
    [new Error("bug"), false],
  ])("%s: %s", (error, expected) => {
    expect(isRetryableList(error)).toBe(expected);
  });
});

describe("how long to wait between attempts", () => {
  const settings = { retryBaseDelayMs: 100, maxRetryAfterMs: 1000 };
  const samples = (f: () => number) => Array.from({ length: 400 }, f);

  it("full jitter under an exponential ceiling: base × 2^attempt, capped", () => {
    for (const [attempt, ceiling] of [
      [0, 100],
      [1, 200],
      [3, 800],
      [6, 6400],
      [7, MAX_BACKOFF_MS],
      [40, MAX_BACKOFF_MS],
    ] as const) {
      const delays = samples(() =>
        backoffDelay(attempt, new WebhookServerError("x", { status: 500 }), settings),
      );
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...delays)).toBeLessThan(ceiling);
      // Jittered across the whole range, not a fixed delay (400 samples: all in one half has odds 2^-400).
      expect(Math.max(...delays)).toBeGreaterThan(ceiling / 2);
      expect(Math.min(...delays)).toBeLessThan(ceiling / 2);
    }
    expect(MAX_BACKOFF_MS).toBe(8000);
  });

  it("a 429's Retry-After is honoured, capped at maxRetryAfterMs, plus at most one base delay of jitter", () => {
    const asked = samples(() =>
      backoffDelay(0, new WebhookRateLimitError("429", { retryAfterMs: 300 }), settings),
    );
    expect(Math.min(...asked)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...asked)).toBeLessThan(400);
    expect(Math.max(...asked)).toBeGreaterThan(350);
    const capped = samples(() =>
      backoffDelay(5, new WebhookRateLimitError("429", { retryAfterMs: 60_000 }), settings),
    );
    expect(Math.min(...capped)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...capped)).toBeLessThan(1100);
    // Without Retry-After, a 429 backs off like any other failure.
    const bare = samples(() => backoffDelay(2, new WebhookRateLimitError("429", {}), settings));
    expect(Math.max(...bare)).toBeLessThan(400);
    expect(Math.max(...bare)).toBeGreaterThan(200);
  });
});

describe("the retry loop", () => {
  const fast = { retryBaseDelayMs: 1, maxRetryAfterMs: 1 };

  it("makes at most maxRetries retries, numbering the attempts from 0", async () => {
    const seen: number[] = [];
    const error = await retrying(
      (n) => {
        seen.push(n);
        return Promise.reject(new WebhookServerError("down", { status: 500 }));
      },
      { maxRetries: 3, canRetry: () => true, backoff: fast },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookServerError);
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it("stops at the first failure canRetry refuses, and returns the first success", async () => {
    let calls = 0;
    const refused = new WebhookAuthError("no", { status: 401 });
    await expect(
      retrying(
        () => {
          calls++;
          return Promise.reject(calls === 1 ? new WebhookServerError("down", { status: 500 }) : refused);
        },
        { maxRetries: 5, canRetry: (e) => e instanceof WebhookServerError, backoff: fast },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(2);
    let tries = 0;
    await expect(
      retrying(() => (++tries < 3 ? Promise.reject(new Error("again")) : Promise.resolve("ok")), {
        maxRetries: 5,
        canRetry: () => true,
        backoff: fast,
      }),
    ).resolves.toBe("ok");
    expect(tries).toBe(3);
    let none = 0;
    await expect(
      retrying(() => (none++, Promise.reject(new Error("once"))), {
        maxRetries: 0,
        canRetry: () => true,
        backoff: fast,
      }),
    ).rejects.toThrow("once");
    expect(none).toBe(1);
  });

  it("a wait ends early when the signal aborts, with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled by the caller");
    const started = Date.now();
    const waiting = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    await expect(waiting).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const plain = new AbortController();
    plain.abort("not an error");
    await expect(sleep(10, plain.signal)).rejects.toThrow("aborted");
    // A wait that ends normally leaves no listener behind.
    const kept = new AbortController();
    await sleep(5, kept.signal);
    expect(getEventListeners(kept.signal, "abort")).toHaveLength(0);
    await expect(sleep(0, undefined)).resolves.toBeUndefined();
  });
});
