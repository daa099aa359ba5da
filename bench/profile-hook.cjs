// @ts-check
"use strict";
// BENCH_PROFILE=1: preloaded into every Node process the CLI starts (NODE_OPTIONS=--require <this file>),
// it does nothing except in the dynamic-provider host (node .../@pulumi/pulumi/cmd/dynamic-provider), the
// native plugin (pulumi-resource-webhooks) and the program (node .../@pulumi/pulumi/cmd/run). It records, into
// $BENCH_PROFILE_OUT/<role>-<pid>.json:
// - start-up (provider host): when the plugin's shell (pulumi-resource-pulumi-nodejs, this process's parent) and
//   this process started, when Node finished bootstrapping, when the host printed its port (ready);
// - module loading (all): wall time inside the outermost require() calls (the entry module itself excluded),
//   before and after ready, and by package;
// - per gRPC method of the provider host (Configure, CheckConfig, Check, Create, Diff, Read, Delete...): count,
//   summed wall time, first start and last end; its CPU time when the first Create arrived and the last ended;
// - memory: the peak RSS (VmHWM), and the highest V8 heap in use, external memory and array buffers seen
//   (polled every 50 ms and at every answer), and V8's heap statistics when the profile ends;
// - with BENCH_PROFILE_EXPECT=n, a V8 CPU profile of the provider host (node:inspector) from preload to the n-th
//   answer of BENCH_PROFILE_METHOD (Create by default; Diff for preview, Read for refresh, Delete for destroy),
//   written as <pid>.cpuprofile, and a sampling heap profile over the same span that keeps the objects
//   garbage collection freed (so it attributes every byte allocated, not only what is still alive), written as
//   <pid>.heapprofile;
// - with BENCH_PROFILE_PROGRAM=1, the same two profiles of the program, from preload to its exit.
// The engine kills the provider host without letting it exit, so the figures are written as they change
// (throttled) and synchronously once the expected answers are done; the program writes them again at exit.
const Module = require("node:module");
const fs = require("node:fs");
const path = require("node:path");
const { performance } = require("node:perf_hooks");

const entry = process.argv[1] ?? "";
const outDir = process.env.BENCH_PROFILE_OUT;

if (outDir && /cmd[\\/]dynamic-provider([\\/]index(\.js)?)?$/.test(entry)) install(outDir, "provider");
else if (outDir && /(^|[\\/])pulumi-resource-webhooks$|dist[\\/]native[\\/]bin\.js$/.test(entry))
  install(outDir, "provider");
else if (outDir && /cmd[\\/]run([\\/]index(\.js)?)?$/.test(entry)) install(outDir, "program");

/**
 * Seconds since boot, as /proc/uptime says (10 ms resolution), or NaN off Linux.
 * @returns {number}
 */
function uptimeSeconds() {
  try {
    return Number(fs.readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  } catch {
    return NaN;
  }
}

/**
 * A process's start, seconds since boot (field 22 of /proc/<pid>/stat, in clock ticks of 1/100 s).
 * @param {number | "self"} pid
 */
function startSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[19]) / 100;
  } catch {
    return NaN;
  }
}

/**
 * @param {string} dir
 * @param {"provider" | "program"} role
 */
function install(dir, role) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${role}-${process.pid}.json`);
  const expectAnswers = role === "provider" ? Number(process.env.BENCH_PROFILE_EXPECT) || 0 : 0;
  const profiledMethod = process.env.BENCH_PROFILE_METHOD || "Create";
  const profiling = expectAnswers > 0 || (role === "program" && process.env.BENCH_PROFILE_PROGRAM === "1");
  // Process clock (ms since this process's time origin) -> seconds since boot, measured once.
  const bootOffset = uptimeSeconds() - performance.now() / 1000;

  /** @type {{ count: number, wallMs: number, firstStart: number, lastEnd: number }} */
  const none = { count: 0, wallMs: 0, firstStart: NaN, lastEnd: NaN };
  /** @type {Record<string, typeof none>} */
  const rpcs = {};
  const stats = {
    role,
    pid: process.pid,
    argv: process.argv.slice(1),
    // Seconds since boot.
    shellStart: startSeconds(process.ppid),
    processStart: startSeconds("self"),
    timeOriginSinceBoot: bootOffset,
    // ms since this process's time origin.
    bootstrapCompleteMs: performance.nodeTiming.bootstrapComplete,
    preloadMs: performance.now(),
    readyMs: NaN,
    /** Outermost require() wall time, ms. */
    require: { beforeReadyMs: 0, afterReadyMs: 0, byPackage: /** @type {Record<string, number>} */ ({}) },
    rpcs,
    /** Process CPU (user + system), ms: at the first Create's arrival and at the last Create's answer. */
    cpuAtFirstCreateMs: NaN,
    cpuAtLastCreateMs: NaN,
    cpuAtReadyMs: NaN,
    /** Process CPU at the last write (for the program: at exit), ms. */
    cpuMs: NaN,
    creates: 0,
    /** Answers of the profiled method (the profile ends at the expected count). */
    profiledMethod,
    profiledAnswers: 0,
    /** Process CPU when the profile ended, ms. */
    cpuAtProfileEndMs: NaN,
    profile: /** @type {string | undefined} */ (undefined),
    heapProfile: /** @type {string | undefined} */ (undefined),
    memory: {
      /** Peak RSS of the process (VmHWM), bytes, at the last write. */
      peakRss: NaN,
      /** Highest values seen by polling process.memoryUsage(), bytes. */
      maxHeapUsed: 0,
      maxHeapTotal: 0,
      maxExternal: 0,
      maxArrayBuffers: 0,
      /** v8.getHeapStatistics() when the profile ended. */
      heapAtEnd: /** @type {Record<string, number> | undefined} */ (undefined),
    },
  };

  const cpuMs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };

  const pollMemory = () => {
    const usage = process.memoryUsage();
    const m = stats.memory;
    m.maxHeapUsed = Math.max(m.maxHeapUsed, usage.heapUsed);
    m.maxHeapTotal = Math.max(m.maxHeapTotal, usage.heapTotal);
    m.maxExternal = Math.max(m.maxExternal, usage.external);
    m.maxArrayBuffers = Math.max(m.maxArrayBuffers, usage.arrayBuffers);
  };
  setInterval(pollMemory, 50).unref();

  let dirty = false;
  const write = () => {
    dirty = false;
    stats.cpuMs = cpuMs();
    pollMemory();
    stats.memory.peakRss = peakRss();
    if (Number.isNaN(stats.bootstrapCompleteMs) || stats.bootstrapCompleteMs < 0)
      stats.bootstrapCompleteMs = performance.nodeTiming.bootstrapComplete;
    try {
      fs.writeFileSync(file, JSON.stringify(stats));
    } catch {
      // The figures are best effort; the benchmark reports what it finds.
    }
  };
  const schedule = () => {
    if (dirty) return;
    dirty = true;
    setTimeout(write, 100).unref();
  };

  // ---- CPU and heap profiles ---------------------------------------------------------------------
  /** @type {import("node:inspector").Session | undefined} */
  let session;
  if (profiling) {
    const inspector = require("node:inspector");
    session = new inspector.Session();
    session.connect();
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 500 });
    session.post("Profiler.start");
    if (process.env.BENCH_PROFILE_HEAP !== "0") {
      session.post("HeapProfiler.enable");
      // Objects that garbage collection freed stay in the profile: it attributes every byte allocated.
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 16384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
  }
  // The in-process inspector session answers synchronously, so this also works in an exit handler.
  const finishProfile = () => {
    const current = session;
    if (current === undefined) return;
    session = undefined;
    stats.cpuAtProfileEndMs = cpuMs();
    current.post("Profiler.stop", (error, result) => {
      if (error) return;
      const target = path.join(dir, `${process.pid}.cpuprofile`);
      fs.writeFileSync(target, JSON.stringify(result.profile));
      stats.profile = target;
    });
    if (process.env.BENCH_PROFILE_HEAP !== "0") {
      current.post("HeapProfiler.stopSampling", (error, result) => {
        if (error) return;
        const target = path.join(dir, `${process.pid}.heapprofile`);
        fs.writeFileSync(target, JSON.stringify(result.profile));
        stats.heapProfile = target;
      });
    }
    stats.memory.heapAtEnd = { ...require("node:v8").getHeapStatistics() };
    current.disconnect();
    write();
  };

  // ---- ready: the host prints its port on stdout -------------------------------------------------
  const originalWrite = process.stdout.write.bind(process.stdout);
  /** @type {typeof process.stdout.write} */
  const patchedWrite = /** @type {typeof process.stdout.write} */ (
    (/** @type {[any, ...any[]]} */ ...args) => {
      if (role === "provider" && Number.isNaN(stats.readyMs) && /^\d+\s*$/.test(String(args[0]))) {
        stats.readyMs = performance.now();
        stats.cpuAtReadyMs = cpuMs();
        schedule();
      }
      return originalWrite(...args);
    }
  );
  process.stdout.write = patchedWrite;

  // ---- module loading ------------------------------------------------------------------------------
  // Module.prototype.load(filename) reads, compiles and runs one module that was not cached yet, its own
  // require() calls included. Totals: the outermost loads (the entry module excluded); by package: each
  // package's outermost loads, inclusive (a package loaded by another counts in both).
  /** @type {any} */
  const M = Module;
  const originalModuleLoad = M.prototype.load;
  let depth = 0;
  /** @type {Map<string, number>} */
  const active = new Map();
  /** @type {(this: { id: string }, filename: string) => unknown} */
  M.prototype.load = function (filename) {
    if (this.id === ".") return originalModuleLoad.apply(this, arguments);
    const key = packageOf(filename);
    const outermost = depth === 0;
    const enteringPackage = (active.get(key) ?? 0) === 0;
    const started = performance.now();
    depth++;
    active.set(key, (active.get(key) ?? 0) + 1);
    try {
      return originalModuleLoad.apply(this, arguments);
    } finally {
      depth--;
      active.set(key, (active.get(key) ?? 1) - 1);
      const ms = performance.now() - started;
      if (outermost) {
        if (Number.isNaN(stats.readyMs)) stats.require.beforeReadyMs += ms;
        else stats.require.afterReadyMs += ms;
        schedule();
      }
      if (enteringPackage) stats.require.byPackage[key] = (stats.require.byPackage[key] ?? 0) + ms;
    }
  };
  const originalLoad = M._load;
  /** @type {(request: string, parent: unknown, isMain: boolean) => unknown} */
  M._load = function (request) {
    const loaded = originalLoad.apply(this, arguments);
    if (request === "@grpc/grpc-js") patchGrpc(loaded);
    return loaded;
  };

  // ---- gRPC methods ----------------------------------------------------------------------------------
  let grpcPatched = false;
  /** @param {any} grpc */
  function patchGrpc(grpc) {
    if (grpcPatched || !grpc?.Server?.prototype?.addService) return;
    grpcPatched = true;
    const addService = grpc.Server.prototype.addService;
    grpc.Server.prototype.addService = function (
      /** @type {Record<string, { path?: string, originalName?: string }>} */ service,
      /** @type {any} */ implementation,
    ) {
      /** @type {Record<string, Function>} */
      const wrapped = {};
      for (const [key, attrs] of Object.entries(service)) {
        /** @type {unknown} */
        const handler =
          implementation[key] ??
          (attrs.originalName === undefined ? undefined : implementation[attrs.originalName]);
        if (typeof handler !== "function") continue;
        const method =
          String(attrs.path ?? key)
            .split("/")
            .pop() ?? key;
        wrapped[key] = function (/** @type {unknown} */ call, /** @type {Function} */ callback) {
          const started = performance.now();
          const record = (rpcs[method] ??= { ...none });
          if (Number.isNaN(record.firstStart)) record.firstStart = started;
          if (method === "Create" && Number.isNaN(stats.cpuAtFirstCreateMs))
            stats.cpuAtFirstCreateMs = cpuMs();
          const done = function (/** @type {unknown[]} */ ...args) {
            const ended = performance.now();
            record.count++;
            record.wallMs += ended - started;
            record.lastEnd = ended;
            if (method === "Create") {
              stats.creates++;
              stats.cpuAtLastCreateMs = cpuMs();
            }
            if (method === profiledMethod) {
              stats.profiledAnswers++;
              if (stats.profiledAnswers === expectAnswers) finishProfile();
            }
            schedule();
            return callback(...args);
          };
          return handler.call(implementation, call, done);
        };
      }
      return addService.call(this, service, wrapped);
    };
  }

  process.on("exit", () => {
    if (role === "program") finishProfile();
    write();
  });
  write();
}

/** This process's peak RSS (VmHWM), bytes; NaN off Linux. */
function peakRss() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync("/proc/self/status", "utf8"));
    return hwm ? Number(hwm[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The package a module file belongs to: this project's package, else the innermost node_modules/<name>.
 * @param {string} filename
 */
function packageOf(filename) {
  const file = filename.replace(/\\/g, "/");
  if (file.includes("/node_modules/pulumi-webhook-endpoints/")) return "pulumi-webhook-endpoints";
  const at = file.lastIndexOf("/node_modules/");
  if (at < 0) return "the program's own files (running them included)";
  const parts = file.slice(at + "/node_modules/".length).split("/");
  return (parts[0] ?? "").startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? file);
}
