// npm run bench (scripts/bench.sh builds dist/ and puts Node, the Pulumi CLI and the YAML language host on PATH first).
//
// Knobs (environment). BENCH_QUICK=1 changes the defaults marked "quick:"; an explicit knob always wins.
//   BENCH_PARTS=engine,crowd,native,sea,client  which parts to run (and "profile" unless BENCH_PROFILE=0)
//   engine: the main grid, WebhookEndpoint (dynamic face) vs the no-op floor on an empty service (and, at latency 0,
//     the lean floor: the same no-op provider without the closure serializer, see bench/engine.mjs)
//     BENCH_SIZES=10,100,300,1000   endpoints per stack                         quick: 10,20
//     BENCH_LATENCIES=0,50          emulator latency per API call, ms
//     BENCH_RUNS=3                  runs per cell, each a fresh stack; the median is shown   quick: 1
//     BENCH_LARGE_FROM=1000         sizes from this one up run at the first latency only,  quick: 20
//     BENCH_LARGE_RUNS=3            this many times (N = 1000: up, preview, refresh, destroy vs the floor),  quick: 1
//     BENCH_GRID_KINDS=ours,floor,lean,shape which kinds the grid runs (the lean floor and the shape, the lean floor
//                                   with ours' state's shape, at latency 0 only); leaving one out makes a quicker run
//                                   of the others, whose ratios to it are then blank
//     BENCH_SHAPE=text,provenance,... what of ours' state's shape the shape kind takes (default all of it): "text"
//                                   (its provider text's length) and the names of the outputs ours stores that the
//                                   lean floor does not, to measure each apart
//     BENCH_LARGE_CHECKPOINTS=0     with PULUMI_SKIP_CHECKPOINTS=true for both kinds: the file backend rewrites the
//                                   whole state after every step, O(N²), minutes at N = 1000 for ours and the floor
//                                   alike; 1 keeps the engine's default (intermediate checkpoints)
//   crowd: the service pre-filled with other teams' endpoints (created before the stack's, so they come first
//     in the service's id order) at one latency, preview and refresh of the same stack, crowd 0 = the empty service
//     BENCH_CROWD=0,2000,20000      other endpoints on the service               quick: 0,2000
//     BENCH_PAGE_SIZES=50,100       the service's page size (the emulator's maxPageSize) quick: 50
//     BENCH_CROWD_STACKS=12,100     endpoints in the stack (300 if time allows)   quick: 12
//     BENCH_CROWD_LATENCY=20        ms per API call
//     BENCH_CROWD_RUNS=2            runs per cell                                quick: 1
//     BENCH_CROWD_AT=both           when the crowd is created: before the stack's up (its endpoints come last in id
//                                   order), after it (they come first), both (rows for each), middle (half before,
//                                   half after: the stack between them) or all three   quick: before
//   native: the same endpoints as a Pulumi YAML program on the native plugin, vs the dynamic face and the floor
//     BENCH_NATIVE_SIZES=100        (latency 0; the dynamic face and floor come from the main grid when it has
//                                   that size at latency 0, else they are run here)     quick: 10
//     BENCH_NATIVE_RUNS=<BENCH_RUNS>
//   sea: the single-executable plugin (this machine's release archive, built from the checkout by
//     npm run release:archives) against the npm plugin: cold start, and the native face's up and preview (needs the
//     YAML host)
//     BENCH_SEA_SIZE=100            quick: 10
//     BENCH_SEA_RUNS=<BENCH_RUNS>
//     BENCH_SEA_COLD_RUNS=10        cold starts of each, alternated   quick: 3
//   profile (on unless BENCH_PROFILE=0): up, preview, refresh and destroy of one stack at latency 0, instrumented
//     (bench/profile-hook.cjs through NODE_OPTIONS): CPU and heap profiles of the provider host and the program,
//     split by owner (bench/profile.mjs) in a table and notes; the profiles stay in .e2e/bench/profiles
//     BENCH_PROFILE_SIZE=1000       quick: 10
//     BENCH_PROFILE_RUNS=1
//     BENCH_PROFILE_KINDS=ours,lean (floor and shape may be added)
//   BENCH_PARALLEL=<n>            pass --parallel n to up/preview/refresh/destroy (default: the CLI's
// default, cores x 4)
//   BENCH_PARALLEL_DIFF=1         set PULUMI_PARALLEL_DIFF=true (the engine diffs in parallel; default serial)
//   client: BENCH_CLIENT_OPS=5000 (quick: 1000) ops per trial, BENCH_CLIENT_CONCURRENCY=16 in flight
//
// Output: one markdown table on stdout, also written to bench/results/results.md (and results.json, and a copy in
// .e2e/bench/results.md); bench/results/ is output and ignored by git.
// @ts-check
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pulumiVersion } from "../scripts/harness/pulumi.mjs";
import { clientBenchmark } from "./client.mjs";
import { cycle, installPackedPackage, paths, shapeOf } from "./engine.mjs";
import { hostPlatform } from "../scripts/release/platforms.mjs";
import { buildHostArchive, coldStart } from "./plugin.mjs";
import { CATEGORIES, cpuBreakdown, heapBreakdown, listed, shares } from "./profile.mjs";
import { CLI_FRAMES, cliBreakdown } from "./cli-profile.mjs";

/** @typedef {import("./engine.mjs").CycleResult} CycleResult */
/** @typedef {import("./engine.mjs").Op} Op */
/** @typedef {import("./engine.mjs").Kind} Kind */
/** @typedef {import("./engine.mjs").BenchEmulator} BenchEmulator */
/** @typedef {import("./client.mjs").ClientResult} ClientResult */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** @type {Op[]} */
const OPS = ["up", "preview", "refresh", "destroy"];
/** @type {Op[]} */
const CROWD_OPS = ["preview", "refresh"];
/**
 * The provider host's method that each command calls once per endpoint: the profile of a command ends at
 * its n-th answer.
 */
const PROFILED_METHOD = /** @type {const} */ ({
  up: "Create",
  preview: "Diff",
  refresh: "Read",
  destroy: "Delete",
});
const TOKEN = "bench_tok_3f9d1c7e5a2b4860";
// The CLI's --parallel default: $PULUMI_PARALLEL, else GOMAXPROCS x 4 (pkg/cmd/pulumi/operations/up.go).
const CLI_DEFAULT_PARALLEL =
  Number(process.env.PULUMI_PARALLEL) > 0
    ? Number(process.env.PULUMI_PARALLEL)
    : os.availableParallelism() * 4;
/** The emulator's page size when the benchmark does not set one (its maxPageSize default; the client asks for 100). */
const DEFAULT_PAGE = 100;

// Targets: the report flags each miss (results.md, and results.json's misses).
const TARGET = {
  /** Crowded service: list calls per command at most one per endpoint plus this. */
  crowdListSlack: 5,
  /** Crowded service: wall time at most this times the same stack on an empty service. */
  crowdVsEmpty: 1.1,
  /** N >= BENCH_LARGE_FROM: every command at most this times the floor. */
  largeVsFloor: 1.2,
  /** up of 100 endpoints at latency 0: at most this times the floor. */
  up100VsFloor: 1.05,
  /** Every command at latency 0, at these sizes: CPU of all processes at most this times the lean floor's. */
  cpuVsLean: 1.1,
  /** ... and the provider host's peak RSS at most this times the lean floor's. */
  rssVsLean: 1.15,
  /** The sizes at which the two above are judged. */
  leanJudgedSizes: [100, 1000],
};

/** @param {string} message */
function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/**
 * @param {string} name
 * @param {string} fallback
 */
function intList(name, fallback) {
  const raw = process.env[name] || fallback;
  const values = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (values.some((v) => !Number.isInteger(v) || v < 0))
    throw new Error(`${name} must be a comma-separated list of non-negative integers, got "${raw}"`);
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
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/**
 * The median of the finite values; NaN when there are none.
 * @param {readonly (number | undefined)[]} values
 */
function median(values) {
  const v = values
    .filter(/** @returns {x is number} */ (x) => typeof x === "number" && Number.isFinite(x))
    .sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? (v[mid] ?? NaN) : ((v[mid - 1] ?? NaN) + (v[mid] ?? NaN)) / 2;
}

/**
 * @param {string} name
 * @param {string} fallback
 * @returns {Kind[]}
 */
function kindList(name, fallback) {
  const raw = process.env[name] || fallback;
  const kinds = raw.split(",").map((s) => s.trim());
  for (const kind of kinds)
    if (kind !== "ours" && kind !== "floor" && kind !== "lean" && kind !== "shape")
      throw new Error(`${name} must list ours, floor, lean and shape only, got "${raw}"`);
  return /** @type {Kind[]} */ (kinds);
}

/**
 * @param {string} raw
 * @returns {("before" | "after" | "middle")[]}
 */
function crowdAt(raw) {
  if (raw === "before" || raw === "after" || raw === "middle") return [raw];
  if (raw === "both") return ["before", "after"];
  if (raw === "all") return ["before", "after", "middle"];
  throw new Error(
    `BENCH_CROWD_AT must be before, after, middle, both (before and after) or all, got "${raw}"`,
  );
}

const quick = process.env.BENCH_QUICK === "1";
const profileOn = (process.env.BENCH_PROFILE ?? "1") === "1";
const runs = int("BENCH_RUNS", quick ? 1 : 3);
const settings = {
  quick,
  sizes: intList("BENCH_SIZES", quick ? "10,20" : "10,100,300,1000"),
  latencies: intList("BENCH_LATENCIES", "0,50"),
  runs,
  largeFrom: int("BENCH_LARGE_FROM", quick ? 20 : 1000),
  largeRuns: int("BENCH_LARGE_RUNS", quick ? 1 : 3),
  largeCheckpoints: process.env.BENCH_LARGE_CHECKPOINTS === "1",
  crowd: {
    counts: intList("BENCH_CROWD", quick ? "0,2000" : "0,2000,20000"),
    pageSizes: intList("BENCH_PAGE_SIZES", quick ? "50" : "50,100"),
    stacks: intList("BENCH_CROWD_STACKS", quick ? "12" : "12,100"),
    latency: int("BENCH_CROWD_LATENCY", 20, 0),
    runs: int("BENCH_CROWD_RUNS", quick ? 1 : 2),
    at: crowdAt(process.env.BENCH_CROWD_AT || (quick ? "before" : "both")),
  },
  native: {
    sizes: intList("BENCH_NATIVE_SIZES", quick ? "10" : "100"),
    runs: int("BENCH_NATIVE_RUNS", runs),
  },
  profile: {
    enabled: profileOn,
    size: int("BENCH_PROFILE_SIZE", quick ? 10 : 1000),
    runs: int("BENCH_PROFILE_RUNS", 1),
    kinds: kindList("BENCH_PROFILE_KINDS", "ours,lean"),
  },
  gridKinds: kindList("BENCH_GRID_KINDS", "ours,floor,lean,shape"),
  shapeParts: process.env.BENCH_SHAPE
    ? process.env.BENCH_SHAPE.split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined,
  parallel: process.env.BENCH_PARALLEL ? int("BENCH_PARALLEL", CLI_DEFAULT_PARALLEL) : undefined,
  parallelDiff: process.env.BENCH_PARALLEL_DIFF === "1",
  sea: {
    size: int("BENCH_SEA_SIZE", quick ? 10 : 100),
    runs: int("BENCH_SEA_RUNS", runs),
    coldRuns: int("BENCH_SEA_COLD_RUNS", quick ? 3 : 10),
  },
  clientOps: int("BENCH_CLIENT_OPS", quick ? 1000 : 5000),
  clientConcurrency: int("BENCH_CLIENT_CONCURRENCY", 16),
  parts: [
    ...(process.env.BENCH_PARTS ?? "engine,crowd,native,sea,client").split(",").map((s) => s.trim()),
    ...(profileOn ? ["profile"] : []),
  ],
};
if (settings.crowd.pageSizes.some((size) => size < 1)) throw new Error("BENCH_PAGE_SIZES must be positive");
if (settings.latencies.length === 0) throw new Error("BENCH_LATENCIES must name at least one latency");

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
    languageHost:
      process.env.PWE_LANGUAGE_HOST === "stand-in"
        ? "stand-in (scripts/engine/pulumi-language-nodejs)"
        : (process.env.PWE_LANGUAGE_HOST ?? "unknown"),
    yamlHost: process.env.PWE_YAML_HOST ?? "unknown",
    loadAverage: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" "),
  };
}

function reproduceCommand() {
  const knobs = [
    `BENCH_SIZES=${settings.sizes.join(",")}`,
    `BENCH_LATENCIES=${settings.latencies.join(",")}`,
    `BENCH_RUNS=${settings.runs}`,
    `BENCH_LARGE_FROM=${settings.largeFrom}`,
    `BENCH_LARGE_RUNS=${settings.largeRuns}`,
    ...(settings.largeCheckpoints ? ["BENCH_LARGE_CHECKPOINTS=1"] : []),
    `BENCH_CROWD=${settings.crowd.counts.join(",")}`,
    `BENCH_PAGE_SIZES=${settings.crowd.pageSizes.join(",")}`,
    `BENCH_CROWD_STACKS=${settings.crowd.stacks.join(",")}`,
    `BENCH_CROWD_LATENCY=${settings.crowd.latency}`,
    `BENCH_CROWD_RUNS=${settings.crowd.runs}`,
    `BENCH_CROWD_AT=${settings.crowd.at.length === 2 ? "both" : settings.crowd.at[0]}`,
    `BENCH_NATIVE_SIZES=${settings.native.sizes.join(",")}`,
    `BENCH_NATIVE_RUNS=${settings.native.runs}`,
    `BENCH_SEA_SIZE=${settings.sea.size}`,
    `BENCH_SEA_RUNS=${settings.sea.runs}`,
    `BENCH_SEA_COLD_RUNS=${settings.sea.coldRuns}`,
    `BENCH_PROFILE=${settings.profile.enabled ? 1 : 0}`,
    ...(settings.profile.enabled
      ? [
          `BENCH_PROFILE_SIZE=${settings.profile.size}`,
          `BENCH_PROFILE_RUNS=${settings.profile.runs}`,
          `BENCH_PROFILE_KINDS=${settings.profile.kinds.join(",")}`,
        ]
      : []),
    `BENCH_CLIENT_OPS=${settings.clientOps}`,
    `BENCH_CLIENT_CONCURRENCY=${settings.clientConcurrency}`,
  ];
  if (settings.gridKinds.length < 4) knobs.push(`BENCH_GRID_KINDS=${settings.gridKinds.join(",")}`);
  if (settings.shapeParts !== undefined) knobs.push(`BENCH_SHAPE=${settings.shapeParts.join(",")}`);
  if (settings.parallel !== undefined) knobs.push(`BENCH_PARALLEL=${settings.parallel}`);
  if (settings.parallelDiff) knobs.push("BENCH_PARALLEL_DIFF=1");
  if (process.env.BENCH_PARTS) knobs.push(`BENCH_PARTS=${process.env.BENCH_PARTS}`);
  return `${knobs.join(" ")} npm run bench`;
}

/** Parts left out, and why: printed as notes. @type {string[]} */
const skipped = [];

/**
 * Whether an executable of this name is on PATH.
 * @param {string} name
 */
function onPath(name) {
  return (process.env.PATH ?? "").split(":").some((dir) => {
    try {
      accessSync(join(dir || ".", name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** @param {number} n */
function isLarge(n) {
  return n >= settings.largeFrom;
}

/** The main grid's cells: large sizes run at the first latency only. */
function gridLatencies(/** @type {number} */ n) {
  return isLarge(n) ? settings.latencies.slice(0, 1) : settings.latencies;
}

// ---- the crowd: other teams' endpoints ------------------------------------------------------------

/**
 * Fills the service with `count` endpoints of 40 other teams, through the emulator's addRecord (the create
 * rules, without latency, log or counters; the admin route POST /__emulator/records does the same over HTTP).
 * @param {BenchEmulator} emulator
 * @param {number} count
 * @param {number} [from] the first endpoint's number (names stay distinct across calls)
 */
function seedCrowd(emulator, count, from = 0) {
  for (let i = from; i < from + count; i++) {
    const team = i % 40;
    emulator.addRecord({
      webhook_name: `team-${team}-hook-${i}`,
      webhook_url: `https://team-${team}.example.net/hooks/${i}`,
    });
  }
}

// ---- the engine parts --------------------------------------------------------------------------------

/**
 * @typedef {object} EngineResults
 * @property {CycleResult[]} runs
 * @property {string} packageVersion
 * @property {SeaResults | undefined} [sea]
 */
/**
 * @typedef {object} SeaResults
 * @property {import("./plugin.mjs").PluginArchive} archive
 * @property {{ sea: import("./plugin.mjs").ColdStart[], npm: import("./plugin.mjs").ColdStart[] }} cold
 */

async function engineBenchmark() {
  if (pulumiVersion() === undefined)
    throw new Error(
      "the Pulumi CLI is not on PATH: run `npm run bench` (scripts/bench.sh sources scripts/engine.sh)",
    );
  const p = paths(REPO);
  const installed = installPackedPackage(REPO, p, log);
  /** @type {(id: string) => unknown} */
  const load = createRequire(join(REPO, "package.json"));
  const { startEmulator } = /** @type {typeof import("../src/emulator/index.js")} */ (
    load(join(REPO, "dist/emulator/index.js"))
  );
  // A request log long enough for every request of the largest command (1000 endpoints: 2000 during up).
  const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 0, requestLogLimit: 100_000 });
  const defaults = {
    maxPageSize: emulator.options().maxPageSize,
    defaultPageSize: emulator.options().defaultPageSize,
  };
  const parallelArgs = settings.parallel === undefined ? [] : ["--parallel", String(settings.parallel)];
  /** @type {Record<string, string>} */
  const extraEnv = settings.parallelDiff ? { PULUMI_PARALLEL_DIFF: "true" } : {};
  /** @type {CycleResult[]} */
  const results = [];
  /** @type {SeaResults | undefined} */
  let sea;
  let seq = 0;
  /**
   * @param {Omit<import("./engine.mjs").CycleOptions, "p" | "emulator" | "token" | "id" | "extraEnv" |
   * "parallelArgs"> & { label?: string }} options
   */
  const run = async (options) => {
    const id = `${++seq}-${options.kind}-n${options.n}-l${options.latency}${options.crowd === undefined ? "" : `-c${options.crowd}${options.crowdAt === "after" ? "a" : options.crowdAt === "middle" ? "m" : ""}-p${options.pageSize}`}`;
    const started = Date.now();
    const result = await cycle({ ...options, p, emulator, token: TOKEN, id, extraEnv, parallelArgs });
    results.push(result);
    const timed = OPS.filter((op) => result.ms[op] !== undefined);
    const lists = timed.map(
      (op) =>
        `${op} ${((result.ms[op] ?? 0) / 1000).toFixed(2)}s${options.kind === "floor" ? "" : `/${result.calls[op]?.list ?? 0}L`}`,
    );
    log(
      `${id}${options.label ? ` (${options.label})` : ""}: ${lists.join(", ")} (cycle ${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );
    return result;
  };
  const emptyService = (/** @type {number} */ latency) => (/** @type {BenchEmulator} */ e) => {
    e.reset();
    e.configure({ latencyMs: latency, ...defaults });
  };
  const partStarted = (/** @type {string} */ part) => {
    const at = Date.now();
    return () => log(`${part}: ${((Date.now() - at) / 60_000).toFixed(1)} min`);
  };

  /**
   * The state's shape of ours, which the shape kind takes: read off a stack of two endpoints of ours and one of
   * the lean floor (neither timed nor reported), once, before any kind that needs it runs.
   * @type {import("./engine.mjs").Shape | undefined}
   */
  let shape;
  const shapeNeeded =
    (settings.parts.includes("engine") && settings.gridKinds.includes("shape")) ||
    (settings.parts.includes("profile") && settings.profile.kinds.includes("shape"));
  if (shapeNeeded) {
    const probe = (/** @type {Kind} */ kind) =>
      cycle({
        p,
        emulator,
        token: TOKEN,
        id: `${++seq}-shape-probe-${kind}`,
        kind,
        n: 2,
        latency: 0,
        extraEnv,
        parallelArgs,
        ops: [],
        sample: true,
        prepare: emptyService(0),
      });
    shape = shapeOf(await probe("ours"), await probe("lean"), settings.shapeParts);
    log(
      `the shape kind takes ${shape.textBytes > 0 ? `ours' provider text's length (${shape.textBytes} B)` : "the lean floor's provider text"} and ours' outputs ${Object.keys(shape.outputs).join(", ") || "(none)"}`,
    );
  }

  try {
    if (settings.parts.includes("engine")) {
      const done = partStarted("engine (main grid)");
      for (const n of settings.sizes) {
        for (const latency of gridLatencies(n)) {
          for (let r = 0; r < (isLarge(n) ? settings.largeRuns : settings.runs); r++) {
            // Alternated, so that machine noise hits every kind alike, and the order rotated from run to
            // run, so that none always goes first (a warm cache, or the previous run's leftovers); the
            // lean floor and the shape at latency 0 only (they make no call, so latency changes nothing for them).
            /** @type {Kind[]} */
            const kinds = settings.gridKinds.filter(
              (kind) => latency === 0 || (kind !== "lean" && kind !== "shape"),
            );
            for (const kind of kinds.map((_, i) => kinds[(i + r) % kinds.length] ?? "ours")) {
              const env = isLarge(n) && !settings.largeCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
              await run({ kind, n, latency, tag: "grid", prepare: emptyService(latency), env, shape });
            }
          }
        }
      }
      done();
    }

    if (settings.parts.includes("crowd") && settings.crowd.stacks.length > 0) {
      const done = partStarted("crowd");
      const latency = settings.crowd.latency;
      for (let r = 0; r < settings.crowd.runs; r++) {
        for (const n of settings.crowd.stacks) {
          await run({ kind: "floor", n, latency, tag: "crowd", ops: CROWD_OPS });
          for (const pageSize of settings.crowd.pageSizes) {
            for (const at of settings.crowd.at) {
              for (const crowd of settings.crowd.counts) {
                if (crowd === 0 && at !== settings.crowd.at[0]) continue; // the empty service once
                const configure = (/** @type {BenchEmulator} */ e) => {
                  e.reset();
                  e.configure({
                    latencyMs: latency,
                    maxPageSize: pageSize,
                    defaultPageSize: Math.min(pageSize, defaults.defaultPageSize),
                  });
                };
                const half = Math.floor(crowd / 2);
                /** @type {Partial<import("./engine.mjs").CycleOptions>} */
                const seeding =
                  at === "before"
                    ? { prepare: (e) => (configure(e), seedCrowd(e, crowd)) }
                    : at === "after"
                      ? { prepare: configure, afterUp: (e) => seedCrowd(e, crowd) }
                      : {
                          prepare: (e) => (configure(e), seedCrowd(e, half)),
                          afterUp: (e) => seedCrowd(e, crowd - half, half),
                        };
                await run({
                  kind: "ours",
                  n,
                  latency,
                  crowd,
                  crowdAt: at,
                  pageSize,
                  tag: "crowd",
                  ops: CROWD_OPS,
                  ...seeding,
                });
              }
            }
          }
        }
      }
      emulator.configure({ latencyMs: 0, ...defaults });
      done();
    }

    if (settings.parts.includes("native") && !onPath("pulumi-language-yaml")) {
      skipped.push(
        "native (YAML) rows skipped: pulumi-language-yaml is not on PATH (source scripts/engine-yaml.sh, as scripts/bench.sh does)",
      );
      log(skipped.at(-1) ?? "");
    } else if (settings.parts.includes("native")) {
      const done = partStarted("native");
      for (const n of settings.native.sizes) {
        const fromGrid = results.some(
          (r) => r.tag === "grid" && r.kind === "ours" && r.n === n && r.latency === 0,
        );
        for (let r = 0; r < settings.native.runs; r++) {
          await run({ kind: "native", n, latency: 0, tag: "native", prepare: emptyService(0) });
          if (!fromGrid) {
            await run({ kind: "ours", n, latency: 0, tag: "native", prepare: emptyService(0) });
            await run({ kind: "floor", n, latency: 0, tag: "native" });
          }
        }
      }
      done();
    }

    if (settings.parts.includes("sea") && !onPath("pulumi-language-yaml")) {
      skipped.push(
        "single-executable rows skipped: pulumi-language-yaml is not on PATH (scripts/engine-yaml.sh)",
      );
      log(skipped.at(-1) ?? "");
    } else if (settings.parts.includes("sea")) {
      const done = partStarted("sea");
      log("building this machine's release archive: npm run release:archives");
      const archive = buildHostArchive(REPO, join(p.root, "sea"));
      const npmPlugin = join(p.bin, "pulumi-resource-webhooks");
      /** @type {{ sea: import("./plugin.mjs").ColdStart[], npm: import("./plugin.mjs").ColdStart[] }} */
      const cold = { sea: [], npm: [] };
      for (let r = 0; r < settings.sea.coldRuns; r++) {
        // Alternated, the order rotated, as in the grid.
        for (const which of r % 2 === 0
          ? /** @type {const} */ (["sea", "npm"])
          : /** @type {const} */ (["npm", "sea"]))
          cold[which].push(await coldStart(which === "sea" ? archive.executable : npmPlugin));
      }
      const n = settings.sea.size;
      for (let r = 0; r < settings.sea.runs; r++) {
        const runSea = () =>
          run({
            kind: "native",
            n,
            latency: 0,
            tag: "sea",
            ops: ["preview"],
            pluginDir: archive.dir,
            prepare: emptyService(0),
            label: "single executable",
          });
        const runNpm = () =>
          run({
            kind: "native",
            n,
            latency: 0,
            tag: "sea-npm",
            ops: ["preview"],
            prepare: emptyService(0),
            label: "npm plugin",
          });
        if (r % 2 === 0) await runSea().then(runNpm);
        else await runNpm().then(runSea);
      }
      sea = { archive, cold };
      done();
    }

    if (settings.parts.includes("profile")) {
      const done = partStarted("profile");
      const n = settings.profile.size;
      const hook = join(REPO, "bench", "profile-hook.cjs");
      // The CLI's own profile too, where Go's pprof can read it.
      const cliProfiled = onPath("go");
      if (!cliProfiled)
        skipped.push("the CLI's own profile skipped: no go on PATH to read it (go tool pprof)");
      for (let r = 0; r < settings.profile.runs; r++) {
        for (const kind of settings.profile.kinds) {
          /** @type {Partial<Record<Op, Record<string, string>>>} */
          const opEnv = {};
          /** @type {Partial<Record<Op, string>>} */
          const profileDirs = {};
          /** @type {Partial<Record<Op, string>>} */
          const cliProfiles = {};
          for (const op of OPS) {
            const profileDir = join(p.profiles, `${kind}-${r + 1}-${op}`);
            rmSync(profileDir, { recursive: true, force: true });
            profileDirs[op] = profileDir;
            if (cliProfiled) {
              mkdirSync(profileDir, { recursive: true });
              cliProfiles[op] = join(profileDir, "cli");
            }
            opEnv[op] = {
              NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${JSON.stringify(hook)}`.trim(),
              BENCH_PROFILE_OUT: profileDir,
              BENCH_PROFILE_METHOD: PROFILED_METHOD[op],
              BENCH_PROFILE_EXPECT: String(n),
              BENCH_PROFILE_PROGRAM: "1",
            };
          }
          const env = isLarge(n) && !settings.largeCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
          await run({
            kind,
            n,
            latency: 0,
            tag: "profile",
            opEnv,
            profileDirs,
            cliProfiles,
            env,
            shape,
            prepare: emptyService(0),
            label: "instrumented",
          });
        }
      }
      done();
    }
  } finally {
    await emulator.close();
  }
  return { runs: results, packageVersion: installed.version, sea };
}

// ---- table ------------------------------------------------------------------------------------

/**
 * @type {Record<"s" | "ratio" | "calls" | "bytes" | "kb" | "mb" | "cpu" | "ops" | "ms" | "pct", (x: number)
 * => string>}
 */
const fmt = {
  s: (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "–"),
  ratio: (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–"),
  calls: (x) => (Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : x.toFixed(2)) : "–"),
  bytes: (x) => (Number.isFinite(x) ? String(Math.round(x)) : "–"),
  kb: (x) => (Number.isFinite(x) && x > 0 ? (x / 1024).toFixed(0) : "–"),
  mb: (x) => (Number.isFinite(x) && x > 0 ? (x / 2 ** 20).toFixed(1) : "–"),
  cpu: (x) => (Number.isFinite(x) ? x.toFixed(2) : "–"),
  ops: (x) => (Number.isFinite(x) ? x.toFixed(0) : "–"),
  ms: (x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : "–"),
  pct: (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "–"),
};

/** @param {Op} op */
function effectiveParallel(op) {
  if (op === "preview" && !settings.parallelDiff) return 1; // the engine calls Diff serially by default
  return settings.parallel ?? CLI_DEFAULT_PARALLEL;
}

const HEADER = [
  "metric",
  "N",
  "latency ms",
  "crowd / page",
  "ours",
  "floor / bare",
  "ours ÷ floor",
  "baseline",
  "ours ÷ baseline",
  "list calls",
  "name / scan / URL",
  "list/endpoint",
  "create/endpoint",
  "target",
];

/**
 * One row of the table: named cells, the rest empty.
 * @typedef {object} RowCells
 * @property {string} metric
 * @property {string | number} [n]
 * @property {string | number} [latency]
 * @property {string} [crowd]
 * @property {string} [ours]
 * @property {string} [floor]
 * @property {string} [vsFloor]
 * @property {string} [baseline]
 * @property {string} [vsBaseline]
 * @property {string} [lists]
 * @property {string} [split]
 * @property {string} [listPer]
 * @property {string} [createPer]
 * @property {string} [target]
 */

/** @param {RowCells} c */
function row(c) {
  return [
    c.metric,
    c.n ?? "",
    c.latency ?? "",
    c.crowd ?? "",
    c.ours ?? "",
    c.floor ?? "",
    c.vsFloor ?? "",
    c.baseline ?? "",
    c.vsBaseline ?? "",
    c.lists ?? "",
    c.split ?? "",
    c.listPer ?? "",
    c.createPer ?? "",
    c.target ?? "",
  ].map(String);
}

/**
 * @param {boolean} ok
 * @param {string} what
 */
function verdict(ok, what) {
  return `${what} ${ok ? "✓" : "✗"}`;
}

/**
 * The grid's rows judged against the lean floor, for one size at one latency: per command, the CPU of
 * all processes and the provider host's peak RSS, each with its target at the judged sizes.
 * @param {{ n: number, latency: number, ours: CycleResult[], floor: CycleResult[], lean: CycleResult[],
 * rows: string[][], misses: string[] }} cells
 */
function leanRows({ n, latency, ours, floor, lean, rows, misses }) {
  const judged = TARGET.leanJudgedSizes.includes(n);
  /**
   * @param {string} metric
   * @param {Op} op
   * @param {(r: CycleResult) => number | undefined} f
   * @param {(x: number) => string} format
   * @param {number} limit
   * @param {string} what the figure, in a miss's words
   */
  const judge = (metric, op, f, format, limit, what) => {
    const o = median(ours.map(f));
    const l = median(lean.map(f));
    const fl = median(floor.map(f));
    const ratio = o / l;
    const ok = ratio <= limit;
    // Judged where ours ran (a run of the floors alone, BENCH_GRID_KINDS=lean,shape, judges nothing).
    const judging = judged && Number.isFinite(ratio);
    if (judging && !ok)
      misses.push(
        `N=${n} ${op}: ${what} ${fmt.ratio(ratio)} the lean floor's (${format(o)} vs ${format(l)}; target ≤${limit}×)`,
      );
    rows.push(
      row({
        metric: `${metric}; baseline: lean floor`,
        n,
        latency,
        crowd: `0 / ${DEFAULT_PAGE}`,
        ours: format(o),
        floor: format(fl),
        vsFloor: fmt.ratio(o / fl),
        baseline: format(l),
        vsBaseline: fmt.ratio(ratio),
        target: judging ? verdict(ok, `≤${limit.toFixed(2)}× lean floor`) : "",
      }),
    );
  };
  for (const op of OPS)
    judge(
      `CPU ${op}, all processes (s)`,
      op,
      (r) => r.cpu[op]?.all,
      fmt.cpu,
      TARGET.cpuVsLean,
      "CPU of all processes",
    );
  for (const op of OPS)
    judge(
      `peak RSS provider host, ${op} (MB)`,
      op,
      (r) => r.memory[op]?.provider,
      fmt.mb,
      TARGET.rssVsLean,
      "the provider host's peak RSS",
    );
}

/**
 * The summary against the lean floor: per size (at latency 0) and command, medians of wall time, CPU of all
 * processes, of the provider host, the program and the CLI with the rest, the emulator's CPU (the service, not in
 * "all"), and the provider host's peak RSS, each with ours ÷ lean; ✗ marks a judged figure past its target. Where
 * the shape kind ran, CPU of all processes splits ours ÷ lean into what ours' state's shape costs the engine
 * (shape ÷ lean) and what ours' code costs on top of it (ours ÷ shape).
 * @param {CycleResult[]} all
 * @returns {string}
 */
function leanFloorTable(all) {
  const grid = all.filter((r) => r.tag === "grid" && r.latency === 0);
  const sizes = [...new Set(grid.filter((r) => r.kind === "lean").map((r) => r.n))];
  if (sizes.length === 0) return "";
  const withShape = grid.some((r) => r.kind === "shape");
  const header = [
    "N",
    "command",
    "wall ours / lean (s)",
    "÷",
    "CPU all ours / lean (s)",
    "÷",
    ...(withShape ? ["CPU all shape (s)", "shape ÷ lean", "ours ÷ shape"] : []),
    "host CPU ours / lean (s)",
    "÷",
    "program CPU ÷",
    "CLI and rest CPU ÷",
    "emulator CPU ours (s)",
    "host peak RSS ours / lean (MB)",
    "÷",
  ];
  /** @type {string[][]} */
  const lines = [];
  for (const n of sizes) {
    const ours = grid.filter((r) => r.n === n && r.kind === "ours");
    const lean = grid.filter((r) => r.n === n && r.kind === "lean");
    const shaped = grid.filter((r) => r.n === n && r.kind === "shape");
    const judged = TARGET.leanJudgedSizes.includes(n);
    for (const op of OPS) {
      const pair = (/** @type {(r: CycleResult) => number | undefined} */ f) => {
        const o = median(ours.map(f));
        const l = median(lean.map(f));
        return { o, l, ratio: o / l };
      };
      const flagged = (/** @type {number} */ ratio, /** @type {number} */ limit) =>
        `${fmt.ratio(ratio)}${judged && Number.isFinite(ratio) && !(ratio <= limit) ? " ✗" : ""}`;
      const wall = pair((r) => r.ms[op]);
      const cpu = pair((r) => r.cpu[op]?.all);
      const host = pair((r) => r.cpu[op]?.provider);
      const program = pair((r) => r.cpu[op]?.program);
      const rest = pair((r) => {
        const c = r.cpu[op];
        return c === undefined ? undefined : c.all - c.provider - c.program;
      });
      const rss = pair((r) => r.memory[op]?.provider);
      lines.push([
        String(n),
        op,
        `${fmt.s(wall.o)} / ${fmt.s(wall.l)}`,
        fmt.ratio(wall.ratio),
        `${fmt.cpu(cpu.o)} / ${fmt.cpu(cpu.l)}`,
        flagged(cpu.ratio, TARGET.cpuVsLean),
        ...(withShape
          ? (() => {
              const sh = median(shaped.map((r) => r.cpu[op]?.all));
              return [fmt.cpu(sh), fmt.ratio(sh / cpu.l), fmt.ratio(cpu.o / sh)];
            })()
          : []),
        `${fmt.cpu(host.o)} / ${fmt.cpu(host.l)}`,
        fmt.ratio(host.ratio),
        program.l > 0 ? fmt.ratio(program.ratio) : "–",
        fmt.ratio(rest.ratio),
        fmt.cpu(median(ours.map((r) => r.cpu[op]?.bench))),
        `${fmt.mb(rss.o)} / ${fmt.mb(rss.l)}`,
        flagged(rss.ratio, TARGET.rssVsLean),
      ]);
    }
  }
  return simpleTable(header, lines);
}

/**
 * The profile part: per command and kind, the provider host's (and the program's) CPU by owner (bench/profile.mjs),
 * its allocations, peak RSS and largest heap, and "ours − lean" for the provider host; notes with start-up, module
 * loading, the gRPC methods called and the functions with the most time.
 * @param {CycleResult[]} all
 * @returns {{ table: string, notes: string[] }}
 */
function profileTables(all) {
  const profiled = all.filter((r) => r.tag === "profile");
  /** @type {string[]} */
  const notes = [];
  if (profiled.length === 0) return { table: "", notes };
  const header = [
    "command",
    "kind / process",
    "CPU (s)",
    "sampled (s)",
    ...CATEGORIES.map((c) => `${c} (ms)`),
    "allocated (MB)",
    "peak RSS (MB)",
    "max heap used (MB)",
  ];
  /** @type {string[][]} */
  const lines = [];
  const n = profiled[0]?.n ?? 0;
  for (const op of OPS) {
    /** @type {Map<string, number[]>} */
    const hostMs = new Map();
    for (const kind of settings.profile.kinds) {
      for (const role of /** @type {const} */ (["provider", "program"])) {
        const stats = profiled
          .filter((r) => r.kind === kind)
          .flatMap((r) => r.profiles[op] ?? [])
          .filter((x) => x.role === role && (role === "program" || x.profiledAnswers > 0));
        const first = stats.find((x) => x.profile !== undefined && existsSync(x.profile)) ?? stats[0];
        if (first === undefined) continue;
        const cpu =
          first.profile !== undefined && existsSync(first.profile) ? cpuBreakdown(first.profile) : undefined;
        const heap =
          first.heapProfile !== undefined && existsSync(first.heapProfile)
            ? heapBreakdown(first.heapProfile)
            : undefined;
        const processCpu = role === "program" ? first.cpuMs : first.cpuAtProfileEndMs;
        const label = `${kind} / ${role === "provider" ? "provider host" : "program"}`;
        lines.push([
          op,
          label,
          fmt.cpu(processCpu / 1000),
          cpu === undefined ? "–" : fmt.cpu(cpu.totalMs / 1000),
          ...CATEGORIES.map((c) => (cpu === undefined ? "–" : fmt.ops(cpu.ownerMs[c] ?? 0))),
          heap === undefined ? "–" : fmt.mb(heap.totalBytes),
          fmt.mb(first.memory?.peakRss ?? NaN),
          fmt.mb(first.memory?.maxHeapUsed ?? NaN),
        ]);
        if (role === "provider" && cpu !== undefined)
          hostMs.set(kind, [processCpu, ...CATEGORIES.map((c) => cpu.ownerMs[c] ?? 0)]);
        if (cpu !== undefined) {
          const ms = (/** @type {number} */ x) => `${x.toFixed(0)} ms`;
          notes.push(
            `profile ${op}, ${label}: by owner ${shares(cpu.ownerMs, cpu.totalMs)}; top self time: ${listed(cpu.topSelf.slice(0, 6), ms)}; this package's functions: ${listed(cpu.topOurs.slice(0, 6), ms)}`,
          );
        }
        if (heap !== undefined)
          notes.push(
            `profile ${op}, ${label}: ${fmt.mb(heap.totalBytes)} MB allocated, by owner ${shares(heap.ownerBytes, heap.totalBytes)}; this package's: ${listed(heap.topOurs.slice(0, 5), (b) => `${fmt.mb(b)} MB`)}`,
          );
        if (role === "provider") {
          const rpcs = Object.entries(first.rpcs)
            .map(([method, r]) => `${method} ${r.count}`)
            .join(", ");
          const packages = Object.entries(first.require.byPackage)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 6)
            .map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`)
            .join(", ");
          notes.push(
            `profile ${op}, ${label}: ready (port printed) ${fmt.ms(first.readyMs)} ms after its start, CPU until then ${fmt.ms(first.cpuAtReadyMs)} ms; module loading ${fmt.ms(first.require.beforeReadyMs)} ms before ready and ${fmt.ms(first.require.afterReadyMs)} ms after (${packages}); gRPC methods: ${rpcs}`,
          );
        }
      }
    }
    const ours = hostMs.get("ours");
    const lean = hostMs.get("lean");
    if (ours !== undefined && lean !== undefined) {
      const diff = ours.map((x, i) => x - (lean[i] ?? 0));
      lines.push([
        op,
        "ours − lean / provider host",
        fmt.cpu((diff[0] ?? NaN) / 1000),
        "",
        ...diff.slice(1).map((x) => fmt.ops(x)),
        "",
        "",
        "",
      ]);
    }
  }
  return { table: `Profiles at N = ${n} (instrumented runs):\n\n${simpleTable(header, lines)}`, notes };
}

/**
 * The CLI's own CPU profile in the instrumented runs, per command and kind: its sampled CPU and, of it, the
 * property log, the marshalling of every call's properties (that log included), the snapshot and Go's GC
 * (bench/cli-profile.mjs), and "ours − lean".
 * @param {CycleResult[]} all
 * @returns {string}
 */
function cliProfileTable(all) {
  const profiled = all.filter((r) => r.tag === "profile" && r.cliCpuProfiles !== undefined);
  const binary = pulumiBinary();
  if (profiled.length === 0 || binary === undefined) return "";
  const names = /** @type {(keyof typeof CLI_FRAMES)[]} */ (Object.keys(CLI_FRAMES));
  const header = ["command", "kind", "CLI sampled (s)", ...names.map((name) => `${name} (s)`)];
  /** @type {string[][]} */
  const lines = [];
  for (const op of OPS) {
    /** @type {Map<string, number[]>} */
    const byKind = new Map();
    for (const kind of settings.profile.kinds) {
      const file = profiled.find((r) => r.kind === kind)?.cliCpuProfiles?.[op];
      const cli = file === undefined ? undefined : cliBreakdown(binary, file);
      if (cli === undefined) continue;
      const values = [cli.totalMs, ...names.map((name) => cli.frames[name])];
      byKind.set(kind, values);
      lines.push([op, kind, ...values.map((ms) => fmt.cpu(ms / 1000))]);
    }
    const ours = byKind.get("ours");
    const lean = byKind.get("lean");
    if (ours !== undefined && lean !== undefined)
      lines.push([op, "ours − lean", ...ours.map((ms, i) => fmt.cpu((ms - (lean[i] ?? 0)) / 1000))]);
  }
  return lines.length === 0
    ? ""
    : `The CLI's own profile (instrumented runs, Go's pprof):\n\n${simpleTable(header, lines)}`;
}

/** The `pulumi` on PATH (the one that ran), for pprof's symbols. */
function pulumiBinary() {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const file = join(dir || ".", "pulumi");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The single executable against the npm plugin: cold start (spawn to port, CPU and peak RSS until then) and the
 * native face's up and preview at latency 0 (wall, CPU of all processes, the plugin's CPU and peak RSS).
 * @param {EngineResults | undefined} engine
 * @returns {string}
 */
function seaTable(engine) {
  const sea = engine?.sea;
  if (sea === undefined) return "";
  const header = ["metric", "N", "single executable", "npm plugin", "single ÷ npm"];
  /** @type {string[][]} */
  const lines = [];
  /**
   * @param {string} metric
   * @param {string} n
   * @param {number} a
   * @param {number} b
   * @param {(x: number) => string} format
   */
  const line = (metric, n, a, b, format) => lines.push([metric, n, format(a), format(b), fmt.ratio(a / b)]);
  const cold = (
    /** @type {"sea" | "npm"} */ which,
    /** @type {(c: import("./plugin.mjs").ColdStart) => number} */ f,
  ) => median(sea.cold[which].map(f));
  const runs = `${sea.cold.sea.length} runs`;
  line(
    `cold start: spawn → port printed (ms), ${runs}`,
    "",
    cold("sea", (c) => c.readyMs),
    cold("npm", (c) => c.readyMs),
    fmt.ms,
  );
  // The spread too: at a busy machine's load one start differs from the next by more than the medians differ.
  const extreme = (/** @type {"sea" | "npm"} */ which, /** @type {(...xs: number[]) => number} */ pick) =>
    pick(...sea.cold[which].map((c) => c.readyMs));
  line("cold start: fastest start (ms)", "", extreme("sea", Math.min), extreme("npm", Math.min), fmt.ms);
  line("cold start: slowest start (ms)", "", extreme("sea", Math.max), extreme("npm", Math.max), fmt.ms);
  line(
    "cold start: CPU until the port (ms)",
    "",
    cold("sea", (c) => c.cpuMs),
    cold("npm", (c) => c.cpuMs),
    fmt.ms,
  );
  line(
    "cold start: peak RSS at the port (MB)",
    "",
    cold("sea", (c) => c.peakRss),
    cold("npm", (c) => c.peakRss),
    fmt.mb,
  );
  const all = engine?.runs ?? [];
  const single = all.filter((r) => r.tag === "sea");
  const npm = all.filter((r) => r.tag === "sea-npm");
  const n = String(single[0]?.n ?? "");
  for (const op of /** @type {const} */ (["up", "preview"])) {
    const m = (/** @type {CycleResult[]} */ set, /** @type {(r: CycleResult) => number | undefined} */ f) =>
      median(set.map(f));
    line(
      `native ${op} (s)`,
      n,
      m(single, (r) => r.ms[op]),
      m(npm, (r) => r.ms[op]),
      fmt.s,
    );
    line(
      `native ${op}: CPU, all processes (s)`,
      n,
      m(single, (r) => r.cpu[op]?.all),
      m(npm, (r) => r.cpu[op]?.all),
      fmt.cpu,
    );
    line(
      `native ${op}: CPU, plugin (s)`,
      n,
      m(single, (r) => r.cpu[op]?.plugin),
      m(npm, (r) => r.cpu[op]?.plugin),
      fmt.cpu,
    );
    line(
      `native ${op}: peak RSS, plugin (MB)`,
      n,
      m(single, (r) => r.memory[op]?.plugin),
      m(npm, (r) => r.memory[op]?.plugin),
      fmt.mb,
    );
  }
  const about = `${sea.archive.platform} ${sea.archive.kind} (Node.js ${sea.archive.node}), archive ${fmt.mb(sea.archive.archiveBytes)} MB, executable ${fmt.mb(sea.archive.executableBytes)} MB`;
  return `Single-executable plugin (${about}) against the npm plugin (node_modules/.bin/pulumi-resource-webhooks), medians:\n\n${simpleTable(header, lines)}`;
}

/**
 * A markdown table, the first two columns left-aligned and the rest right-aligned.
 * @param {string[]} header
 * @param {string[][]} lines
 */
function simpleTable(header, lines) {
  const cells = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const left = (/** @type {number} */ i) => i < 2;
  const line = (/** @type {string[]} */ r) =>
    `| ${r.map((c, i) => (left(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (left(i) ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...lines.map(line),
  ].join("\n");
}

/**
 * @param {EngineResults | undefined} engine
 * @param {ClientResult[] | undefined} client
 * @returns {{ rows: string[][], notes: string[], misses: string[] }}
 */
function buildRows(engine, client) {
  /** @type {string[][]} */
  const rows = [];
  /** @type {string[]} */
  const notes = [];
  /** @type {string[]} */
  const misses = [];
  const all = engine?.runs ?? [];
  /**
   * @param {{ tag?: string, kind?: Kind, n?: number, latency?: number, crowd?: number, pageSize?: number |
   * undefined }} q
   */
  const select = (q) =>
    all.filter(
      (r) =>
        (q.tag === undefined || r.tag === q.tag) &&
        (q.kind === undefined || r.kind === q.kind) &&
        (q.n === undefined || r.n === q.n) &&
        (q.latency === undefined || r.latency === q.latency) &&
        (q.crowd === undefined || r.crowd === q.crowd) &&
        (!("pageSize" in q) || r.pageSize === q.pageSize),
    );
  /**
   * @param {CycleResult[]} set
   * @param {(r: CycleResult) => number | undefined} f
   */
  const med = (set, f) => median(set.map(f));
  /** @param {CycleResult[]} set @param {Op} op */
  const callCells = (set, op) => {
    const calls = set.map((r) => r.calls[op]).filter((c) => c !== undefined);
    if (calls.length === 0) return {};
    const n = set[0]?.n ?? 1;
    const list = median(calls.map((c) => c.list));
    const split = `${fmt.calls(median(calls.map((c) => c.byName)))} / ${fmt.calls(median(calls.map((c) => c.scanPages)))} / ${fmt.calls(median(calls.map((c) => c.byUrl)))}`;
    if (calls.some((c) => !c.complete))
      notes.push(
        `N=${n} ${op}: the emulator's request log dropped entries; the name / scan / URL split is partial`,
      );
    const spread = new Set(calls.map((c) => `${c.list}/${c.create}`));
    if (spread.size > 1)
      notes.push(
        `N=${n} ${op} (${set[0]?.tag}, crowd ${set[0]?.crowd}): API calls varied between runs (${[...spread].join(", ")} list/create)`,
      );
    return {
      lists: fmt.calls(list),
      split,
      listPer: fmt.calls(list / n),
      createPer: fmt.calls(median(calls.map((c) => c.create)) / n),
      list,
    };
  };

  // ---- main grid ----
  const gridSizes = [...new Set(select({ tag: "grid" }).map((r) => r.n))];
  for (const n of gridSizes) {
    const latencies = [...new Set(select({ tag: "grid", n }).map((r) => r.latency))];
    for (const latency of latencies) {
      const ours = select({ tag: "grid", kind: "ours", n, latency });
      const floor = select({ tag: "grid", kind: "floor", n, latency });
      const lean = select({ tag: "grid", kind: "lean", n, latency });
      for (const op of OPS) {
        const o = med(ours, (r) => r.ms[op]);
        const f = med(floor, (r) => r.ms[op]);
        const l = med(lean, (r) => r.ms[op]);
        const ratio = o / f;
        const leanCells = lean.length > 0 ? { baseline: fmt.s(l), vsBaseline: fmt.ratio(o / l) } : {};
        const { list: _list, ...cells } = callCells(ours, op);
        // Targets are judged against the stricter floor: the lean one where it ran (it is what the
        // engine costs with nothing on top; the usual floor also pays for Pulumi's closure serializer).
        const [strict, strictName] = lean.length > 0 ? [o / l, "lean floor"] : [ratio, "floor"];
        let target = "";
        // Nothing is judged where ours did not run (BENCH_GRID_KINDS=lean,shape).
        if (ours.length === 0) {
          // no target
        } else if (isLarge(n)) {
          target = verdict(
            strict <= TARGET.largeVsFloor,
            `≤${TARGET.largeVsFloor.toFixed(2)}× ${strictName}`,
          );
          if (!(strict <= TARGET.largeVsFloor))
            misses.push(
              `N=${n} ${op}: ${fmt.ratio(strict)} the ${strictName} (target ≤${TARGET.largeVsFloor}×)`,
            );
        } else if (n === 100 && latency === 0 && op === "up") {
          target = verdict(
            strict <= TARGET.up100VsFloor,
            `≤${TARGET.up100VsFloor.toFixed(2)}× ${strictName}`,
          );
          if (!(strict <= TARGET.up100VsFloor))
            misses.push(
              `N=100 up at latency 0: ${fmt.ratio(strict)} the ${strictName} (target ≤${TARGET.up100VsFloor}×)`,
            );
        }
        const skipped = isLarge(n) && !settings.largeCheckpoints ? ", checkpoints skipped" : "";
        const leanNote = lean.length > 0 ? "; baseline: lean floor" : "";
        rows.push(
          row({
            metric: `${op} (s)${skipped}${leanNote}`,
            n,
            latency,
            crowd: `0 / ${DEFAULT_PAGE}`,
            ours: fmt.s(o),
            floor: fmt.s(f),
            vsFloor: fmt.ratio(ratio),
            ...leanCells,
            ...cells,
            target,
          }),
        );
      }
      if (lean.length > 0) leanRows({ n, latency, ours, floor, lean, rows, misses });
      const pre = ours.map((r) => r.precheck).filter((x) => x !== undefined);
      const upCalls = callCells(ours, "up");
      rows.push(
        row({
          metric: "up: create's pre-check listing, share of up wall time",
          n,
          latency,
          crowd: `0 / ${DEFAULT_PAGE}`,
          ours: fmt.pct(median(pre.map((x) => x.shareOfUp))),
          baseline: fmt.pct(median(pre.map((x) => x.apiShareOfUp))),
          lists: upCalls.lists ?? "",
          split: upCalls.split ?? "",
          listPer: upCalls.listPer ?? "",
        }),
      );
      rows.push(
        row({
          metric: "up: create's pre-check listing, per create (ms, median)",
          n,
          latency,
          crowd: `0 / ${DEFAULT_PAGE}`,
          ours: fmt.ms(median(pre.map((x) => x.medianMs))),
        }),
      );
    }
    const zero = latencies.includes(0) ? 0 : undefined;
    if (zero !== undefined) {
      for (const latency of latencies.filter((l) => l > 0)) {
        for (const op of OPS) {
          const m = (/** @type {Kind} */ kind, /** @type {number} */ l) =>
            med(select({ tag: "grid", kind, n, latency: l }), (r) => r.ms[op]);
          const added = m("ours", latency) - m("ours", 0) - (m("floor", latency) - m("floor", 0));
          const rounds = Math.ceil(n / effectiveParallel(op));
          const budget = op === "destroy" ? 0 : rounds * latency;
          rows.push(
            row({
              metric: `${op}: added by latency (s) vs budget (s)`,
              n,
              latency,
              ours: fmt.s(added),
              floor: fmt.s(budget),
              vsFloor: budget > 0 ? fmt.ratio(added / budget) : "–",
            }),
          );
        }
      }
    }
    const ours = select({ tag: "grid", kind: "ours", n });
    const floor = select({ tag: "grid", kind: "floor", n });
    const lean = select({ tag: "grid", kind: "lean", n });
    /**
     * @param {string} metric
     * @param {(r: CycleResult) => number} f
     * @param {(x: number) => string} format
     */
    const pair = (metric, f, format) => {
      const o = med(ours, f);
      const fl = med(floor, f);
      const l = med(lean, f);
      const leanCells = lean.length > 0 ? { baseline: format(l), vsBaseline: fmt.ratio(o / l) } : {};
      rows.push(
        row({
          metric: lean.length > 0 ? `${metric}; baseline: lean floor` : metric,
          n,
          latency: "all",
          ours: format(o),
          floor: format(fl),
          vsFloor: fmt.ratio(o / fl),
          ...leanCells,
        }),
      );
    };
    pair("__provider (B/endpoint)", (r) => r.state.providerBytes, fmt.bytes);
    pair("state (B/endpoint)", (r) => r.state.resourceBytes, fmt.bytes);
    pair("state file after up (KB)", (r) => r.state.fileBytes, fmt.kb);
    pair("peak RSS provider host, any command (MB)", (r) => r.peak.provider, fmt.mb);
    pair("peak RSS program, up (MB)", (r) => r.memory.up?.program ?? NaN, fmt.mb);
    pair("peak RSS pulumi CLI, any command (MB)", (r) => r.peak.engine, fmt.mb);
    for (const r of ours.concat(floor, lean)) {
      if (r.seen.provider === 0 || r.seen.program === 0)
        notes.push(
          `N=${n} ${r.kind}: a process was not sampled during up (provider ${r.seen.provider}, program ${r.seen.program})`,
        );
    }
  }

  // ---- crowded service ----
  const crowdRuns = select({ tag: "crowd", kind: "ours" });
  for (const n of [...new Set(crowdRuns.map((r) => r.n))]) {
    const floor = select({ tag: "crowd", kind: "floor", n });
    const latency = crowdRuns[0]?.latency ?? settings.crowd.latency;
    for (const pageSize of [...new Set(crowdRuns.filter((r) => r.n === n).map((r) => r.pageSize))]) {
      const empty = select({ tag: "crowd", kind: "ours", n, crowd: 0, pageSize });
      const combos = new Map(
        crowdRuns
          .filter((r) => r.n === n && r.pageSize === pageSize)
          .map((r) => [`${r.crowdAt ?? "before"}:${r.crowd}`, r]),
      );
      for (const { crowd, crowdAt: at = "before" } of combos.values()) {
        const set = select({ tag: "crowd", kind: "ours", n, crowd, pageSize }).filter(
          (r) => (r.crowdAt ?? "before") === at,
        );
        const where =
          crowd === 0
            ? ""
            : at === "after"
              ? ", created after up"
              : at === "middle"
                ? ", half before and half after up"
                : "";
        for (const op of CROWD_OPS) {
          const o = med(set, (r) => r.ms[op]);
          const f = med(floor, (r) => r.ms[op]);
          const b = med(empty, (r) => r.ms[op]);
          const { list, ...cells } = callCells(set, op);
          const listOk = list !== undefined && list <= n + TARGET.crowdListSlack;
          const timeOk = o / b <= TARGET.crowdVsEmpty;
          const target =
            crowd === 0
              ? verdict(listOk, `list ≤ N+${TARGET.crowdListSlack}`)
              : `${verdict(listOk, `list ≤ N+${TARGET.crowdListSlack}`)}; ${verdict(timeOk, `≤${TARGET.crowdVsEmpty.toFixed(2)}× empty`)}`;
          if (!listOk)
            misses.push(
              `crowd ${crowd}${where}, page ${pageSize}, N=${n} ${op}: ${fmt.calls(list ?? NaN)} list calls (target ≤ ${n + TARGET.crowdListSlack})`,
            );
          if (crowd > 0 && !timeOk)
            misses.push(
              `crowd ${crowd}${where}, page ${pageSize}, N=${n} ${op}: ${fmt.ratio(o / b)} the empty service (${fmt.s(o)} s vs ${fmt.s(b)} s; target ≤${TARGET.crowdVsEmpty}×)`,
            );
          rows.push(
            row({
              metric: `${op} (s), crowded service; baseline: empty service`,
              n,
              latency,
              crowd: `${crowd} / ${pageSize}${where}`,
              ours: fmt.s(o),
              floor: fmt.s(f),
              vsFloor: fmt.ratio(o / f),
              baseline: fmt.s(b),
              vsBaseline: fmt.ratio(o / b),
              ...cells,
              target,
            }),
          );
        }
      }
    }
  }

  // ---- native face ----
  for (const n of [...new Set(select({ tag: "native", kind: "native" }).map((r) => r.n))]) {
    const native = select({ tag: "native", kind: "native", n });
    const own = select({ tag: "native", kind: "ours", n });
    const dynamic = own.length > 0 ? own : select({ tag: "grid", kind: "ours", n, latency: 0 });
    const ownFloor = select({ tag: "native", kind: "floor", n });
    const floor = ownFloor.length > 0 ? ownFloor : select({ tag: "grid", kind: "floor", n, latency: 0 });
    /**
     * @param {string} metric
     * @param {(r: CycleResult) => number | undefined} f native's and the dynamic face's figure
     * @param {(r: CycleResult) => number | undefined} ff the floor's figure
     * @param {(x: number) => string} format
     * @param {object} [extra]
     */
    const triple = (metric, f, ff, format, extra = {}) => {
      const o = med(native, f);
      const fl = med(floor, ff);
      const d = med(dynamic, f);
      rows.push(
        row({
          metric,
          n,
          latency: 0,
          crowd: `0 / ${DEFAULT_PAGE}`,
          ours: format(o),
          floor: format(fl),
          vsFloor: fmt.ratio(o / fl),
          baseline: format(d),
          vsBaseline: fmt.ratio(o / d),
          ...extra,
        }),
      );
    };
    for (const op of OPS) {
      const { list: _list, ...cells } = callCells(native, op);
      triple(
        `native (YAML) ${op} (s); baseline: dynamic face`,
        (r) => r.ms[op],
        (r) => r.ms[op],
        fmt.s,
        cells,
      );
    }
    triple(
      "native (YAML) state file after up (KB); baseline: dynamic",
      (r) => r.state.fileBytes,
      (r) => r.state.fileBytes,
      fmt.kb,
    );
    triple(
      "native (YAML) state (B/endpoint); baseline: dynamic",
      (r) => r.state.resourceBytes,
      (r) => r.state.resourceBytes,
      fmt.bytes,
    );
    triple(
      "native: peak RSS plugin, any command (MB); baseline and floor: dynamic provider host",
      (r) => (r.kind === "native" ? r.peak.plugin : r.peak.provider),
      (r) => r.peak.provider,
      fmt.mb,
    );
    triple(
      "native: CPU up, plugin (s); baseline and floor: dynamic provider host",
      (r) => (r.kind === "native" ? r.cpu.up?.plugin : r.cpu.up?.provider),
      (r) => r.cpu.up?.provider,
      fmt.cpu,
    );
    triple(
      "native: peak RSS program, up (MB) (YAML: its language host)",
      (r) => r.memory.up?.program,
      (r) => r.memory.up?.program,
      fmt.mb,
    );
    for (const r of native)
      if (r.seen.plugin === 0) notes.push(`native N=${n}: the plugin process was not sampled during up`);
    if (own.length === 0)
      notes.push(
        `native N=${n}: the dynamic face and the floor are the main grid's runs at N=${n}, latency 0 (not interleaved with the native runs)`,
      );
  }

  if (client) {
    for (const c of client) {
      rows.push(
        row({
          metric: `client ${c.name} (ops/s)`,
          latency: 0,
          ours: fmt.ops(c.client),
          floor: fmt.ops(c.bare),
          vsFloor: fmt.ratio(c.client / c.bare),
        }),
      );
      rows.push(
        row({
          metric: `client ${c.name} (CPU µs/op, lower is better)`,
          latency: 0,
          ours: fmt.ops(c.clientCpuMicros),
          floor: fmt.ops(c.bareCpuMicros),
          vsFloor: fmt.ratio(c.clientCpuMicros / c.bareCpuMicros),
        }),
      );
    }
  }
  return { rows, notes: [...new Set([...skipped, ...notes])], misses };
}

/** @param {string[][]} rows */
function markdownTable(rows) {
  // Columns empty in every row are left out.
  const keep = HEADER.map((_, i) => i === 0 || rows.some((r) => (r[i] ?? "") !== ""));
  const pick = (/** @type {string[]} */ r) => r.filter((_, i) => keep[i]);
  const header = pick(HEADER);
  const cells = [header, ...rows.map(pick)];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const width = (/** @type {number} */ i) => widths[i] ?? 0;
  const line = (/** @type {string[]} */ r) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(width(i)) : c.padStart(width(i)))).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...cells.slice(1).map(line),
  ].join("\n");
}

const LEGEND =
  () => `- Times: wall time of the CLI command, median of the runs of each cell; each run is a fresh file:// backend and stack
  (init → up → preview → refresh → destroy → rm), ours and floor alternated. up/refresh/destroy use --skip-preview.
  Sizes from BENCH_LARGE_FROM (${settings.largeFrom}) up run at the first latency only, ${settings.largeRuns} time(s).
- floor: the same program with a no-op dynamic provider (create returns at once, diff says no changes, read returns the
  props, delete does nothing): same resources, same outputs, same additionalSecretOutputs. It makes no API call. Declared
  as pulumi.dynamic.Resource, so Pulumi's closure serializer writes its provider into __provider (about 1.8 KB) and is
  loaded into the program: what a dynamic resource usually costs.
- lean floor (the baseline column of the grid rows at latency 0): the same no-op provider registered the way
  WebhookEndpoint registers itself, with its methods' text written into __provider by hand (no serializer): the engine's
  own cost and nothing else. ours, floor and lean floor alternated.
- shape: the lean floor with the state's shape of ours, read off a stack of ours before the grid: a provider text as
  long as ours' (padded with ours' own text, which compresses alike), and the outputs ours stores that the lean floor
  does not (provenance, stackRoot), with ours' values. It runs none of ours' code, so shape ÷ lean is what the engine
  (CLI, language host, program, provider host's gRPC) pays for what ours stores, and ours ÷ shape is what ours' code
  adds (its API calls, checks and lookups); the two multiply to ours ÷ lean. Alternated with the others.
- crowd / page: endpoints of other teams on the service before up (created first, so a listing of the whole service in
  id order meets all of them before the stack's), and the service's page size (the emulator's maxPageSize; the client
  asks for 100 and gets at most that). The main grid runs on an empty service with the emulator's default page size.
- list calls: list requests the emulator received during the command (its counters), median of the runs; name / scan /
  URL splits them by the request body (its request log): filtered by name, unfiltered (a page of a listing of the whole
  service), filtered by URL only. list/endpoint, create/endpoint: the same per endpoint.
- Crowded rows (${settings.crowd.latency} ms per call, preview and refresh of the same stack; floor = the no-op provider, which calls
  nothing): baseline is the same stack on the empty service (crowd 0) at the same page size. Targets: list calls ≤ N +
  ${TARGET.crowdListSlack}; time ≤ ${TARGET.crowdVsEmpty}× the empty service.
- pre-check: WebhooksClient.create lists by name before it creates (never a duplicate). From up's request log: per create,
  the last listing of its name before it; "per create" = from that listing's arrival to the create's arrival (its round
  trip and the client's work between). "share of up wall time" = at each moment, pre-checks in flight ÷ all endpoint API
  work in flight (pre-checks and creates, a create counted for the latency after it arrived), integrated over up's wall
  time; its baseline column is the share of up's wall time with any endpoint API work in flight at all.
- "added by latency": (ours at L − ours at 0) − (floor at L − floor at 0); budget = one round trip per endpoint on the
  critical path = ceil(N / P) × L, with P = --parallel (CLI default: cores × 4) for up/refresh/destroy, and P = 1 for preview
  because the engine calls Diff serially unless PULUMI_PARALLEL_DIFF is set (BENCH_PARALLEL_DIFF=1).
- __provider: bytes of the serialized provider in each resource's outputs (the inputs hold the same text again);
  state: bytes of each resource's entry in \`pulumi stack export\`, compact JSON; state file: the stack's checkpoint file
  in the file:// backend after up.
- peak RSS: VmHWM of the processes running @pulumi/pulumi cmd/dynamic-provider (the dynamic provider host: its own Node
  process, started by the plugin shell pulumi-resource-pulumi-nodejs, not the language host), cmd/run (the program),
  the native plugin pulumi-resource-webhooks, and the pulumi CLI, polled every 100 ms from /proc; median over the runs.
- CPU, all processes: utime + stime of the CLI and everything below it (the language host, the program, the plugin
  shells, the provider host or native plugin), exact: read from this benchmark process's children counters
  (/proc/self/stat cutime + cstime) before and after the command, which count every process once it is reaped. The
  emulator is the service and runs in this benchmark process: its CPU ("emulator CPU", with the /proc polling) is
  reported apart and is not in "all processes". Per process (provider host, program): utime + stime polled from /proc
  every 100 ms (the last moments of a process are missed). Medians over the runs of a cell. Targets at N =
  ${TARGET.leanJudgedSizes.join(" and N = ")}, latency 0, every command: CPU of all processes ≤ ${TARGET.cpuVsLean}× the lean floor's, the provider
  host's peak RSS during the command ≤ ${TARGET.rssVsLean}× the lean floor's; the lean-floor table flags a miss with ✗.
- native: the same N endpoints (same names and URLs) as a Pulumi YAML program (runtime: yaml) on the native provider,
  the plugin pulumi-resource-webhooks from the installed package on PATH; baseline = the dynamic face, floor = the
  no-op dynamic provider, all at latency 0 on an empty service.
- single executable (BENCH_PARTS=sea): this machine's release archive (\`npm run release:archives -- --platform
  ${hostPlatform() ?? "<this machine's>"}\`, built from the same checkout as the installed package), unpacked, against the npm
  plugin (node_modules/.bin/pulumi-resource-webhooks, run by the node on PATH). Cold start: each started ${settings.sea.coldRuns} times, alternated, with an engine address no one listens on; the
  time from spawn to the port line, and its CPU (utime + stime, /proc) and peak RSS (VmHWM) at that moment. Then the
  same YAML program as the native rows at N = ${settings.sea.size}, latency 0, ${settings.sea.runs} runs each, alternated: up and preview,
  the single executable's directory first on PATH.
- profile (BENCH_PROFILE=0 leaves it out): separate, instrumented runs of every command at N = ${settings.profile.size} for
  ${settings.profile.kinds.join(", ")} (bench/profile-hook.cjs preloaded by NODE_OPTIONS into every Node process, active only in
  the provider host and the program). The provider host runs a V8 CPU profiler at 0.5 ms and a sampling heap profiler
  that keeps freed objects, from its start to the N-th answer of the command's own method (Create, Diff, Read,
  Delete); the program from its start to its exit. "CPU (s)" is the process's own CPU time at that point; the category
  columns split the profile's samples by owner (bench/profile.mjs: the innermost package on the stack; module loading
  apart), in ms of sampled time, which on a busy machine runs above CPU time: read them as shares. "ours − lean" is
  the provider host's difference per column. Start-up times come from /proc (10 ms resolution).
- the CLI's own profile: the same instrumented commands run with \`pulumi --profiling\` (Go's pprof, 10 ms samples,
  read with \`go tool pprof\`); per command and kind, the CLI's sampled CPU and the inclusive time of: the property log
  (every property, and every key of an object property, of every call to a plugin or from the program is logged,
  encoded, deflated and encrypted, at every verbosity: logging.VerboseLogger.Infof), the marshalling of those
  properties (MarshalProperties and UnmarshalProperties, that log included), the snapshot (saveSnapshot) and Go's
  garbage collector (gcBgMarkWorker). They overlap (the log is inside the marshalling; GC runs beside all).
- client: WebhooksClient vs a bare undici.request loop (keep-alive Agent, same bodies and headers, JSON.parse),
  emulator in a separate process at latency 0, ${settings.clientConcurrency} in flight, ${settings.clientOps} ops per trial,
  ${settings.runs} trials each alternated after a warm-up; median ops/s, and median CPU time of the benchmark process per
  call (the emulator runs elsewhere, so this is the client's own cost and steadier than ops/s on a busy machine). Every call must reach the emulator as exactly one
  request, two for create (checked): list pages start at distinct real cursors (the client coalesces identical concurrent
  lists); a create lists by name first on both sides, as WebhooksClient.create does so as never to duplicate an endpoint; and
  the store is emptied before each create trial, which is capped at 2000 creates.`;

async function main() {
  const started = Date.now();
  const info = machine();
  const command = reproduceCommand();
  const header = [
    `machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.os}`,
    `node ${info.node}, pulumi ${info.pulumi}, language host: ${info.languageHost}, YAML language host: ${info.yamlHost}, load average at start: ${info.loadAverage}`,
    `engine settings: --parallel ${settings.parallel ?? `${CLI_DEFAULT_PARALLEL} (CLI default)`}, diff ${settings.parallelDiff ? "parallel (PULUMI_PARALLEL_DIFF=true)" : "serial (engine default)"}; program in plain JavaScript (no ts-node) for both kinds`,
    `reproduce: ${command}`,
  ];
  for (const line of header) console.log(line);
  log(`settings: ${JSON.stringify(settings)}`);

  const engineParts = ["engine", "crowd", "native", "sea", "profile"];
  const engine = settings.parts.some((part) => engineParts.includes(part))
    ? await engineBenchmark()
    : undefined;
  /** @type {ClientResult[] | undefined} */
  let client;
  if (settings.parts.includes("client")) {
    log(
      `client micro-benchmark: ${settings.clientOps} ops x ${settings.runs} trials, ${settings.clientConcurrency} in flight`,
    );
    client = await clientBenchmark({
      repo: REPO,
      ops: settings.clientOps,
      concurrency: settings.clientConcurrency,
      runs: settings.runs,
      log,
    });
  }
  const { rows, notes: rowNotes, misses } = buildRows(engine, client);
  // A run of parts with no grid rows (sea alone, say) prints no empty grid.
  const table = rows.length === 0 ? "" : markdownTable(rows);
  const leanTable = leanFloorTable(engine?.runs ?? []);
  const profiles = profileTables(engine?.runs ?? []);
  const cliProfiles = cliProfileTable(engine?.runs ?? []);
  const notes = [...rowNotes, ...profiles.notes];
  const extra = [
    ...(leanTable === "" ? [] : [`Against the lean floor (latency 0, medians):\n\n${leanTable}`]),
    ...(profiles.table === "" ? [] : [profiles.table]),
    ...(cliProfiles === "" ? [] : [cliProfiles]),
    ...(seaTable(engine) === "" ? [] : [seaTable(engine)]),
  ];
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log("");
  console.log(table);
  console.log("");
  for (const part of extra) console.log(`${part}\n`);
  for (const note of notes) console.log(`note: ${note}`);
  for (const miss of misses) console.log(`target missed: ${miss}`);
  console.log(`run time: ${minutes} min`);

  const md = [
    "# Benchmark results",
    "",
    ...header.map((line) => `- ${line}`),
    engine ? `- package version: ${engine.packageVersion} (packed tarball)` : "",
    `- load average at end: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}; run time ${minutes} min`,
    "",
    table,
    "",
    ...extra.flatMap((part) => [part, ""]),
    ...notes.map((n) => `- note: ${n}`),
    ...misses.map((m) => `- target missed: ${m}`),
    "",
    LEGEND(),
    "",
  ].join("\n");
  const outDir = join(REPO, "bench", "results");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "results.md"), md);
  writeFileSync(
    join(outDir, "results.json"),
    JSON.stringify({ machine: info, settings, command, engine, client, misses }, null, 2),
  );
  const legacy = join(REPO, ".e2e", "bench");
  mkdirSync(legacy, { recursive: true });
  copyFileSync(join(outDir, "results.md"), join(legacy, "results.md"));
  log(`wrote ${join(outDir, "results.md")} and results.json (and a copy in .e2e/bench/results.md)`);
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
