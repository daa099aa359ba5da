// @ts-check
// The engine half of the benchmark: installs the packed package into a base project (with the
// harness, as the e2e suite does) and drives the real Pulumi CLI through one fresh stack per run.
//
// Four programs, each a "kind":
// - ours:   bench/program with WebhookEndpoint (the dynamic face) from the packed package;
// - floor:  the same program on a no-op dynamic provider (what the engine costs by itself), declared the
//           usual way: pulumi.dynamic.Resource, whose provider Pulumi's closure serializer turns into text;
// - lean:   the same no-op provider registered as WebhookEndpoint registers itself: a hand-written provider
//           text in __provider (no closure serializer), the engine's cost with nothing of ours or of the
//           serializer on top;
// - shape:  the lean floor with the state's shape of ours (a provider text as long, the outputs ours stores
//           that the lean floor does not: see shapeOf), the engine's cost of what ours stores and nothing of
//           ours' code;
// - native: the same N endpoints as a Pulumi YAML program on the native provider, the plugin
//           pulumi-resource-webhooks found on PATH in the installed package's node_modules/.bin.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { installProject, packTarball } from "../scripts/harness/pack.mjs";
import { runProcess } from "../scripts/harness/process.mjs";
import { PASSPHRASE, Project, backendFor } from "../scripts/harness/pulumi.mjs";
import { parseJson } from "../scripts/harness/repo.mjs";
import { PLUGIN_EXECUTABLE } from "../scripts/release/platforms.mjs";

/** @typedef {"ours" | "floor" | "lean" | "shape" | "native"} Kind */
/** The kinds that make no API call (the no-op floors). @param {Kind} kind */
const isFloor = (kind) => kind === "floor" || kind === "lean" || kind === "shape";
/** @typedef {"up" | "preview" | "refresh" | "destroy"} Op */
/** @typedef {import("../src/emulator/types.js").RequestLogEntry} RequestLogEntry */

/**
 * API requests the emulator received during one command (totals, not per endpoint).
 * @typedef {object} Calls
 * @property {number} list
 * @property {number} create
 * @property {number} other
 * @property {number} byName list requests filtered by name
 * @property {number} byUrl list requests filtered by URL (and not by name)
 * @property {number} scanPages list requests with no filter (pages of a listing of the whole service)
 * @property {boolean} complete false when the request log dropped entries (the by-kind split is then partial)
 */

/** @typedef {{ engine: number, provider: number, plugin: number, program: number }} Memory */
/**
 * CPU seconds of one command. `all` is exact: the CLI and every process below it (the language host, the program,
 * the plugins and their shells), as the benchmark process's children counters account them once reaped; the others
 * are polled from /proc every 100 ms (a process's last moments before it ends are missed), and `bench` is the
 * benchmark process itself: the in-process emulator (the service) and the polling.
 * @typedef {{ all: number, engine: number, provider: number, plugin: number, program: number, other: number,
 * bench: number }} Cpu
 */

/**
 * What up's request log says of create's pre-check (the listing by name before each create).
 * @typedef {object} Precheck
 * @property {number} creates creates seen
 * @property {number} matched creates preceded by a listing of their name
 * @property {number} medianMs median time from that listing's arrival to the create's arrival
 * @property {number} shareOfUp fraction of up's wall time attributed to pre-checks: at each moment, the pre-checks in
 *   flight divided by all endpoint API work in flight (pre-check or create), integrated over time, over up's wall time
 * @property {number} apiShareOfUp fraction of up's wall time during which any endpoint API work was in flight
 */

/**
 * @typedef {object} CycleResult
 * @property {Kind} kind
 * @property {number} n endpoints
 * @property {number} latency emulator latency per API call, ms
 * @property {number} crowd other endpoints on the service
 * @property {"before" | "after" | "middle"} [crowdAt] whether they were created before the stack's up (default), after
 *   it, or half before and half after
 * @property {number | undefined} pageSize the service's page size (undefined: the emulator's default)
 * @property {string} [tag] which part of the benchmark ran it
 * @property {Partial<Record<Op, number>>} ms wall time per operation
 * @property {Partial<Record<Op, Calls>>} calls API requests per operation
 * @property {Partial<Record<Op, Cpu>>} cpu CPU seconds per process kind, per operation
 * @property {Partial<Record<Op, Memory>>} memory peak RSS per process kind, per operation, bytes
 * @property {Memory} peak peak RSS per process kind over every operation, bytes
 * @property {{ provider: number, plugin: number, program: number }} seen processes classified during up
 * @property {{ providerBytes: number, resourceBytes: number, fileBytes: number }} state bytes per endpoint in the
 *   export; bytes of the whole checkpoint file on disk after up
 * @property {Precheck | undefined} precheck
 * @property {Partial<Record<Op, ProfileStats[]>>} profiles BENCH_PROFILE: what bench/profile-hook.cjs wrote for each
 *   provider host and program, per instrumented command
 * @property {Partial<Record<Op, string>>} [cliCpuProfiles] with the `cliProfiles` option: the CLI's CPU profile
 *   of each command
 * @property {Partial<import("../scripts/harness/pulumi.mjs").StateResource> & { stack: string }} [sample] with the
 *   `sample` option: the first endpoint's state entry after up, and the stack (`<project>/<stack>`)
 */

/**
 * bench/profile-hook.cjs's file (see there).
 * @typedef {object} ProfileStats
 * @property {"provider" | "program"} role
 * @property {number} pid
 * @property {number} shellStart
 * @property {number} processStart
 * @property {number} timeOriginSinceBoot
 * @property {number} bootstrapCompleteMs
 * @property {number} preloadMs
 * @property {number} readyMs
 * @property {{ beforeReadyMs: number, afterReadyMs: number, byPackage: Record<string, number> }} require
 * @property {Record<string, { count: number, wallMs: number, firstStart: number, lastEnd: number }>} rpcs
 * @property {number} cpuAtFirstCreateMs
 * @property {number} cpuAtLastCreateMs
 * @property {number} cpuAtReadyMs
 * @property {number} cpuMs CPU at the last write (the program: at exit)
 * @property {number} creates
 * @property {string} profiledMethod
 * @property {number} profiledAnswers
 * @property {number} cpuAtProfileEndMs
 * @property {string | undefined} profile
 * @property {string | undefined} heapProfile
 * @property {{ peakRss: number, maxHeapUsed: number, maxHeapTotal: number, maxExternal: number,
 * maxArrayBuffers: number, heapAtEnd?: Record<string, number> }} memory
 */

/**
 * The emulator, as far as a cycle uses it (dist/emulator's Emulator).
 * @typedef {Pick<import("../src/emulator/types.js").Emulator, "url" | "counters" | "reset" | "requests" |
 * "configure" | "addRecord" | "options">} BenchEmulator
 */

/** @param {string} repo */
export function paths(repo) {
  const root = join(repo, ".e2e", "bench");
  return {
    root,
    pack: join(root, "pack"),
    base: join(root, "base"),
    bin: join(root, "base", "node_modules", ".bin"),
    projects: join(root, "base", "projects"),
    backends: join(root, "backends"),
    home: join(root, "home"),
    profiles: join(root, "profiles"),
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
  for (const dir of [p.pack, p.projects, p.backends, p.profiles])
    rmSync(dir, { recursive: true, force: true });
  mkdirSync(p.home, { recursive: true });
  log("packing the package and installing the tarball into .e2e/bench/base");
  const tarball = packTarball(p.pack);
  const installed = installProject(p.base, { name: "bench-base", tarball });
  for (const kind of ["ours", "floor", "lean", "shape"])
    Project.create(join(repo, "bench", "program"), join(p.projects, kind));
  return { version: installed.packageVersion };
}

/**
 * The YAML program of the native kind: N endpoints with the names and URLs of bench/program.
 * @param {number} n
 */
export function yamlProgram(n) {
  const lines = [
    "name: webhooks-bench-yaml",
    "runtime: yaml",
    "description: Benchmark program, native face (written by bench/engine.mjs)",
    "resources:",
  ];
  for (let i = 0; i < n; i++) {
    lines.push(
      `  hook-${i}:`,
      "    type: webhooks:index:WebhookEndpoint",
      "    properties:",
      `      webhookName: bench-${i}`,
      `      webhookUrl: https://example.com/hooks/bench-${i}`,
    );
  }
  lines.push("outputs:", `  endpoints: ${n}`);
  if (n > 0) lines.push("  firstWebhookId: ${hook-0.webhookId}");
  return `${lines.join("\n")}\n`;
}

/** The type token of each kind's endpoints in state. */
const RESOURCE_TYPES = {
  ours: "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
  floor: "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
  lean: "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
  shape: "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
  native: "webhooks:index:WebhookEndpoint",
};

/**
 * The kind of a process below the CLI, from its argv: the dynamic provider host (the SDK's
 * cmd/dynamic-provider), the native plugin (pulumi-resource-webhooks), the program (the SDK's cmd/run; for
 * YAML, the YAML language host, which runs the program itself); anything else is undefined ("other").
 * @param {string[]} argv
 * @returns {string | undefined}
 */
export function processKind(argv) {
  if (argv.includes("-e") || argv.includes("--eval")) return undefined; // the plugin shell's require.resolve probe
  for (const arg of argv) {
    if (/cmd\/dynamic-provider(\/index\.js)?$/.test(arg)) return "provider";
    if (/(^|\/)pulumi-resource-webhooks$|dist\/native\/bin\.js$/.test(arg)) return "plugin";
    if (/cmd\/run(\/index\.js)?$/.test(arg) || /(^|\/)pulumi-language-yaml$/.test(arg)) return "program";
  }
  return undefined;
}

/**
 * Runs `pulumi <args>` in the project, sampling /proc with the benchmark's process kinds; throws with the
 * CLI's own output when it fails.
 * @param {Project} project
 * @param {readonly string[]} args
 * @param {Record<string, string | undefined>} env
 */
async function pulumi(project, args, env) {
  const result = await runProcess("pulumi", [...args, "--non-interactive"], {
    cwd: project.dir,
    env: {
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
      NO_COLOR: "1",
      ...project.env,
      ...env,
    },
    sample: { rootKind: "engine", classify: processKind },
  });
  if (result.code !== 0) {
    const tail = (/** @type {string} */ text) => (text.length > 16_000 ? `…${text.slice(-16_000)}` : text);
    throw new Error(
      `pulumi ${args.join(" ")} exited ${result.code}${result.error ? `: ${result.error}` : ""}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`,
    );
  }
  return result;
}

/**
 * The engine names each plugin it takes from PATH ("using pulumi-resource-webhooks from $PATH at <path>"): a row
 * meant for the plugin in `dir` is refused unless that is the one the engine ran.
 * @param {string} dir
 * @param {{ stdout: string, stderr: string }} run
 */
function assertPluginFrom(dir, run) {
  const used = [
    ...`${run.stdout}\n${run.stderr}`.matchAll(
      new RegExp(`using ${PLUGIN_EXECUTABLE} from \\$PATH at (\\S+)`, "g"),
    ),
  ].map((m) => m[1] ?? "");
  const wanted = join(dir, PLUGIN_EXECUTABLE);
  if (used.length === 0 || used.some((path) => path !== wanted))
    throw new Error(
      `the engine was to run ${wanted} but ran ${used.length === 0 ? "no plugin from PATH" : [...new Set(used)].join(", ")}`,
    );
}

/**
 * CPU of this process (the in-process emulator, the sampler, the spawn plumbing), seconds.
 * @param {NodeJS.CpuUsage} usage
 */
function cpuSeconds(usage) {
  return (usage.user + usage.system) / 1e6;
}

/**
 * The sampled figures of one command, in the benchmark's shape (0 where a kind never ran).
 * @param {import("../scripts/harness/process.mjs").RunResult} run
 * @param {number} bench CPU seconds of this process meanwhile
 * @returns {Cpu}
 */
function cpuOf(run, bench) {
  const cpu = run.sample?.cpuSeconds ?? {};
  return {
    all: run.sample?.reapedCpuSeconds ?? NaN,
    engine: cpu.engine ?? 0,
    provider: cpu.provider ?? 0,
    plugin: cpu.plugin ?? 0,
    program: cpu.program ?? 0,
    other: cpu.other ?? 0,
    bench,
  };
}

/**
 * @param {import("../scripts/harness/process.mjs").RunResult} run
 * @returns {Memory}
 */
function memoryOf(run) {
  const peaks = run.sample?.peakRss ?? {};
  return {
    engine: peaks.engine ?? 0,
    provider: peaks.provider ?? 0,
    plugin: peaks.plugin ?? 0,
    program: peaks.program ?? 0,
  };
}

/**
 * The API requests logged after `afterSeq`.
 * @param {BenchEmulator} emulator
 * @param {number} afterSeq
 */
function requestsAfter(emulator, afterSeq) {
  return emulator.requests().filter((entry) => entry.seq > afterSeq);
}

/** @param {BenchEmulator} emulator */
function lastSeq(emulator) {
  return emulator.requests().at(-1)?.seq ?? 0;
}

/**
 * @param {unknown} body
 * @param {string} field
 */
function field(body, field) {
  const value =
    typeof body === "object" && body !== null
      ? /** @type {Record<string, unknown>} */ (body)[field]
      : undefined;
  return typeof value === "string" ? value : "";
}

/**
 * @param {{ list: number, create: number, other: number }} after
 * @param {{ list: number, create: number, other: number }} before
 * @param {RequestLogEntry[]} entries
 * @returns {Calls}
 */
function callsOf(after, before, entries) {
  const lists = entries.filter((e) => e.route === "list");
  const list = after.list - before.list;
  return {
    list,
    create: after.create - before.create,
    other: after.other - before.other,
    byName: lists.filter((e) => field(e.body, "webhook_name") !== "").length,
    byUrl: lists.filter((e) => field(e.body, "webhook_name") === "" && field(e.body, "webhook_url") !== "")
      .length,
    scanPages: lists.filter(
      (e) => field(e.body, "webhook_name") === "" && field(e.body, "webhook_url") === "",
    ).length,
    complete: lists.length === list,
  };
}

/**
 * Create's pre-check during up, from the request log: for each create, the last listing of its name before it.
 * A create's own API work is taken to last `latency` ms after it arrived (the emulator answers at once after
 * the latency); a pre-check from its listing's arrival to the create's arrival (the listing's round trip and the
 * client's work between the two).
 * @param {RequestLogEntry[]} entries
 * @param {number} latency
 * @param {number} upMs
 * @returns {Precheck}
 */
export function precheckOf(entries, latency, upMs) {
  /** @type {Map<string, number>} */
  const lastListing = new Map();
  /** @type {{ at: number, delta: number }[]} */
  const events = [];
  /** @type {number[]} */
  const waits = [];
  let creates = 0;
  for (const entry of entries) {
    const name = field(entry.body, "webhook_name");
    if (entry.route === "list" && name !== "") lastListing.set(name, entry.time);
    if (entry.route !== "create") continue;
    creates++;
    const listedAt = lastListing.get(name);
    const end = entry.time + Math.max(latency, 1);
    if (listedAt !== undefined) {
      lastListing.delete(name);
      waits.push(entry.time - listedAt);
      // kind 0: pre-check in flight, kind 1: create in flight
      events.push({ at: listedAt, delta: 1 }, { at: entry.time, delta: -1 });
    }
    events.push({ at: entry.time, delta: 1000 }, { at: end, delta: -1000 });
  }
  // Sweep: pre-checks and creates in flight; attribute each interval's length by their shares.
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let pre = 0;
  let cre = 0;
  let attributed = 0;
  let busy = 0;
  for (let i = 0; i < events.length; i++) {
    const event = /** @type {{ at: number, delta: number }} */ (events[i]);
    if (Math.abs(event.delta) === 1) pre += event.delta;
    else cre += event.delta / 1000;
    const next = events[i + 1];
    if (next === undefined) break;
    const span = next.at - event.at;
    if (span > 0 && pre + cre > 0) {
      attributed += (span * pre) / (pre + cre);
      busy += span;
    }
  }
  waits.sort((a, b) => a - b);
  const mid = waits.length >> 1;
  const medianMs =
    waits.length === 0
      ? NaN
      : waits.length % 2
        ? (waits[mid] ?? NaN)
        : ((waits[mid - 1] ?? NaN) + (waits[mid] ?? NaN)) / 2;
  return {
    creates,
    matched: waits.length,
    medianMs,
    shareOfUp: upMs > 0 ? attributed / upMs : NaN,
    apiShareOfUp: upMs > 0 ? busy / upMs : NaN,
  };
}

/**
 * The checkpoint file of `stack` under a file:// backend directory (the engine writes .json, or .json.gz
 * when asked to); its size in bytes, 0 when not found.
 * @param {string} dir
 * @param {string} stack
 * @returns {number}
 */
function checkpointBytes(dir, stack) {
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === "history" || entry.name === "backups") continue;
      const found = checkpointBytes(path, stack);
      if (found > 0) return found;
    } else if (entry.name === `${stack}.json` || entry.name === `${stack}.json.gz`) {
      return statSync(path).size;
    }
  }
  return 0;
}

/**
 * @typedef {object} CycleOptions
 * @property {Paths} p
 * @property {Kind} kind
 * @property {number} n
 * @property {number} latency
 * @property {BenchEmulator} emulator
 * @property {string} token
 * @property {string} id unique per run: names the backend and the stack
 * @property {Record<string, string>} extraEnv for every command of the run
 * @property {string[]} parallelArgs
 * @property {number} [crowd] other endpoints on the service (the caller's `prepare` or `afterUp` puts them there)
 * @property {"before" | "after" | "middle"} [crowdAt]
 * @property {number} [pageSize] the service's page size (the caller's `prepare` sets it)
 * @property {string} [tag]
 * @property {(emulator: BenchEmulator) => void} [prepare] before up, for kinds that call the API (default: reset)
 * @property {(emulator: BenchEmulator) => void} [afterUp] after up, for kinds that call the API
 * @property {readonly Op[]} [ops] which commands to time after up (default: preview, refresh, destroy)
 * @property {Partial<Record<Op, Record<string, string>>>} [opEnv] per command, over `env` (BENCH_PROFILE's
 * NODE_OPTIONS)
 * @property {Partial<Record<Op, string>>} [profileDirs] where bench/profile-hook.cjs writes, per command
 * (read after it)
 * @property {Record<string, string>} [env] for every command of this run, over `extraEnv`
 * @property {Partial<Record<Op, string>>} [cliProfiles] per command, a path prefix for the CLI's own profiles
 *   (`pulumi --profiling <prefix>`, Go's pprof; the CPU profile is CycleResult.cliCpuProfiles)
 * @property {Shape | undefined} [shape] shape kind: the state's shape it takes (shapeOf)
 * @property {boolean} [sample] keep the first endpoint's state entry (CycleResult.sample)
 * @property {string} [pluginDir] native kind: a directory put before the installed package's on PATH, whose
 *   pulumi-resource-webhooks the engine then runs (the single executable, BENCH_PARTS=sea)
 */

/**
 * One run: a fresh file:// backend and stack; init -> up -> export -> preview -> refresh ->
 * destroy -> rm. Only up, preview, refresh and destroy are timed.
 * @param {CycleOptions} options
 * @returns {Promise<CycleResult>}
 */
export async function cycle(options) {
  const { p, kind, n, latency, emulator, token, id, extraEnv, parallelArgs } = options;
  const backend = backendFor(p.backends, id);
  /** @type {Record<string, string>} */
  const env = { PULUMI_HOME: p.home, PULUMI_BACKEND_URL: backend.backendUrl, ...extraEnv, ...options.env };
  let dir = join(p.projects, kind);
  if (kind === "native") {
    // The plugin comes from the installed package, on PATH as after `npm install -g pulumi-webhook-endpoints`.
    env.PATH = `${options.pluginDir === undefined ? "" : `${options.pluginDir}:`}${p.bin}:${process.env.PATH ?? ""}`;
    dir = join(p.projects, `native-${n}`);
    if (!existsSync(join(dir, "Pulumi.yaml"))) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "Pulumi.yaml"), yamlProgram(n));
    }
  }
  const project = new Project(dir, { env });
  const stack = `s-${id}`;
  await project.ok(["stack", "init", stack]);
  const config =
    kind === "native" ? [] : ["--plaintext", `bench:count=${n}`, "--plaintext", `bench:kind=${kind}`];
  if (kind === "shape") {
    const { shape } = options;
    if (shape === undefined) throw new Error("the shape kind needs the shape it takes (shapeOf)");
    config.push(
      "--plaintext",
      `bench:shape=${JSON.stringify({ textBytes: shape.textBytes, pad: shape.pad })}`,
    );
    // The outputs name this stack where ours' named its own (provenance, the stack's root resource).
    const [probeProject, probeStack] = shape.stack.split("/");
    const renamed = JSON.stringify(shape.outputs)
      .split(shape.stack)
      .join(`${project.name}/${stack}`)
      .split(`${probeProject}-${probeStack}`)
      .join(`${project.name}-${stack}`)
      .split(`:${probeStack}::`)
      .join(`:${stack}::`);
    project.env.BENCH_SHAPE_OUTPUTS = renamed;
  }
  await project.ok([
    "config",
    "set-all",
    ...config,
    "--plaintext",
    `webhooks:baseUrl=${emulator.url}`,
    "--secret",
    `webhooks:accessToken=${token}`,
  ]);
  if (!isFloor(kind)) (options.prepare ?? ((e) => e.reset()))(emulator);

  /** @type {CycleResult["ms"]} */
  const ms = {};
  /** @type {CycleResult["calls"]} */
  const calls = {};
  /** @type {CycleResult["cpu"]} */
  const cpu = {};
  /** @type {CycleResult["memory"]} */
  const memory = {};

  /**
   * @param {Op} op
   * @param {string[]} args
   * @param {Record<string, string>} [opEnv]
   */
  const timed = async (op, args, opEnv = {}) => {
    const seq = lastSeq(emulator);
    const before = emulator.counters();
    const cpuBefore = process.cpuUsage();
    const cliProfile = options.cliProfiles?.[op];
    const profiling = cliProfile === undefined ? [] : ["--profiling", cliProfile];
    const run = await pulumi(project, [...args, ...parallelArgs, ...profiling], opEnv);
    const after = emulator.counters();
    const entries = requestsAfter(emulator, seq);
    ms[op] = run.ms;
    calls[op] = callsOf(after, before, entries);
    cpu[op] = cpuOf(run, cpuSeconds(process.cpuUsage(cpuBefore)));
    memory[op] = memoryOf(run);
    return { run, entries, before, after };
  };

  /** @type {Partial<Record<Op, ProfileStats[]>>} */
  const profiles = {};
  /** @type {Partial<Record<Op, string>>} */
  const cliCpuProfiles = {};
  const timedOp = async (/** @type {Op} */ op, /** @type {string[]} */ args) => {
    const done = await timed(op, args, options.opEnv?.[op]);
    const dir = options.profileDirs?.[op];
    if (dir !== undefined) profiles[op] = readProfiles(dir);
    const cliProfile = options.cliProfiles?.[op];
    if (cliProfile !== undefined) {
      // The CLI writes <prefix>.<pid>.cpu (and .mem, .trace).
      const file = readdirSync(dirname(cliProfile)).find(
        (f) => f.startsWith(`${basename(cliProfile)}.`) && f.endsWith(".cpu"),
      );
      if (file !== undefined) cliCpuProfiles[op] = join(dirname(cliProfile), file);
    }
    return done;
  };
  const up = await timedOp("up", ["up", "--yes", "--skip-preview"]);
  if (options.pluginDir !== undefined) assertPluginFrom(options.pluginDir, up.run);
  const seen = up.run.sample?.seen ?? {};
  const precheck = isFloor(kind) ? undefined : precheckOf(up.entries, latency, up.run.ms);

  const { resources: all } = await project.exportState();
  const resources = all.filter((r) => r.type === RESOURCE_TYPES[kind]);
  if (resources.length !== n)
    throw new Error(`${kind}: expected ${n} endpoints in state after up, found ${resources.length}`);
  if (!isFloor(kind) && up.after.created - up.before.created !== n) {
    throw new Error(
      `${kind}: expected ${n} creates on the emulator, saw ${up.after.created - up.before.created}`,
    );
  }
  const sum = (/** @type {(r: import("../scripts/harness/pulumi.mjs").StateResource) => number} */ f) =>
    resources.reduce((total, r) => total + f(r), 0);
  const state = {
    providerBytes:
      n === 0
        ? 0
        : sum((r) =>
            Buffer.byteLength(typeof r.outputs?.__provider === "string" ? r.outputs.__provider : ""),
          ) / n,
    resourceBytes: n === 0 ? 0 : sum((r) => Buffer.byteLength(JSON.stringify(r))) / n,
    fileBytes: checkpointBytes(join(backend.dir, "state"), stack),
  };
  const sample = options.sample ? { ...resources[0], stack: `${project.name}/${stack}` } : undefined;

  if (!isFloor(kind)) options.afterUp?.(emulator);

  /** @type {Record<Exclude<Op, "up">, string[]>} */
  const commands = {
    preview: ["preview", "--expect-no-changes"],
    refresh: ["refresh", "--yes", "--skip-preview"],
    destroy: ["destroy", "--yes", "--skip-preview"],
  };
  const ops = options.ops ?? ["preview", "refresh", "destroy"];
  for (const op of /** @type {Exclude<Op, "up">[]} */ (["preview", "refresh", "destroy"])) {
    if (ops.includes(op)) await timedOp(op, commands[op]);
  }
  await project.ok(["stack", "rm", "--yes", "--force", stack]);
  rmSync(backend.dir, { recursive: true, force: true });

  /** @type {Memory} */
  const peak = { engine: 0, provider: 0, plugin: 0, program: 0 };
  for (const m of Object.values(memory)) {
    for (const key of /** @type {(keyof Memory)[]} */ (Object.keys(peak)))
      peak[key] = Math.max(peak[key], m[key]);
  }
  return {
    kind,
    n,
    latency,
    crowd: options.crowd ?? 0,
    ...(options.crowdAt === undefined ? {} : { crowdAt: options.crowdAt }),
    pageSize: options.pageSize,
    ...(options.tag === undefined ? {} : { tag: options.tag }),
    ms,
    calls,
    cpu,
    memory,
    peak,
    seen: { provider: seen.provider ?? 0, plugin: seen.plugin ?? 0, program: seen.program ?? 0 },
    state,
    precheck,
    profiles,
    ...(sample === undefined ? {} : { sample }),
    ...(Object.keys(cliCpuProfiles).length === 0 ? {} : { cliCpuProfiles }),
  };
}

/**
 * What the shape kind takes from a stack of ours and one of the lean floor (each a CycleResult with its
 * sample): the length of ours' provider text, that text (the pad, so that the shape's compresses alike), the
 * outputs ours stores that the lean floor does not, as ours stored them, and the stack they name. `parts`
 * narrows it to some of that, to measure each apart: "text" (the text's length; without it the shape's text is
 * the lean floor's with the extra outputs' code) and the names of the extra outputs; undefined takes all.
 * @typedef {{ textBytes: number, pad: string, outputs: Record<string, unknown>, stack: string }} Shape
 * @param {CycleResult} ours
 * @param {CycleResult} lean
 * @param {readonly string[]} [parts]
 * @returns {Shape}
 */
export function shapeOf(ours, lean, parts) {
  const o = ours.sample;
  const l = lean.sample;
  if (o === undefined || l === undefined) throw new Error("shapeOf needs the samples of a stack of each");
  const text = typeof o.outputs?.__provider === "string" ? o.outputs.__provider : "";
  const leanKeys = new Set(Object.keys(l.outputs ?? {}));
  const outputs = Object.fromEntries(
    Object.entries(o.outputs ?? {}).filter(
      ([key]) => !leanKeys.has(key) && (parts === undefined || parts.includes(key)),
    ),
  );
  const unknown = (parts ?? []).filter((part) => part !== "text" && !(part in outputs));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_SHAPE names ${unknown.join(", ")}, which is neither "text" nor an output ours stores that the lean floor does not (${Object.keys(
        o.outputs ?? {},
      )
        .filter((key) => !leanKeys.has(key))
        .join(", ")})`,
    );
  const full = parts === undefined || parts.includes("text");
  return { textBytes: full ? Buffer.byteLength(text) : 0, pad: text, outputs, stack: o.stack };
}

/**
 * The provider hosts' figures bench/profile-hook.cjs left in `dir`.
 * @param {string} dir
 * @returns {ProfileStats[]}
 */
function readProfiles(dir) {
  if (!existsSync(dir)) return [];
  /** @type {ProfileStats[]} */
  const out = [];
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(".json")) continue;
    try {
      out.push(/** @type {ProfileStats} */ (parseJson(readFileSync(join(dir, file), "utf8"))));
    } catch {
      // A file being written as the host was killed: skipped.
    }
  }
  return out;
}
