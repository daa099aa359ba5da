// The end-to-end suite's use of the shared harness (scripts/harness/): where its projects and
// backends live, and one transcript per test file for the plaintext-secret sweeps.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { localProcesses } from "../../src/cli/stack/lock";
import type { Emulator } from "../../src/emulator";
import {
  Project,
  backendFor as harnessBackendFor,
  type Backend,
  type Env,
} from "../../scripts/harness/pulumi.mjs";
import { BASE_DIR, E2E_DIR, REPO } from "./paths";

export { Project, isSecretValue, leaks, readTree, webhookResources } from "../../scripts/harness/pulumi.mjs";

/** Everything the CLI printed in this test file, for the plaintext-secret sweep. */
export const transcript: string[] = [];

/** A fresh `file://` backend and PULUMI_HOME per test file, inside the e2e directory. */
export function backendFor(suite: string): Backend {
  return harnessBackendFor(join(E2E_DIR, "backends"), suite);
}

/** A real Pulumi project made from one of examples/, below the base project that holds node_modules. */
export function createProject(
  example: string,
  id: string,
  env: Env,
  overrides: Record<string, string> = {},
): Project {
  return Project.create(join(REPO, "examples", example), join(BASE_DIR, "projects", id), {
    env,
    overrides,
    transcript,
  });
}

/** Names that more than one endpoint on the emulator carries. */
export function duplicateNames(emulator: Emulator): string[] {
  const seen = new Map<string, number>();
  for (const r of emulator.records()) seen.set(r.webhook_name, (seen.get(r.webhook_name) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([name]) => name);
}

/**
 * Endpoints with an id in the project's file-backend checkpoints, read from disk while a run may
 * be writing them (an unreadable file counts as none).
 */
export function recordedEndpoints(project: Project): number {
  const backend = project.env.PULUMI_BACKEND_URL;
  if (backend === undefined || !backend.startsWith("file://")) return 0;
  const stacks = join(backend.slice("file://".length), ".pulumi", "stacks");
  let count = 0;
  for (const dir of existsSync(stacks) ? readdirSync(stacks) : []) {
    for (const file of readdirSync(join(stacks, dir)).filter((f) => f.endsWith(".json"))) {
      try {
        const checkpoint = JSON.parse(readFileSync(join(stacks, dir, file), "utf8")) as {
          checkpoint?: { latest?: { resources?: { type: string; id?: string }[] } };
        };
        count += (checkpoint.checkpoint?.latest?.resources ?? []).filter(
          (r) => /WebhookEndpoint$/.test(r.type) && r.id,
        ).length;
      } catch {
        // being written
      }
    }
  }
  return count;
}

/**
 * `pulumi up` killed with SIGKILL once `createdAtLeast` endpoints exist on the service (and, with
 * `recordedAtLeast`, once that many are in the checkpoint: the stack's principal is then known to
 * `webhooks recover`); resolves
 * with the time of the kill, after the killed CLI has exited.
 */
export async function killedUp(
  project: Project,
  emulator: Emulator,
  createdAtLeast: number,
  options: { recordedAtLeast?: number } = {},
): Promise<number> {
  const kill = new AbortController();
  const up = project.run(
    ["up", "--yes", "--skip-preview"],
    {},
    { signal: kill.signal, killSignal: "SIGKILL" },
  );
  const deadline = Date.now() + 180_000;
  const recordedAtLeast = options.recordedAtLeast ?? 0;
  while (
    (emulator.counters().created < createdAtLeast || recordedEndpoints(project) < recordedAtLeast) &&
    Date.now() < deadline
  )
    await new Promise((r) => setTimeout(r, 25));
  kill.abort();
  const result = await up;
  if (!(result.signal ?? result.error))
    throw new Error(`pulumi up ended (exit ${result.code}) before it could be killed`);
  return Date.now();
}

/**
 * After a killed run: stops the provider hosts it left running in the project's directory (as
 * `webhooks recover` does), so that no create can start any more, then waits until the emulator has
 * answered every API request it received whole (one that was still arriving when its client died is
 * abandoned, and never stored). A deadline of seconds, not a pause: creates already in flight land,
 * however busy the machine.
 */
export async function settleKilledRun(project: Project, emulator: Emulator): Promise<void> {
  const deadline = Date.now() + 60_000;
  const hosts = () => localProcesses.providerHosts(project.dir);
  for (const host of hosts()) localProcesses.terminate(host.pid);
  const inFlight = () =>
    emulator
      .requests()
      .filter((r) => r.route !== "other" && r.status === 0 && r.fault === undefined && r.body !== null);
  while ((hosts().length > 0 || inFlight().length > 0) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  if (hosts().length > 0 || inFlight().length > 0) {
    throw new Error(
      `60 s after the kill: ${hosts().length} provider hosts still running, ${inFlight().length} requests unanswered`,
    );
  }
}
