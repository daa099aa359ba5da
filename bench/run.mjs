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
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { clientBenchmark } from "./client.mjs";
import { cycle, hasPulumi, installPackedPackage, paths, pulumiVersion } from "./engine.mjs";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OPS = ["up", "preview", "refresh", "destroy"];
const TOKEN = "bench_tok_3f9d1c7e5a2b4860";
// The CLI's --parallel default: $PULUMI_PARALLEL, else GOMAXPROCS x 4 (pkg/cmd/pulumi/operations/up.go).
const CLI_DEFAULT_PARALLEL = Number(process.env.PULUMI_PARALLEL) > 0 ? Number(process.env.PULUMI_PARALLEL) : os.availableParallelism() * 4;

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

function intList(name, fallback) {
  const raw = process.env[name] ?? fallback;
  const values = raw.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 0)) throw new Error(`${name} must be a comma-separated list of non-negative integers, got "${raw}"`);
  return values;
}

function int(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function median(values) {
  const v = values.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
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
    pulumi: pulumiVersion(),
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
  if (!hasPulumi()) throw new Error("the Pulumi CLI is not on PATH: run `npm run bench` (scripts/bench.sh sources scripts/engine.sh)");
  const p = paths(REPO);
  const installed = installPackedPackage(REPO, p, log);
  const require = createRequire(join(REPO, "package.json"));
  const { startEmulator } = require(join(REPO, "dist/emulator/index.js"));
  const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 0 });
  const parallelArgs = settings.parallel === undefined ? [] : ["--parallel", String(settings.parallel)];
  const extraEnv = settings.parallelDiff ? { PULUMI_PARALLEL_DIFF: "true" } : {};
  const runs = [];
  let seq = 0;
  try {
    for (const n of settings.sizes) {
      for (const latency of settings.latencies) {
        emulator.configure({ latencyMs: latency });
        for (let r = 0; r < settings.runs; r++) {
          // Alternated, so that machine noise hits both kinds alike.
          for (const kind of ["ours", "floor"]) {
            const id = `${++seq}-${kind}-n${n}-l${latency}`;
            const started = Date.now();
            const result = await cycle({ p, kind, n, emulator, token: TOKEN, id, extraEnv, parallelArgs });
            result.latency = latency;
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

const fmt = {
  s: (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "–"),
  ratio: (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–"),
  calls: (x) => (Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : x.toFixed(2)) : "–"),
  bytes: (x) => (Number.isFinite(x) ? String(Math.round(x)) : "–"),
  mb: (x) => (Number.isFinite(x) && x > 0 ? (x / 2 ** 20).toFixed(1) : "–"),
  cpu: (x) => (Number.isFinite(x) ? x.toFixed(2) : "–"),
  ops: (x) => (Number.isFinite(x) ? x.toFixed(0) : "–"),
};

function effectiveParallel(op) {
  if (op === "preview" && !settings.parallelDiff) return 1; // the engine calls Diff serially by default
  return settings.parallel ?? CLI_DEFAULT_PARALLEL;
}

function buildRows(engine, client) {
  const rows = [];
  const notes = [];
  if (engine) {
    const select = (kind, n, latency) => engine.runs.filter((r) => r.kind === kind && r.n === n && (latency === undefined || r.latency === latency));
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
      const all = (kind) => select(kind, n);
      const st = (kind, f) => median(all(kind).map((r) => f(r)));
      rows.push(["__provider (B/endpoint)", n, "all", fmt.bytes(st("ours", (r) => r.state.providerBytes)), fmt.bytes(st("floor", (r) => r.state.providerBytes)), fmt.ratio(st("ours", (r) => r.state.providerBytes) / st("floor", (r) => r.state.providerBytes)), "", ""]);
      rows.push(["state (B/endpoint)", n, "all", fmt.bytes(st("ours", (r) => r.state.resourceBytes)), fmt.bytes(st("floor", (r) => r.state.resourceBytes)), fmt.ratio(st("ours", (r) => r.state.resourceBytes) / st("floor", (r) => r.state.resourceBytes)), "", ""]);
      for (const [key, label] of [
        ["provider", "peak RSS provider host, up (MB)"],
        ["program", "peak RSS program, up (MB)"],
        ["engine", "peak RSS pulumi CLI, up (MB)"],
      ]) {
        const o = st("ours", (r) => r.memory[key]);
        const f = st("floor", (r) => r.memory[key]);
        rows.push([label, n, "all", fmt.mb(o), fmt.mb(f), fmt.ratio(o / f), "", ""]);
      }
      const total = (cpu) => cpu.engine + cpu.provider + cpu.program + cpu.other + cpu.bench;
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

function markdownTable(rows) {
  const header = ["metric", "N", "latency ms", "ours", "floor / bare", "ours ÷ floor", "list/endpoint", "create/endpoint"];
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
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
  request (checked), so list pages start at distinct real cursors (the client coalesces identical concurrent lists), and
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
