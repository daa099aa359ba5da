// npm run bench (scripts/bench.sh builds dist/ and puts Node and the Pulumi CLI on PATH first).
//
// Knobs (environment):
//   BENCH_SIZES=10,100,300      endpoints per stack
//   BENCH_LATENCIES=0,50        emulator latency per API call, ms
//   BENCH_RUNS=3                runs per cell, each a fresh stack; the median is shown
//   BENCH_QUICK=1               smoke run: sizes 10, runs 1, 1000 client ops
//   BENCH_PARALLEL=<n>          pass --parallel n to up/preview/refresh/destroy (default: the CLI's default, cores x 4)
//   BENCH_PARALLEL_DIFF=1       set PULUMI_PARALLEL_DIFF=true (the engine diffs in parallel; default serial)
//   BENCH_CLIENT_OPS=5000       ops per client micro-benchmark trial
//   BENCH_CLIENT_CONCURRENCY=16 requests in flight in the client micro-benchmark
//   BENCH_PARTS=engine,client   which halves to run
// @ts-check
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pulumiVersion } from "../scripts/harness/pulumi.mjs";
import { clientBenchmark } from "./client.mjs";
import { cycle, installPackedPackage, paths } from "./engine.mjs";

/** @typedef {import("./engine.mjs").CycleResult} CycleResult */
/** @typedef {import("./engine.mjs").Op} Op */
/** @typedef {import("./client.mjs").ClientResult} ClientResult */
/** @typedef {{ runs: CycleResult[], packageVersion: string }} EngineResults */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** @type {Op[]} */
const OPS = ["up", "preview", "refresh", "destroy"];
const TOKEN = "bench_tok_3f9d1c7e5a2b4860";
// The CLI's --parallel default: $PULUMI_PARALLEL, else GOMAXPROCS x 4 (pkg/cmd/pulumi/operations/up.go).
const CLI_DEFAULT_PARALLEL = Number(process.env.PULUMI_PARALLEL) > 0 ? Number(process.env.PULUMI_PARALLEL) : os.availableParallelism() * 4;

/** @param {string} message */
function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/**
 * @param {string} name
 * @param {string} fallback
 */
function intList(name, fallback) {
  const raw = process.env[name] ?? fallback;
  const values = raw.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 0)) throw new Error(`${name} must be a comma-separated list of non-negative integers, got "${raw}"`);
  return values;
}

/**
 * @param {string} name
 * @param {number} fallback
 * @param {number} [min]
 */
function int(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/**
 * The median of the finite values; NaN when there are none.
 * @param {readonly (number | undefined)[]} values
 */
function median(values) {
  const v = values.filter(/** @returns {x is number} */ (x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? /** @type {number} */ (v[mid]) : (/** @type {number} */ (v[mid - 1]) + /** @type {number} */ (v[mid])) / 2;
}

const quick = process.env.BENCH_QUICK === "1";
const settings = {
  sizes: intList("BENCH_SIZES", quick ? "10" : "10,100,300"),
  latencies: intList("BENCH_LATENCIES", "0,50"),
  runs: int("BENCH_RUNS", quick ? 1 : 3),
  parallel: process.env.BENCH_PARALLEL ? int("BENCH_PARALLEL", CLI_DEFAULT_PARALLEL) : undefined,
  parallelDiff: process.env.BENCH_PARALLEL_DIFF === "1",
  clientOps: int("BENCH_CLIENT_OPS", quick ? 1000 : 5000),
  clientConcurrency: int("BENCH_CLIENT_CONCURRENCY", 16),
  parts: (process.env.BENCH_PARTS ?? "engine,client").split(",").map((s) => s.trim()),
};

function machine() {
  const cpuinfo = (() => {
    try {
      return readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return "";
    }
  })();
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  return {
    cpu: model.trim(),
    cores: os.availableParallelism(),
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    pulumi: pulumiVersion() ?? "unknown",
    languageHost: process.env.PWE_LANGUAGE_HOST === "stand-in" ? "stand-in (scripts/engine/pulumi-language-nodejs)" : (process.env.PWE_LANGUAGE_HOST ?? "unknown"),
    loadAverage: os.loadavg().map((x) => x.toFixed(2)).join(" "),
  };
}

function reproduceCommand() {
  const knobs = [
    `BENCH_SIZES=${settings.sizes.join(",")}`,
    `BENCH_LATENCIES=${settings.latencies.join(",")}`,
    `BENCH_RUNS=${settings.runs}`,
    `BENCH_CLIENT_OPS=${settings.clientOps}`,
    `BENCH_CLIENT_CONCURRENCY=${settings.clientConcurrency}`,
  ];
  if (settings.parallel !== undefined) knobs.push(`BENCH_PARALLEL=${settings.parallel}`);
  if (settings.parallelDiff) knobs.push("BENCH_PARALLEL_DIFF=1");
  if (process.env.BENCH_PARTS) knobs.push(`BENCH_PARTS=${settings.parts.join(",")}`);
  return `${knobs.join(" ")} npm run bench`;
}

// ---- engine half ------------------------------------------------------------------------------

async function engineBenchmark() {
  if (pulumiVersion() === undefined) throw new Error("the Pulumi CLI is not on PATH: run `npm run bench` (scripts/bench.sh sources scripts/engine.sh)");
  const p = paths(REPO);
  const installed = installPackedPackage(REPO, p, log);
  /** @type {(id: string) => unknown} */
  const load = createRequire(join(REPO, "package.json"));
  const { startEmulator } = /** @type {typeof import("../src/emulator/index.js")} */ (load(join(REPO, "dist/emulator/index.js")));
  const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 0 });
  const parallelArgs = settings.parallel === undefined ? [] : ["--parallel", String(settings.parallel)];
  const extraEnv = settings.parallelDiff ? { PULUMI_PARALLEL_DIFF: "true" } : {};
  /** @type {CycleResult[]} */
  const runs = [];
  let seq = 0;
  try {
    for (const n of settings.sizes) {
      for (const latency of settings.latencies) {
        emulator.configure({ latencyMs: latency });
        for (let r = 0; r < settings.runs; r++) {
          // Alternated, so that machine noise hits both kinds alike.
          for (const kind of /** @type {const} */ (["ours", "floor"])) {
            const id = `${++seq}-${kind}-n${n}-l${latency}`;
            const started = Date.now();
            const result = await cycle({ p, kind, n, latency, emulator, token: TOKEN, id, extraEnv, parallelArgs });
            runs.push(result);
            log(
              `${id}: ${OPS.map((op) => `${op} ${(result.ms[op] / 1000).toFixed(2)}s`).join(", ")} (cycle ${((Date.now() - started) / 1000).toFixed(1)}s)`,
            );
          }
        }
      }
    }
  } finally {
    await emulator.close();
  }
  return { runs, packageVersion: installed.version };
}

// ---- table ------------------------------------------------------------------------------------

/** @type {Record<"s" | "ratio" | "calls" | "bytes" | "mb" | "cpu" | "ops", (x: number) => string>} */
const fmt = {
  s: (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "–"),
  ratio: (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–"),
  calls: (x) => (Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : x.toFixed(2)) : "–"),
  bytes: (x) => (Number.isFinite(x) ? String(Math.round(x)) : "–"),
  mb: (x) => (Number.isFinite(x) && x > 0 ? (x / 2 ** 20).toFixed(1) : "–"),
  cpu: (x) => (Number.isFinite(x) ? x.toFixed(2) : "–"),
  ops: (x) => (Number.isFinite(x) ? x.toFixed(0) : "–"),
};

/** @param {Op} op */
function effectiveParallel(op) {
  if (op === "preview" && !settings.parallelDiff) return 1; // the engine calls Diff serially by default
  return settings.parallel ?? CLI_DEFAULT_PARALLEL;
}

/** @typedef {(string | number)[]} Row */

/**
 * @param {EngineResults | undefined} engine
 * @param {ClientResult[] | undefined} client
 * @returns {{ rows: Row[], notes: string[] }}
 */
function buildRows(engine, client) {
  /** @type {Row[]} */
  const rows = [];
  /** @type {string[]} */
  const notes = [];
  if (engine) {
    /**
     * @param {import("./engine.mjs").Kind} kind
     * @param {number} n
     * @param {number} [latency] undefined: every latency
     */
    const select = (kind, n, latency) => engine.runs.filter((r) => r.kind === kind && r.n === n && (latency === undefined || r.latency === latency));
    /**
     * @param {import("./engine.mjs").Kind} kind
     * @param {number} n
     * @param {number} latency
     * @param {Op} op
     */
    const medianMs = (kind, n, latency, op) => median(select(kind, n, latency).map((r) => r.ms[op]));
    for (const n of settings.sizes) {
      for (const latency of settings.latencies) {
        for (const op of OPS) {
          const ours = medianMs("ours", n, latency, op);
          const floor = medianMs("floor", n, latency, op);
          const calls = select("ours", n, latency).map((r) => r.calls[op]);
          const list = median(calls.map((c) => c.list));
          const create = median(calls.map((c) => c.create));
          const other = Math.max(...calls.map((c) => c.other));
          if (other > 0) notes.push(`N=${n} latency ${latency} ms ${op}: ${other} other (non-API) requests per endpoint`);
          const spread = new Set(calls.map((c) => `${c.list}/${c.create}`));
          if (spread.size > 1) notes.push(`N=${n} latency ${latency} ms ${op}: API calls varied between runs (${[...spread].join(", ")} list/create per endpoint)`);
          rows.push([`${op} (s)`, n, latency, fmt.s(ours), fmt.s(floor), fmt.ratio(ours / floor), fmt.calls(list), fmt.calls(create)]);
        }
      }
      const zero = settings.latencies.includes(0) ? 0 : undefined;
      if (zero !== undefined) {
        for (const latency of settings.latencies.filter((l) => l > 0)) {
          for (const op of OPS) {
            const added =
              medianMs("ours", n, latency, op) - medianMs("ours", n, 0, op) - (medianMs("floor", n, latency, op) - medianMs("floor", n, 0, op));
            const rounds = Math.ceil(n / effectiveParallel(op));
            const budget = op === "destroy" ? 0 : rounds * latency;
            rows.push([
              `${op}: added by latency (s) vs budget (s)`,
              n,
              latency,
              fmt.s(added),
              fmt.s(budget),
              budget > 0 ? fmt.ratio(added / budget) : "–",
              "",
              "",
            ]);
          }
        }
      }
      const all = (/** @type {import("./engine.mjs").Kind} */ kind) => select(kind, n);
      /**
       * @param {import("./engine.mjs").Kind} kind
       * @param {(r: CycleResult) => number} f
       */
      const st = (kind, f) => median(all(kind).map((r) => f(r)));
      rows.push(["__provider (B/endpoint)", n, "all", fmt.bytes(st("ours", (r) => r.state.providerBytes)), fmt.bytes(st("floor", (r) => r.state.providerBytes)), fmt.ratio(st("ours", (r) => r.state.providerBytes) / st("floor", (r) => r.state.providerBytes)), "", ""]);
      rows.push(["state (B/endpoint)", n, "all", fmt.bytes(st("ours", (r) => r.state.resourceBytes)), fmt.bytes(st("floor", (r) => r.state.resourceBytes)), fmt.ratio(st("ours", (r) => r.state.resourceBytes) / st("floor", (r) => r.state.resourceBytes)), "", ""]);
      for (const [key, label] of /** @type {const} */ ([
        ["provider", "peak RSS provider host, up (MB)"],
        ["program", "peak RSS program, up (MB)"],
        ["engine", "peak RSS pulumi CLI, up (MB)"],
      ])) {
        const o = st("ours", (r) => r.memory[key]);
        const f = st("floor", (r) => r.memory[key]);
        rows.push([label, n, "all", fmt.mb(o), fmt.mb(f), fmt.ratio(o / f), "", ""]);
      }
      const total = (/** @type {import("./engine.mjs").Cpu} */ cpu) => cpu.engine + cpu.provider + cpu.program + cpu.other + cpu.bench;
      /**
       * @param {string} label
       * @param {Op} op
       * @param {(cpu: import("./engine.mjs").Cpu) => number} f
       */
      const cpuRow = (label, op, f) => {
        const o = st("ours", (r) => f(r.cpu[op]));
        const fl = st("floor", (r) => f(r.cpu[op]));
        rows.push([label, n, "all", fmt.cpu(o), fmt.cpu(fl), fmt.ratio(o / fl), "", ""]);
      };
      cpuRow("CPU up: provider host (s)", "up", (c) => c.provider);
      cpuRow("CPU up: program (s)", "up", (c) => c.program);
      for (const op of OPS) cpuRow(`CPU ${op}: all processes (s)`, op, total);
      for (const r of all("ours").concat(all("floor"))) {
        if (r.seen.provider === 0 || r.seen.program === 0) {
          notes.push(`N=${n} ${r.kind}: a process was not sampled during up (provider ${r.seen.provider}, program ${r.seen.program})`);
        }
      }
    }
  }
  if (client) {
    for (const c of client) {
      rows.push([`client ${c.name} (ops/s)`, "", 0, fmt.ops(c.client), fmt.ops(c.bare), fmt.ratio(c.client / c.bare), "", ""]);
      rows.push([`client ${c.name} (CPU µs/op, lower is better)`, "", 0, fmt.ops(c.clientCpuMicros), fmt.ops(c.bareCpuMicros), fmt.ratio(c.clientCpuMicros / c.bareCpuMicros), "", ""]);
    }
  }
  return { rows, notes: [...new Set(notes)] };
}

/** @param {Row[]} rows */
function markdownTable(rows) {
  const header = ["metric", "N", "latency ms", "ours", "floor / bare", "ours ÷ floor", "list/endpoint", "create/endpoint"];
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const width = (/** @type {number} */ i) => widths[i] ?? 0;
  const line = (/** @type {string[]} */ r) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(width(i)) : c.padStart(width(i)))).join(" | ")} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...rows.map((r) => line(r.map(String)))].join("\n");
}

const LEGEND = `- Times: wall time of the CLI command, median of the runs of each cell; each run is a fresh file:// backend and stack
  (init → up → preview → refresh → destroy → rm), ours and floor alternated. up/refresh/destroy use --skip-preview.
- floor: the same program with a no-op dynamic provider (create returns at once, diff says no changes, read returns the
  props, delete does nothing): same resources, same outputs, same additionalSecretOutputs. It makes no API call.
- list/endpoint, create/endpoint: API requests the emulator received during the operation, per endpoint (ours, median).
- "added by latency": (ours at L − ours at 0) − (floor at L − floor at 0); budget = one round trip per endpoint on the
  critical path = ceil(N / P) × L, with P = --parallel (CLI default: cores × 4) for up/refresh/destroy, and P = 1 for preview
  because the engine calls Diff serially unless PULUMI_PARALLEL_DIFF is set (BENCH_PARALLEL_DIFF=1).
- __provider: bytes of the serialized provider in each resource's outputs (the inputs hold the same text again);
  state: bytes of each resource's entry in \`pulumi stack export\`, compact JSON.
- peak RSS: VmHWM of the processes running @pulumi/pulumi cmd/dynamic-provider, cmd/run, and the pulumi CLI, polled
  every 100 ms from /proc during up; median over all runs of that N.
- CPU: utime + stime from /proc of the same processes (provider host, program) during the command; "all processes" adds
  the CLI, the language host and plugin shells, and this benchmark process (which hosts the emulator); median over all
  runs of that N. On a machine with few cores, CPU is what turns into wall time.
- client: WebhooksClient vs a bare undici.request loop (keep-alive Agent, same bodies and headers, JSON.parse),
  emulator in a separate process at latency 0, ${settings.clientConcurrency} in flight, ${settings.clientOps} ops per trial,
  ${settings.runs} trials each alternated after a warm-up; median ops/s, and median CPU time of the benchmark process per
  call (the emulator runs elsewhere, so this is the client's own cost and steadier than ops/s on a busy machine). Every call must reach the emulator as exactly one
  request, two for create (checked): list pages start at distinct real cursors (the client coalesces identical concurrent
  lists); a create lists by name first on both sides, as WebhooksClient.create does so as never to duplicate an endpoint; and
  the store is emptied before each create trial, which is capped at 2000 creates (the emulator copies its whole store
  on every create, so a growing store would throttle both sides alike).`;

async function main() {
  const info = machine();
  const command = reproduceCommand();
  const header = [
    `machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.os}`,
    `node ${info.node}, pulumi ${info.pulumi}, language host: ${info.languageHost}, load average at start: ${info.loadAverage}`,
    `engine settings: --parallel ${settings.parallel ?? `${CLI_DEFAULT_PARALLEL} (CLI default)`}, diff ${settings.parallelDiff ? "parallel (PULUMI_PARALLEL_DIFF=true)" : "serial (engine default)"}; program in plain JavaScript (no ts-node) for both kinds`,
    `reproduce: ${command}`,
  ];
  for (const line of header) console.log(line);
  log(`settings: ${JSON.stringify(settings)}`);

  const engine = settings.parts.includes("engine") ? await engineBenchmark() : undefined;
  /** @type {ClientResult[] | undefined} */
  let client;
  if (settings.parts.includes("client")) {
    log(`client micro-benchmark: ${settings.clientOps} ops x ${settings.runs} trials, ${settings.clientConcurrency} in flight`);
    client = await clientBenchmark({ repo: REPO, ops: settings.clientOps, concurrency: settings.clientConcurrency, runs: settings.runs, log });
  }
  const { rows, notes } = buildRows(engine, client);
  const table = markdownTable(rows);
  console.log("");
  console.log(table);
  for (const note of notes) console.log(`note: ${note}`);

  const outDir = join(REPO, ".e2e", "bench");
  mkdirSync(outDir, { recursive: true });
  const md = [
    "# Benchmark results",
    "",
    ...header.map((line) => `- ${line}`),
    engine ? `- package version: ${engine.packageVersion} (packed tarball)` : "",
    `- load average at end: ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`,
    "",
    table,
    "",
    ...notes.map((n) => `- note: ${n}`),
    "",
    LEGEND,
    "",
  ].join("\n");
  writeFileSync(join(outDir, "results.md"), md);
  writeFileSync(join(outDir, "results.json"), JSON.stringify({ machine: info, settings, command, engine, client }, null, 2));
  log(`wrote ${join(outDir, "results.md")} and results.json`);
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
