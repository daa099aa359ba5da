// Raw HTTP helpers for the emulator tests: deliberately not the project's client, so the emulator
// is checked against the document rather than against our own reading of it.
import { afterEach } from "vitest";
import { main } from "../../src/emulator/bin";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator/index";

export const TOKEN = "test-token-0123456789";
export const LIST = "/open-api/v1/webhooks";
export const CREATE = "/open-api/v1/webhooks/create";
export const TRACE_ID = /^[0-9a-f]{32}$/;

// Tests poke into response JSON freely; a failed expectation is the type check here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: Json;
}

export interface CallInit {
  /** Authorization header; null sends none. @default TOKEN */
  authorization?: string | null;
  /** Content-Type header; null sends none. @default "application/json" */
  contentType?: string | null;
  method?: string;
  /** Sent as is instead of JSON.stringify(body). */
  raw?: string;
}

export async function call(base: string, path: string, body?: unknown, init: CallInit = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization = init.authorization === undefined ? TOKEN : init.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const contentType = init.contentType === undefined ? "application/json" : init.contentType;
  if (contentType !== null) headers["content-type"] = contentType;
  const method = init.method ?? "POST";
  const payload = init.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const response = await fetch(base + path, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await response.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const list = (emulator: Emulator, body: unknown = {}, init?: CallInit) =>
  call(emulator.url, LIST, body, init);
export const create = (emulator: Emulator, body: unknown, init?: CallInit) =>
  call(emulator.url, CREATE, body, init);
/** An admin call with the emulator's admin token (pass `init` to send something else). */
export const admin = (
  emulator: Emulator,
  path: string,
  method = "GET",
  body?: unknown,
  init: CallInit = {},
) => call(emulator.url, `/__emulator/${path}`, body, { method, authorization: emulator.adminToken, ...init });

/** The webhook_id of each record in a response's record array. */
export function idsOf(records: Json): number[] {
  return (records as { webhook_id: number }[]).map((record) => record.webhook_id);
}

export function hook(n: number): { webhook_name: string; webhook_url: string } {
  return { webhook_name: `hook-${n}`, webhook_url: `https://example.com/hooks/${n}` };
}

/** Starts emulators that are closed after each test. */
export function emulators(): (options?: EmulatorOptions) => Promise<Emulator> {
  const started: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((emulator) => emulator.close()));
  });
  return async (options = {}) => {
    const emulator = await startEmulator({ accessToken: TOKEN, ...options });
    started.push(emulator);
    return emulator;
  };
}

/**
 * The bin's `main` as the tests run it, its log lines kept; every emulator it starts, and any
 * other given to `track`, is closed after each test.
 */
export function binRunner(): {
  run: (argv: string[], env?: NodeJS.ProcessEnv) => Promise<{ emulator: Emulator; lines: string[] }>;
  track: (emulator: Emulator) => void;
} {
  const running: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  });
  return {
    run: async (argv, env = {}) => {
      const lines: string[] = [];
      const emulator = await main(argv, { env, log: (line) => lines.push(line), handleSignals: false });
      if (emulator === undefined) throw new Error("main did not start an emulator");
      running.push(emulator);
      return { emulator, lines };
    },
    track: (emulator) => void running.push(emulator),
  };
}
