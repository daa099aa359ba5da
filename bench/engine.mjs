// @ts-check
// The engine half of the benchmark: installs the packed package into a base project (with the
// harness, as the e2e suite does) and drives the real Pulumi CLI through one fresh stack per run.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { installProject, packTarball } from "../scripts/harness/pack.mjs";
import { Project, backendFor, webhookResources } from "../scripts/harness/pulumi.mjs";

/** @typedef {"ours" | "floor"} Kind */
/** @typedef {"up" | "preview" | "refresh" | "destroy"} Op */
/** @typedef {{ list: number, create: number, other: number }} Calls */
/** @typedef {{ engine: number, provider: number, program: number }} Memory */
/** @typedef {{ engine: number, provider: number, program: number, other: number, bench: number }} Cpu */

/**
 * @typedef {object} CycleResult
 * @property {Kind} kind
 * @property {number} n endpoints
 * @property {number} latency emulator latency per API call, ms
 * @property {Record<Op, number>} ms wall time per operation
 * @property {Record<Op, Calls>} calls API requests per endpoint, per operation
 * @property {Record<Op, Cpu>} cpu CPU seconds per process kind, per operation
 * @property {Memory} memory peak RSS during up, bytes
 * @property {{ provider: number, program: number }} seen processes classified during up
 * @property {{ providerBytes: number, resourceBytes: number }} state bytes per endpoint
 */

/**
 * The emulator, as far as a cycle uses it (dist/emulator's Emulator).
 * @typedef {Pick<import("../src/emulator/types.js").Emulator, "url" | "counters" | "reset">} BenchEmulator
 */

/** @param {string} repo */
export function paths(repo) {
  const root = join(repo, ".e2e", "bench");
  return {
    pack: join(root, "pack"),
    base: join(root, "base"),
    projects: join(root, "base", "projects"),
    backends: join(root, "backends"),
    home: join(root, "home"),
  };
}
/** @typedef {ReturnType<typeof paths>} Paths */

/**
 * Packs dist/ (already built by scripts/bench.sh) exactly as published and installs the tarball
 * into .e2e/bench/base, whose node_modules serves the projects below it. Keeps the base's other
 * packages between invocations; the package itself is always reinstalled from the new tarball.
 * @param {string} repo
 * @param {Paths} p
 * @param {(message: string) => void} log
 */
export function installPackedPackage(repo, p, log) {
  for (const dir of [p.pack, p.projects, p.backends]) rmSync(dir, { recursive: true, force: true });
  mkdirSync(p.home, { recursive: true });
  log("packing the package and installing the tarball into .e2e/bench/base");
  const tarball = packTarball(p.pack);
  const installed = installProject(p.base, { name: "bench-base", tarball });
  for (const kind of ["ours", "floor"]) Project.create(join(repo, "bench", "program"), join(p.projects, kind));
  return { version: installed.packageVersion };
}

/**
 * CPU of this process (the in-process emulator, the sampler, the spawn plumbing), seconds.
 * @param {NodeJS.CpuUsage} usage
 */
function cpuSeconds(usage) {
  return (usage.user + usage.system) / 1e6;
}

/**
 * @param {{ list: number, create: number, other: number }} after
 * @param {{ list: number, create: number, other: number }} before
 * @param {number} n
 * @returns {Calls}
 */
function delta(after, before, n) {
  return {
    list: (after.list - before.list) / n,
    create: (after.create - before.create) / n,
    other: (after.other - before.other) / n,
  };
}

/**
 * The sampled figures of one command, in the benchmark's shape (0 where a kind never ran).
 * @param {import("../scripts/harness/process.mjs").RunResult} run
 * @param {number} bench CPU seconds of this process meanwhile
 * @returns {Cpu}
 */
function cpuOf(run, bench) {
  const cpu = run.sample?.cpuSeconds ?? {};
  return { engine: cpu.engine ?? 0, provider: cpu.provider ?? 0, program: cpu.program ?? 0, other: cpu.other ?? 0, bench };
}

/**
 * One run: a fresh file:// backend and stack; init -> up -> export -> preview -> refresh ->
 * destroy -> rm. Only up, preview, refresh and destroy are timed.
 * @param {{ p: Paths, kind: Kind, n: number, latency: number, emulator: BenchEmulator, token: string, id: string,
 *   extraEnv: Record<string, string>, parallelArgs: string[] }} run
 * @returns {Promise<CycleResult>}
 */
export async function cycle({ p, kind, n, latency, emulator, token, id, extraEnv, parallelArgs }) {
  const backend = backendFor(p.backends, id);
  const project = new Project(join(p.projects, kind), { env: { PULUMI_HOME: p.home, PULUMI_BACKEND_URL: backend.backendUrl, ...extraEnv } });
  const stack = `s-${id}`;
  await project.ok(["stack", "init", stack]);
  await project.ok([
    "config", "set-all",
    "--plaintext", `bench:count=${n}`,
    "--plaintext", `bench:kind=${kind}`,
    "--plaintext", `webhooks:baseUrl=${emulator.url}`,
    "--secret", `webhooks:accessToken=${token}`,
  ]);
  if (kind === "ours") emulator.reset();

  let before = emulator.counters();
  let cpuBefore = process.cpuUsage();
  const up = await project.ok(["up", "--yes", "--skip-preview", ...parallelArgs], {}, { sample: true });
  let after = emulator.counters();
  const peaks = up.sample?.peakRss ?? {};
  const seen = up.sample?.seen ?? {};
  /** @type {Partial<Record<Op, number>>} */
  const ms = { up: up.ms };
  /** @type {Partial<Record<Op, Calls>>} */
  const calls = { up: delta(after, before, n) };
  /** @type {Partial<Record<Op, Cpu>>} */
  const cpu = { up: cpuOf(up, cpuSeconds(process.cpuUsage(cpuBefore))) };

  // The floor's no-op resources carry the same type token as ours.
  const resources = webhookResources(await project.exportState());
  if (resources.length !== n) throw new Error(`${kind}: expected ${n} endpoints in state after up, found ${resources.length}`);
  if (kind === "ours" && after.created - before.created !== n) {
    throw new Error(`ours: expected ${n} creates on the emulator, saw ${after.created - before.created}`);
  }
  const sum = (/** @type {(r: import("../scripts/harness/pulumi.mjs").StateResource) => number} */ f) => resources.reduce((total, r) => total + f(r), 0);
  const state = {
    providerBytes: sum((r) => Buffer.byteLength(typeof r.outputs?.__provider === "string" ? r.outputs.__provider : "")) / n,
    resourceBytes: sum((r) => Buffer.byteLength(JSON.stringify(r))) / n,
  };

  /** @type {[Op, string[]][]} */
  const timed = [
    ["preview", ["preview", "--expect-no-changes", ...parallelArgs]],
    ["refresh", ["refresh", "--yes", "--skip-preview", ...parallelArgs]],
    ["destroy", ["destroy", "--yes", "--skip-preview", ...parallelArgs]],
  ];
  for (const [op, args] of timed) {
    before = emulator.counters();
    cpuBefore = process.cpuUsage();
    const run = await project.ok(args, {}, { sample: true });
    after = emulator.counters();
    ms[op] = run.ms;
    calls[op] = delta(after, before, n);
    cpu[op] = cpuOf(run, cpuSeconds(process.cpuUsage(cpuBefore)));
  }
  await project.ok(["stack", "rm", "--yes", "--force", stack]);
  rmSync(backend.dir, { recursive: true, force: true });
  return {
    kind,
    n,
    latency,
    ms: /** @type {Record<Op, number>} */ (ms),
    calls: /** @type {Record<Op, Calls>} */ (calls),
    cpu: /** @type {Record<Op, Cpu>} */ (cpu),
    memory: { engine: peaks.engine ?? 0, provider: peaks.provider ?? 0, program: peaks.program ?? 0 },
    seen: { provider: seen.provider ?? 0, program: seen.program ?? 0 },
    state,
  };
}

