import {
  WebhookConnectionError,
  WebhookInvalidResponseError,
  WebhookRateLimitError,
  WebhookServerError,
} from "./errors";

/** How long to wait between attempts. */
export interface BackoffSettings {
  retryBaseDelayMs: number;
  maxRetryAfterMs: number;
}

/** Longest jittered backoff between two attempts, in milliseconds. */
export const MAX_BACKOFF_MS = 8000;

/**
 * Runs `attempt` until it succeeds, `canRetry` says no, or `maxRetries` retries were made, waiting
 * {@link backoffDelay} between attempts. The one retry loop of the client (list and create).
 */
export async function retrying<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: {
    maxRetries: number;
    canRetry: (error: unknown) => boolean;
    backoff: BackoffSettings;
    signal?: AbortSignal | undefined;
  },
): Promise<T> {
  for (let attemptNumber = 0; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (attemptNumber >= options.maxRetries || !options.canRetry(error)) throw error;
      await sleep(backoffDelay(attemptNumber, error, options.backoff), options.signal);
    }
  }
}

/**
 * Retry on 429: wait what `Retry-After` asked for (capped at `maxRetryAfterMs`) plus a little
 * jitter. Anything else: full-jitter exponential backoff from `retryBaseDelayMs`, capped at 8 s.
 */
export function backoffDelay(attemptNumber: number, error: unknown, settings: BackoffSettings): number {
  if (error instanceof WebhookRateLimitError && error.retryAfterMs !== undefined) {
    return Math.min(error.retryAfterMs, settings.maxRetryAfterMs) + Math.random() * settings.retryBaseDelayMs;
  }
  const exponential = Math.min(MAX_BACKOFF_MS, settings.retryBaseDelayMs * 2 ** attemptNumber);
  return Math.random() * exponential;
}

/** A list may be repeated freely: it changes nothing. Retried on 429, 5xx, connection failures and unusable bodies. */
export function isRetryableList(error: unknown): boolean {
  return (
    error instanceof WebhookRateLimitError ||
    error instanceof WebhookServerError ||
    error instanceof WebhookInvalidResponseError ||
    error instanceof WebhookConnectionError
  );
}

/**
 * What a failed create may have done on the service:
 * - `refused`: the service answered no; retrying is pointless;
 * - `not-processed`: it certainly did not act (the connection never carried the request, 429,
 *   503), so a retry cannot duplicate;
 * - `ambiguous`: it may have acted (timeout or dropped connection after sending, another 5xx, an
 *   unusable body), so only a listing can tell.
 */
export type CreateFailure = "refused" | "not-processed" | "ambiguous";

export function classifyCreateFailure(error: unknown): CreateFailure {
  if (error instanceof WebhookConnectionError) return error.requestSent ? "ambiguous" : "not-processed";
  if (error instanceof WebhookRateLimitError) return "not-processed";
  if (error instanceof WebhookServerError) {
    return error.status === 503 || (error.serviceCode ?? "").startsWith("503")
      ? "not-processed"
      : "ambiguous";
  }
  if (error instanceof WebhookInvalidResponseError) return "ambiguous";
  return "refused";
}

/** Waits, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error("aborted");
}
