import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../scripts/harness/process.mjs";
import { runPulumi } from "../../scripts/harness/pulumi.mjs";
import { REPO } from "./paths";
import { leaks, readTree } from "./support";

// The README's demo command, run as a user runs it, in its own directory so a user's .demo/ is untouched.
const DEMO_DIR = join(REPO, ".e2e", "demo");
const PASSPHRASE = "e2e-demo-passphrase";
const ENV = {
  PWE_DEMO_DIR: DEMO_DIR,
  PWE_DEMO_PASSPHRASE: PASSPHRASE,
  PWE_DEMO_STOP_EMULATOR: "1",
  // node_modules is in use by this very test run: never let the demo `npm ci` it away.
  PWE_SKIP_INSTALL: "1",
  NO_COLOR: "1",
};
const PRODUCER_CONFIG = join(DEMO_DIR, "projects", "webhooks-demo", "Pulumi.dev.yaml");
// Stack config files must stay out of the repository (the demo passes --config-file).
const REPO_CONFIG_FILES = [
  join(REPO, "Pulumi.dev.yaml"),
  join(REPO, "examples", "multi-stack", "consumer", "Pulumi.dev.yaml"),
  join(REPO, "examples", "yaml", "Pulumi.dev.yaml"),
];

interface DemoRun {
  code: number;
  output: string;
}

/** The demo indents what the CLI prints with "      | "; tests read it as the CLI printed it. */
function cliText(output: string): string {
  return output.replace(/^ {6}\| ?/gm, "");
}

async function demo(args: string[] = []): Promise<DemoRun> {
  const run = await runProcess("bash", [join(REPO, "scripts", "demo.sh"), ...args], { cwd: REPO, env: ENV });
  return { code: run.code, output: run.error ? `${run.output}\n${run.error}` : run.output };
}

function expectOk(run: DemoRun): void {
  if (run.code !== 0) throw new Error(`scripts/demo.sh exited ${run.code}\n${run.output}`);
}

/**
 * The access token the demo generated, read back (decrypted) from the stack config it wrote; no transcript
 * keeps it.
 */
async function demoToken(): Promise<string> {
  const run = await runPulumi(
    ["config", "get", "webhooks:accessToken", "--json", "--config-file", PRODUCER_CONFIG],
    {
      cwd: join(DEMO_DIR, "projects", "webhooks-demo"),
      env: {
        PULUMI_HOME: join(DEMO_DIR, "pulumi-home"),
        PULUMI_BACKEND_URL: `file://${join(DEMO_DIR, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      },
    },
  );
  if (run.code !== 0)
    throw new Error(`pulumi config get webhooks:accessToken exited ${run.code}: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { value: string }).value;
}

function emulatorRecords(): { webhook_id: number; webhook_url: string; sign_secret: string }[] {
  const state = JSON.parse(readFileSync(join(DEMO_DIR, "emulator.json"), "utf8")) as {
    records: { webhook_id: number; webhook_url: string; sign_secret: string }[];
  };
  return state.records;
}

/** What the demo leaves on disk that must never hold a secret in plaintext (not emulator.json: it is the service). */
function demoFiles(): string {
  const dirs = ["state", "projects", "logs", "pulumi-home"].map((p) => readTree(join(DEMO_DIR, p)));
  return [...dirs, readFileSync(join(DEMO_DIR, "emulator.log"), "utf8")].join("\n");
}

describe("bash scripts/demo.sh (the README's demo command)", () => {
  const outputs: string[] = [];
  const tokens: string[] = [];
  let configFilesBefore: boolean[];

  beforeAll(async () => {
    // A demo left behind by an interrupted run: stop its emulator and start from nothing.
    await demo(["--clean"]);
    rmSync(DEMO_DIR, { recursive: true, force: true });
    configFilesBefore = REPO_CONFIG_FILES.map((f) => existsSync(f));
  });

  it("first run: sets up, creates the endpoint, hands signSecret to the consumer stack as a secret, and a YAML stack declares one through the native provider", async () => {
    const run = await demo();
    outputs.push(run.output);
    expectOk(run);
    tokens.push(await demoToken());
    const out = cliText(run.output);
    for (let step = 1; step <= 8; step++) expect(out).toContain(`[${step}/8]`);
    // The TypeScript stack and the YAML stack: each a stack and an endpoint.
    expect(out.match(/\+ 2 created/g)).toHaveLength(2);
    expect(out).toMatch(/\+ 1 created/); // the consumer stack
    expect(out).toMatch(/signSecret\s+\[secret\]/);
    expect(out).toMatch(/receivedSignSecret\s+\[secret\]/);
    expect(out).toMatch(/secretArrivedAsSecret\s+true/);
    expect(out).toMatch(/webhooks:index:WebhookEndpoint\s+orders\s+created/);
    expect(out).toMatch(/ordersSignSecret\s+\[secret\]/);
    expect(out).toContain(`demo passphrase "${PASSPHRASE}"`);
    // The look-around and clean-up section.
    expect(out).toContain(`export PULUMI_HOME='${join(DEMO_DIR, "pulumi-home")}'`);
    expect(out).toContain(`export PULUMI_BACKEND_URL='file://${join(DEMO_DIR, "state")}'`);
    expect(out).toContain(`export PULUMI_CONFIG_PASSPHRASE='${PASSPHRASE}'`);
    expect(out).toContain("pulumi stack output --show-secrets");
    expect(out).toMatch(
      /curl -s -H "Authorization: Bearer .*admin token.*" http:\/\/127\.0\.0\.1:\d+\/__emulator\/records/,
    );
    expect(out).toContain(`PWE_DEMO_DIR='${DEMO_DIR}' bash scripts/demo.sh --clean`);

    const records = emulatorRecords();
    expect(records.map((r) => r.webhook_url).sort()).toEqual([
      "https://example.com/hooks/orders",
      "https://example.com/hooks/orders-from-yaml",
    ]);
    // PWE_DEMO_STOP_EMULATOR=1: the emulator is gone and so is its pid file.
    expect(existsSync(join(DEMO_DIR, "emulator.pid"))).toBe(false);
    expect(out).toMatch(/stopped the emulator \(pid \d+\)/);
    expect(REPO_CONFIG_FILES.map((f) => existsSync(f))).toEqual(configFilesBefore);
  });

  it("second run: restarts the emulator on its persisted endpoints with a fresh token; both ups change nothing", async () => {
    const before = emulatorRecords();
    const run = await demo();
    outputs.push(run.output);
    expectOk(run);
    tokens.push(await demoToken());
    const out = cliText(run.output);
    expect(out).toContain("endpoints from earlier runs were loaded");
    expect(out).not.toMatch(/\d+ created/);
    expect(out).not.toMatch(/\d+ (updated|replaced|deleted)/);
    expect(out.match(/Resources:\s+2 unchanged/g)).toHaveLength(2);
    expect(out).toMatch(/Resources:\s+1 unchanged/);
    expect(out).toMatch(/signSecret\s+\[secret\]/);
    expect(out).toMatch(/receivedSignSecret\s+\[secret\]/);
    expect(out).toMatch(/secretArrivedAsSecret\s+true/);
    expect(out).toMatch(/ordersSignSecret\s+\[secret\]/);
    expect(emulatorRecords()).toEqual(before);
    expect(tokens[1]).not.toBe(tokens[0]);
  });

  it("never shows the token or the signing secret, and keeps them encrypted on disk", () => {
    const secrets = [...tokens, ...emulatorRecords().map((r) => r.sign_secret)];
    expect(secrets).toHaveLength(4);
    expect(leaks(secrets, [outputs.join("\n"), demoFiles()])).toEqual([]);
  });

  it("--clean stops everything and removes the demo directory with the three stacks", async () => {
    const run = await demo(["--clean"]);
    expectOk(run);
    expect(run.output).toContain("removed stack webhooks-consumer/dev");
    expect(run.output).toContain("removed stack webhooks-demo/dev");
    expect(run.output).toContain("removed stack webhooks-yaml/dev");
    expect(existsSync(DEMO_DIR)).toBe(false);
    const again = await demo(["--clean"]);
    expectOk(again);
    expect(again.output).toContain("nothing to remove");
  });
});
