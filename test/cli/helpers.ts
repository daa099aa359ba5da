import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { WebhooksClient } from "../../src/client/client";
import type { PulumiResult, PulumiRunner } from "../../src/cli/stack/pulumi";
import { PulumiMissingError } from "../../src/cli/stack/pulumi";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";

export const TOKEN = "cli_tok_7d41c2e9a05f4b3c8e6d1a2b";
/** The emulator's clock: 2026-01-02T03:04:05Z, one minute later at every reading. */
export const CLOCK_START = Date.parse("2026-01-02T03:04:05.000Z");

export async function cliEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  let tick = 0;
  return startEmulator({ accessToken: TOKEN, now: () => CLOCK_START + 60_000 * tick++, ...options });
}

export function clientFor(emulator: Emulator, token = TOKEN): WebhooksClient {
  return new WebhooksClient({ baseUrl: emulator.url, accessToken: token, maxRetries: 0 });
}

/** Output with every sign secret replaced by a stable marker. */
export function normalise(text: string, emulator: Emulator): string {
  let out = text;
  for (const record of emulator.records())
    out = out.split(record.sign_secret).join(`<sign_secret of ${record.webhook_id}>`);
  return out;
}

const GOLDEN_DIR = join(__dirname, "golden");

/** Compares with test/cli/golden/<name>; UPDATE_GOLDEN=1 rewrites the file instead. */
export function expectGolden(name: string, text: string): void {
  const file = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === "1" || !existsSync(file)) {
    if (process.env.CI === "true" && !existsSync(file)) throw new Error(`golden file ${name} is missing`);
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, "utf8"));
}

/** Every secret the emulator issued, and the token. */
export function allSecrets(emulator: Emulator): string[] {
  return [TOKEN, ...emulator.records().map((r) => r.sign_secret)];
}

export interface FakeCall {
  args: string[];
  input?: string | undefined;
  cwd?: string | undefined;
}

/** A PulumiRunner that answers from a table of handlers (first matching prefix wins) and records every call. */
export function fakePulumi(
  handlers: Record<string, (call: FakeCall) => Partial<PulumiResult> | Promise<Partial<PulumiResult>>>,
  options: { missing?: boolean } = {},
): PulumiRunner & { calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  return {
    calls,
    async run(args, runOptions = {}) {
      const call = { args: [...args], input: runOptions.input, cwd: runOptions.cwd };
      calls.push(call);
      if (options.missing) throw new PulumiMissingError("pulumi is not on PATH (ENOENT)");
      const key = Object.keys(handlers)
        .sort((a, b) => b.length - a.length)
        .find((prefix) => args.join(" ").startsWith(prefix));
      if (key === undefined)
        return { code: 1, stdout: "", stderr: `fake pulumi: no handler for ${args.join(" ")}` };
      const result = await handlers[key]!(call);
      return { code: 0, stdout: "", stderr: "", ...result };
    },
  };
}
