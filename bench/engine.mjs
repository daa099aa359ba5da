// The engine half of the benchmark: packs the package, installs the tarball into a base project
// (as test/e2e/setup.ts does), and drives the real Pulumi CLI through one fresh stack per run.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

export const PASSPHRASE = "bench-passphrase";
export const RESOURCE_TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";

export function paths(repo) {
  const root = join(repo, ".e2e", "bench");
  return {
    root,
    pack: join(root, "pack"),
    base: join(root, "base"),
    projects: join(root, "base", "projects"),
    backends: join(root, "backends"),
    home: join(root, "home"),
  };
}

function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

/**
 * Packs dist/ (already built by scripts/bench.sh) exactly as published and installs the tarball
 * into .e2e/bench/base, whose node_modules serves the projects below it. Keeps the base's other
 * packages between invocations; the package itself is always reinstalled from the new tarball.
 */
export function installPackedPackage(repo, p, log) {
  rmSync(p.pack, { recursive: true, force: true });
  rmSync(p.projects, { recursive: true, force: true });
  rmSync(p.backends, { recursive: true, force: true });
  mkdirSync(p.pack, { recursive: true });
  mkdirSync(p.projects, { recursive: true });
  mkdirSync(p.home, { recursive: true });
  log("packing the package and installing the tarball into .e2e/bench/base");
  npm(["pack", "--pack-destination", p.pack, "--loglevel=error"], repo);
  const tarball = readdirSync(p.pack).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack produced no tarball");
  const sdkVersion = JSON.parse(readFileSync(join(repo, "node_modules/@pulumi/pulumi/package.json"), "utf8")).version;
  writeFileSync(
    join(p.base, "package.json"),
    JSON.stringify(
      {
        name: "bench-base",
        private: true,
        dependencies: { "@pulumi/pulumi": sdkVersion, "pulumi-webhook-endpoints": `file:${join(p.pack, tarball)}` },
      },
      null,
      2,
    ),
  );
  rmSync(join(p.base, "node_modules", "pulumi-webhook-endpoints"), { recursive: true, force: true });
  rmSync(join(p.base, "package-lock.json"), { force: true });
  npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], p.base);
  const installed = JSON.parse(readFileSync(join(p.base, "node_modules/pulumi-webhook-endpoints/package.json"), "utf8"));
  for (const kind of ["ours", "floor"]) {
    const dir = join(p.projects, kind);
    mkdirSync(dir, { recursive: true });
    for (const file of ["Pulumi.yaml", "index.js"]) cpSync(join(repo, "bench", "program", file), join(dir, file));
  }
  return { tarball, version: installed.version };
}

/**
 * Peak memory (VmHWM) and CPU time (utime + stime) of the processes below `rootPid`: those whose
 * argv runs @pulumi/pulumi's cmd/dynamic-provider (the provider host) or cmd/run (the program),
 * the CLI itself ("engine") and every other descendant ("other": language host, plugin shell).
 * Polls /proc every `intervalMs`; whatever a process does after the last poll before it exits is
 * missed (at most one interval).
 */
export class ProcSampler {
  #root;
  #parents = new Map();
  #kinds = new Map(); // pid -> "provider" | "program" | "other" | "engine"
  #ticks = new Map(); // pid -> utime + stime, clock ticks
  #timer;
  peaks = { engine: 0, provider: 0, program: 0 };
  seen = { provider: 0, program: 0 };

  constructor(rootPid, intervalMs = 100) {
    this.#root = rootPid;
    this.#kinds.set(rootPid, "engine");
    this.tick();
    this.#timer = setInterval(() => this.tick(), intervalMs);
  }

  stop() {
    clearInterval(this.#timer);
    this.tick();
    const cpu = { engine: 0, provider: 0, program: 0, other: 0 };
    for (const [pid, ticks] of this.#ticks) cpu[this.#kinds.get(pid) ?? "other"] += ticks / CLOCK_TICKS;
    return { peaks: this.peaks, cpu, seen: this.seen };
  }

  tick() {
    let entries;
    try {
      entries = readdirSync("/proc");
    } catch {
      return;
    }
    const alive = new Set();
    for (const name of entries) {
      if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
      const pid = Number(name);
      alive.add(pid);
      if (!this.#parents.has(pid)) {
        const fields = statFields(pid);
        if (fields !== undefined) this.#parents.set(pid, Number(fields[1]));
      }
    }
    for (const pid of this.#parents.keys()) if (!alive.has(pid)) this.#parents.delete(pid);

    for (const pid of alive) {
      if (pid !== this.#root && !this.#isDescendant(pid)) continue;
      let kind = this.#kinds.get(pid);
      if (kind === undefined || kind === "other") {
        // Re-read until classified: a shell may exec node after we first saw it.
        const found = classify(readProc(pid, "cmdline")) ?? "other";
        if (found !== "other" && kind !== found) this.seen[found] += 1;
        kind = found;
        this.#kinds.set(pid, kind);
      }
      const fields = statFields(pid);
      if (fields !== undefined) this.#ticks.set(pid, Number(fields[11]) + Number(fields[12]));
      if (kind !== "other") this.#sample(pid, kind);
    }
  }

  #isDescendant(pid) {
    for (let current = pid, depth = 0; depth < 32; depth++) {
      const parent = this.#parents.get(current);
      if (parent === undefined || parent <= 1) return false;
      if (parent === this.#root) return true;
      current = parent;
    }
    return false;
  }

  #sample(pid, kind) {
    const status = readProc(pid, "status");
    const match = status && /^VmHWM:\s+(\d+) kB/m.exec(status);
    if (match) this.peaks[kind] = Math.max(this.peaks[kind], Number(match[1]) * 1024);
  }
}

/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/** /proc/<pid>/stat fields after the command name (index 0 = state, 1 = ppid, 11 = utime, 12 = stime). */
function statFields(pid) {
  const stat = readProc(pid, "stat");
  // The command name is in parentheses and may contain spaces.
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/** "provider" / "program" when an argv element is the script of cmd/dynamic-provider / cmd/run. */
function classify(cmdline) {
  if (!cmdline) return null;
  const argv = cmdline.split("\0");
  if (argv.includes("-e") || argv.includes("--eval")) return null; // the plugin's require.resolve probe
  for (const arg of argv) {
    if (/cmd\/dynamic-provider(\/index\.js)?$/.test(arg)) return "provider";
    if (/cmd\/run(\/index\.js)?$/.test(arg)) return "program";
  }
  return null;
}

/** Runs the CLI; resolves with its exit code, output and wall time; samples memory and CPU if asked. */
export function pulumi(args, { cwd, env, sample = false }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("pulumi", [...args, "--non-interactive"], {
      cwd,
      env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const sampler = sample && child.pid !== undefined ? new ProcSampler(child.pid) : undefined;
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", (error) => {
      sampler?.stop();
      reject(error);
    });
    child.on("close", (code) => {
      const ms = performance.now() - started;
      const sampled = sampler?.stop();
      resolve({ code: code ?? -1, stdout, stderr, ms, memory: sampled?.peaks, cpu: sampled?.cpu, seen: sampled?.seen });
    });
  });
}

async function ok(args, options) {
  const result = await pulumi(args, options);
  if (result.code !== 0) {
    throw new Error(`pulumi ${args.join(" ")} exited ${result.code}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`);
  }
  return result;
}

/** CPU of this process (the in-process emulator, the sampler, the spawn plumbing), seconds. */
function cpuSeconds(usage) {
  return (usage.user + usage.system) / 1e6;
}

function delta(after, before, n) {
  return {
    list: (after.list - before.list) / n,
    create: (after.create - before.create) / n,
    other: (after.other - before.other) / n,
  };
}

/**
 * One run: a fresh file:// backend and stack; init -> up -> export -> preview -> refresh ->
 * destroy -> rm. Only up, preview, refresh and destroy are timed.
 */
export async function cycle({ p, kind, n, emulator, token, id, extraEnv, parallelArgs }) {
  const backendDir = join(p.backends, id);
  mkdirSync(backendDir, { recursive: true });
  const env = { PULUMI_HOME: p.home, PULUMI_BACKEND_URL: `file://${backendDir}`, ...extraEnv };
  const cwd = join(p.projects, kind);
  const stack = `s-${id}`;
  const options = { cwd, env };
  await ok(["stack", "init", stack], options);
  await ok(
    [
      "config", "set-all",
      "--plaintext", `bench:count=${n}`,
      "--plaintext", `bench:kind=${kind}`,
      "--plaintext", `webhooks:baseUrl=${emulator.url}`,
      "--secret", `webhooks:accessToken=${token}`,
    ],
    options,
  );
  if (kind === "ours") emulator.reset();
  const result = { kind, n, ms: {}, calls: {}, memory: undefined, state: undefined };

  let before = emulator.counters();
  let cpuBefore = process.cpuUsage();
  const up = await ok(["up", "--yes", "--skip-preview", ...parallelArgs], { ...options, sample: true });
  let after = emulator.counters();
  result.ms.up = up.ms;
  result.calls.up = delta(after, before, n);
  result.memory = up.memory;
  result.seen = up.seen;
  result.cpu = { up: { ...up.cpu, bench: cpuSeconds(process.cpuUsage(cpuBefore)) } };

  const exported = JSON.parse((await ok(["stack", "export"], options)).stdout);
  const resources = (exported.deployment.resources ?? []).filter((r) => r.type === RESOURCE_TYPE);
  if (resources.length !== n) throw new Error(`${kind}: expected ${n} endpoints in state after up, found ${resources.length}`);
  if (kind === "ours" && after.created - before.created !== n) {
    throw new Error(`ours: expected ${n} creates on the emulator, saw ${after.created - before.created}`);
  }
  const sum = (f) => resources.reduce((total, r) => total + f(r), 0);
  result.state = {
    providerBytes: sum((r) => Buffer.byteLength(String(r.outputs?.__provider ?? ""))) / n,
    resourceBytes: sum((r) => Buffer.byteLength(JSON.stringify(r))) / n,
  };

  for (const [op, args] of [
    ["preview", ["preview", "--expect-no-changes", ...parallelArgs]],
    ["refresh", ["refresh", "--yes", "--skip-preview", ...parallelArgs]],
    ["destroy", ["destroy", "--yes", "--skip-preview", ...parallelArgs]],
  ]) {
    before = emulator.counters();
    cpuBefore = process.cpuUsage();
    const run = await ok(args, { ...options, sample: true });
    after = emulator.counters();
    result.ms[op] = run.ms;
    result.calls[op] = delta(after, before, n);
    result.cpu[op] = { ...run.cpu, bench: cpuSeconds(process.cpuUsage(cpuBefore)) };
  }
  await ok(["stack", "rm", "--yes", "--force", stack], options);
  rmSync(backendDir, { recursive: true, force: true });
  return result;
}

export function pulumiVersion() {
  try {
    return execFileSync("pulumi", ["version"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

export function hasPulumi() {
  return pulumiVersion() !== "unknown";
}

export { existsSync };
