import { interpretResponse } from "../../src/client/responses";
import { CREATE_RESPONSE } from "../../src/client/schemas";
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import {
  WebhookApiError,
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
  mayStillBeInFlight,
  retrying,
  sleep,
} from "../../src/client/retry";

// Retry classification and backoff, from the client's docs (docs/client.md, "Retries" and "Create
// and the settle rules"): bounded retries with backoff and jitter for list, Retry-After honoured;
// a create is sent again at once only when the connection never carried it. The API document
// shows no error codes or statuses (section 7), so no answer, from the service or from anything
// between (a gateway's 502/503/504, a 429, a body that is not the envelope), proves "not
// processed": each is ambiguous, and settled by listing.

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
    ["429", new WebhookRateLimitError("slow down", { status: 429, retryAfterMs: 100 }), "ambiguous"],
    ["HTTP 503", new WebhookServerError("unavailable", { status: 503 }), "ambiguous"],
    [
      "a gateway's 503 after the service committed (Envoy's text, no envelope)",
      new WebhookServerError("upstream connect error or disconnect/reset before headers", { status: 503 }),
      "ambiguous",
    ],
    ["a gateway's 504", new WebhookServerError("gateway timeout", { status: 504 }), "ambiguous"],
    [
      "code 503 inside HTTP 200",
      new WebhookServerError("unavailable", { status: 200, serviceCode: "503" }),
      "ambiguous",
    ],
    [
      "a service code beginning 503",
      new WebhookServerError("unavailable", { status: 200, serviceCode: "50301" }),
      "ambiguous",
    ],
    [
      "a 429 code inside HTTP 200",
      new WebhookRateLimitError("slow down", { status: 200, serviceCode: "42901" }),
      "ambiguous",
    ],
    [
      "a connect timeout (the connection never carried the request)",
      new WebhookTimeoutError("connect timed out", { requestSent: false }),
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

describe("whether the service may still be working on a create", () => {
  it.each([
    [
      "no answer before the client stopped waiting",
      new WebhookTimeoutError("timed out", { requestSent: true }),
      true,
    ],
    [
      "a gateway's 504: it stopped waiting for the service",
      new WebhookServerError("gateway timeout", { status: 504 }),
      true,
    ],
    [
      "a 504 in the service's own envelope",
      new WebhookServerError("timeout", { status: 504, serviceCode: "50401" }),
      true,
    ],
    [
      "a body given up on after its status came: no envelope read, so nothing says the service is done",
      new WebhookTimeoutError("timed out", { requestSent: true, status: 200 }),
      true,
    ],
    // Only the service's own answer (its envelope) says it is done with the request.
    ["a connection dropped after sending", new WebhookConnectionError("reset", { requestSent: true }), true],
    ["a gateway's 502", new WebhookServerError("bad gateway", { status: 502 }), true],
    ["a CDN's 524", new WebhookServerError("a timeout occurred", { status: 524 }), true],
    ["a 503 with no envelope", new WebhookServerError("unavailable", { status: 503 }), true],
    ["a 429 with no envelope", new WebhookRateLimitError("slow down", { status: 429 }), true],
    ["a body that is not the envelope", new WebhookInvalidResponseError("truncated", { status: 200 }), true],
  ])("%s", (_what, error, expected) => {
    expect(mayStillBeInFlight(error)).toBe(expected);
  });
});

// The same question of answers as they come, read as the client reads them (interpretResponse):
// only the service's own envelope (a readable code, and its own trace id at its top level) says the
// service is done, and never a 502, 503 or 504, in the status or in the code.
describe("whether the service may still be working on a create, from the answer itself", () => {
  const TRACE = "0123456789abcdef0123456789abcdef";
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    try {
      interpretResponse("create", { status, headers, text, bytes: text.length }, CREATE_RESPONSE, {
        token: "tok",
        tokenSource: "a test",
      });
    } catch (error) {
      return error as WebhookApiError;
    }
    throw new Error("the answer was read as a success");
  };
  it.each([
    ["the service's own 500", answer(500, { code: "500", msg: "internal", trace_id: TRACE }), false],
    [
      "the service's own 500, a numeric code",
      answer(500, { code: 500, msg: "internal", trace_id: TRACE }),
      false,
    ],
    ["the service's own 429", answer(429, { code: "429", msg: "slow down", trace_id: TRACE }), false],
    ["code 500 inside HTTP 200", answer(200, { code: "500", msg: "internal", trace_id: TRACE }), false],
    [
      "a 503 whose JSON has a code and a trace id",
      answer(503, { code: "503", msg: "busy", trace_id: TRACE }),
      true,
    ],
    [
      "a 502 whose JSON has a code",
      answer(502, { code: 502, message: "upstream timed out", trace_id: TRACE }),
      true,
    ],
    ["code 503 inside HTTP 200", answer(200, { code: "503", msg: "busy", trace_id: TRACE }), true],
    ["code 504 inside HTTP 500", answer(500, { code: "504", msg: "timeout", trace_id: TRACE }), true],
    ["a 500 JSON with a code and no trace id", answer(500, { code: 500, message: "internal" }), true],
    [
      "a 500 JSON whose trace id is only in a header",
      answer(500, { code: "500", msg: "internal" }, { "x-trace-id": TRACE }),
      true,
    ],
    ["a 500 JSON whose trace id is nested", answer(500, { code: 500, error: { trace_id: TRACE } }), true],
    [
      "a 500 JSON whose trace id is not the documented form",
      answer(500, { code: "500", trace_id: "gw-1" }),
      true,
    ],
    ["a 500 JSON with a blank code", answer(500, { code: " ", msg: "x", trace_id: TRACE }), true],
  ])("%s", (_what, error, expected) => {
    expect(mayStillBeInFlight(error)).toBe(expected);
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
