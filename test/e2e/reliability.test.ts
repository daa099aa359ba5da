// @module-tag deep
// npm run test:deep only (test/support/tier.mts): faults, kills and concurrency through the real
// engine at full size; npm test drives faults and concurrent stacks through the model-based test.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type FaultKind } from "../../src/emulator";
import { REPO } from "./paths";
import {
  Project,
  backendFor as suiteBackend,
  createProject,
  duplicateNames,
  killedUp,
  leaks,
  readTree,
  settleKilledRun,
  transcript,
  webhookResources,
} from "./support";

const TOKEN = "e2e_tok_reliability_0f4e8d2c6b";

/** A program of N endpoints, named by prefix, sized from the environment. */
const FLEET_PROGRAM = `import { WebhookEndpoint } from "pulumi-webhook-endpoints";
const count = Number(process.env.FLEET_SIZE ?? "10");
const prefix = process.env.FLEET_PREFIX ?? "fleet";
const hooks = Array.from({ length: count }, (_, i) => new WebhookEndpoint(\`\${prefix}-\${i}\`, { webhookUrl: \`https://example.com/hooks/\${prefix}/\${i}\` }));
export const ids = hooks.map((hook) => hook.webhookId);
`;
const FLEET_YAML = readFileSync(join(REPO, "examples/quickstart/Pulumi.yaml"), "utf8").replace(
  /^name: .*$/m,
  "name: webhooks-fleet",
);

/**
 * Tight timeouts so "latency past the client timeout" happens; generous retries so runs converge; a
 * settle window of seconds beyond the 1.5 s latency, so a loaded machine cannot push a slow create's
 * commit past it.
 */
const CLIENT_TUNING = {
  WEBHOOKS_TIMEOUT_MS: "1000",
  WEBHOOKS_MAX_RETRIES: "8",
  WEBHOOKS_CREATE_SETTLE_MS: "8000",
};
const ALL_FAULTS: FaultKind[] = [
  "server-error",
  "rate-limit",
  "latency",
  "reset-before",
  "drop-after-commit",
  "truncated",
  "malformed",
];

/** A fleet project of its own stack and backend, talking to one emulator. */
function fleetProject(
  id: string,
  emulator: Emulator,
  size: number,
  prefix: string,
  extraEnv: Record<string, string> = {},
): Project {
  const backend = backendFor(id);
  return createProject(
    "quickstart",
    id,
    {
      PULUMI_BACKEND_URL: backend.backendUrl,
      PULUMI_HOME: backend.home,
      WEBHOOKS_BASE_URL: emulator.url,
      WEBHOOKS_ACCESS_TOKEN: TOKEN,
      FLEET_SIZE: String(size),
      FLEET_PREFIX: prefix,
      ...extraEnv,
    },
    { "index.ts": FLEET_PROGRAM, "Pulumi.yaml": FLEET_YAML },
  );
}

/** This file's backends, for the plaintext sweep (not the other files', which may be written meanwhile). */
const backends: string[] = [];
function backendFor(suite: string): ReturnType<typeof suiteBackend> {
  const backend = suiteBackend(suite);
  backends.push(backend.dir);
  return backend;
}

const emulators: Emulator[] = [];
afterAll(async () => {
  for (const e of emulators) await e.close();
});

describe("faults under the real engine: 100 endpoints, 20% mixed faults on every route", () => {
  const SEEDS = [101, 202, 303, 404, 505];

  it.each(SEEDS)(
    "seed %i: one up, exactly 100 endpoints, state equals the service, refresh and previews converge",
    async (seed) => {
      const emulator = await startEmulator({
        accessToken: TOKEN,
        seed,
        faults: {
          list: {
            rate: 0.2,
            slowMs: 1500,
            retryAfterSeconds: 1,
            kinds: Object.fromEntries(ALL_FAULTS.map((k) => [k, 1])),
          },
          create: {
            rate: 0.2,
            slowMs: 1500,
            retryAfterSeconds: 1,
            kinds: Object.fromEntries(ALL_FAULTS.map((k) => [k, 1])),
          },
        },
      });
      emulators.push(emulator);
      const project = fleetProject(`faults-${seed}`, emulator, 100, `s${seed}`, CLIENT_TUNING);
      await project.initStack("dev");

      const up = await project.ok(["up", "--yes", "--skip-preview"]);
      expect(emulator.records()).toHaveLength(100);
      expect(duplicateNames(emulator)).toEqual([]);
      const stateIds = webhookResources(await project.exportState())
        .map((r) => r.id)
        .sort();
      expect(stateIds).toEqual(
        emulator
          .records()
          .map((r) => String(r.webhook_id))
          .sort(),
      );

      await project.ok(["preview", "--expect-no-changes"]);
      const refresh = await project.ok(["refresh", "--yes", "--skip-preview"]);
      expect(
        webhookResources(await project.exportState())
          .map((r) => r.id)
          .sort(),
      ).toEqual(stateIds);
      await project.ok(["preview", "--expect-no-changes"]);
      expect(emulator.records()).toHaveLength(100);

      const faults = emulator.counters().faults;
      const injected = Object.values(faults).reduce((a, b) => a + b, 0);
      console.log(
        `faults seed ${seed}: ${injected} faults injected (${ALL_FAULTS.map((k) => `${k} ${faults[k]}`).join(", ")}), up ${up.ms} ms, refresh ${refresh.ms} ms, endpoints 100, duplicates 0, lost 0`,
      );
      expect(injected).toBeGreaterThan(20);
    },
  );
});

describe("an interrupted run: the CLI killed with SIGKILL in the middle of up of 50 endpoints", () => {
  it("the engine's own recovery alone does not duplicate: the next up refuses, naming the endpoints and webhooks recover", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 400 });
    emulators.push(emulator);
    const project = fleetProject("interrupt-plain", emulator, 50, "plain");
    await project.initStack("dev");
    await killedUp(project, emulator, 15);
    // Creates already in flight in the orphaned provider host may still land: they have, once it is
    // stopped and the emulator has answered every request it received.
    await settleKilledRun(project, emulator);
    const createdBeforeKill = emulator.counters().created;
    const recordedBeforeRecovery = webhookResources(await project.exportState()).length;
    // The engine's own recovery: release the killed run's lock, drop the pending creates it cannot
    // know the ids of, apply again. Before, this created every forgotten endpoint a second time.
    await project.ok(["cancel", "--yes"]);
    await project.ok(["refresh", "--yes", "--skip-preview", "--clear-pending-creates"]);
    const up = await project.run(["up", "--yes", "--skip-preview"]);
    const output = `${up.stdout}\n${up.stderr}`;
    console.log(
      `interrupted (engine recovery only): ${createdBeforeKill} endpoints existed after the kill, ${recordedBeforeRecovery} in state; the next up ${up.code === 0 ? "succeeded" : "refused"}, ${emulator.records().length} endpoints on the service, ${duplicateNames(emulator).length} duplicated names`,
    );
    expect(createdBeforeKill).toBeGreaterThan(recordedBeforeRecovery);
    expect(up.code).not.toBe(0);
    expect(output).toMatch(/already exists/);
    expect(output).toMatch(/`webhooks recover`/);
    expect(output).not.toMatch(/npx webhooks/);
    // Zero duplicates: every name exactly once on the service, whatever the engine forgot.
    expect(duplicateNames(emulator)).toEqual([]);
    // The refusing up stops early, so fewer than 50 may exist; none is outside the declared fleet.
    expect(emulator.records().length).toBeGreaterThanOrEqual(createdBeforeKill);
    expect(emulator.records().length).toBeLessThanOrEqual(50);
    // `webhooks recover` is the way forward; test/e2e/cli.test.ts runs it after the same kill.
  });
});

describe("concurrency: two stacks at once, and a high --parallel", () => {
  it("two stacks of 50 applied at the same time against one emulator: no cross-talk, no duplicates, nothing lost", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 20 });
    emulators.push(emulator);
    const projects = ["blue", "green"].map((prefix) =>
      fleetProject(`concurrent-${prefix}`, emulator, 50, prefix),
    );
    for (const project of projects) await project.initStack("dev");
    await Promise.all(
      projects.map((project, i) =>
        project.ok(["up", "--yes", "--skip-preview", "--parallel", i === 0 ? "64" : "8"]),
      ),
    );
    expect(emulator.records()).toHaveLength(100);
    expect(duplicateNames(emulator)).toEqual([]);
    for (const [i, project] of projects.entries()) {
      const prefix = i === 0 ? "blue" : "green";
      const expected = emulator
        .records()
        .filter((r) => r.webhook_name.startsWith(`${prefix}-`))
        .map((r) => String(r.webhook_id))
        .sort();
      expect(expected).toHaveLength(50);
      expect(
        webhookResources(await project.exportState())
          .map((r) => r.id)
          .sort(),
      ).toEqual(expected);
    }
    await Promise.all(
      projects.map((project) => project.ok(["preview", "--expect-no-changes", "--parallel", "64"])),
    );
  });

  it("nothing any of these runs printed or stored holds the token or a signing secret", () => {
    const secrets = [TOKEN, ...emulators.flatMap((e) => e.records().map((r) => r.sign_secret))];
    expect(leaks(secrets, [transcript.join("\n"), ...backends.map((dir) => readTree(dir))])).toEqual([]);
  });
});
