import {
  WebhookConnectionError,
  WebhookInvalidResponseError,
  WebhookRateLimitError,
  WebhookServerError,
  type WebhookApiError,
} from "./errors";
import { answeredByService } from "./responses";

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
    /** Ends a wait as `signal` does, and stops the retries (the client's close). */
    closing?: AbortSignal | undefined;
    /** What a wait cut short throws, given the reason it ended (else that reason). */
    cancelled?: ((reason: unknown) => Error) | undefined;
  },
): Promise<T> {
  for (let attemptNumber = 0; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (
        attemptNumber >= options.maxRetries ||
        options.closing?.aborted === true ||
        !options.canRetry(error)
      )
        throw error;
      try {
        // Both signals only here, on a retry: combining them costs every call otherwise.
        await sleep(
          backoffDelay(attemptNumber, error, options.backoff),
          eitherSignal(options.signal, options.closing),
        );
      } catch (reason) {
        throw options.cancelled?.(reason) ?? reason;
      }
    }
  }
}

/** A signal that aborts when either does (undefined when neither is given). */
export function eitherSignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined {
  return a === undefined ? b : b === undefined ? a : AbortSignal.any([a, b]);
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
 * What a failed create may have done on the service. Only proof of "not processed" permits sending
 * it again; the API document shows no error codes or statuses, so no answer proves it:
 * - `refused`: the answer refused the request (a redirect, 401/403, any other 4xx but 429, an
 *   envelope code of another family): final, nothing is sent again;
 * - `not-processed`: the connection never carried the request (refused, unresolvable, unreachable,
 *   a connect timeout), so the service cannot have acted: it may be sent again;
 * - `ambiguous`: anything else, whoever answered: a 5xx or a 429 (the service's own, in its
 *   envelope, or a gateway's or proxy's, such as Envoy's 503 "upstream connect error or
 *   disconnect/reset before headers" after the service committed), a body that is not the
 *   envelope, a connection dropped or an answer given up on after the request was sent. Settled by
 *   listing ({@link mayStillBeInFlight} says when even a listing that finds nothing cannot permit
 *   another create).
 */
export type CreateFailure = "refused" | "not-processed" | "ambiguous";

export function classifyCreateFailure(error: unknown): CreateFailure {
  if (error instanceof WebhookConnectionError) return error.requestSent ? "ambiguous" : "not-processed";
  if (
    error instanceof WebhookRateLimitError ||
    error instanceof WebhookServerError ||
    error instanceof WebhookInvalidResponseError
  )
    return "ambiguous";
  return "refused";
}

/**
 * Whether the service may still be working on a create when the failure came. Only the service's
 * own answer (a parsable envelope, with its result code and trace id) says that it is done with the request; a
 * gateway or proxy in front of it answers (502, 503, 504, a CDN's 524, an HTML page, an empty body)
 * or resets the connection when it stops waiting, not when the service stops working, and a client
 * that gave up heard nothing at all. A listing that finds nothing then proves only that nothing was
 * committed yet, so it never permits sending the create again. A 502, 503 or 504 says so even in
 * an envelope: a gateway's own JSON body may have a code.
 */
export function mayStillBeInFlight(error: WebhookApiError): boolean {
  // The statuses a gateway answers with when it stops waiting (bad gateway, unavailable, timeout),
  // whatever the body: a gateway's own JSON may carry a code too.
  if (error.status === 502 || error.status === 503 || error.status === 504) return true;
  // The same answers in an envelope's code.
  if (/^50[234]/.test(error.serviceCode ?? "")) return true;
  // The service's envelope: its code, and its own trace id, which no gateway's body is known to carry.
  return !answeredByService(error);
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
  // Anyone's object: a revoked proxy throws at `instanceof`, which here (in the signal's listener)
  // would be thrown past every caller, out of the process.
  try {
    const reason: unknown = signal?.reason;
    if (reason instanceof Error) return reason;
  } catch {
    // A reason that cannot be looked at is no Error of use.
  }
  return new Error("aborted");
}
