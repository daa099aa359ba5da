// @ts-check
// Reads the profiles bench/profile-hook.cjs writes (a V8 CPU profile, .cpuprofile, and a sampling heap profile,
// .heapprofile) and says whose code the time and the allocations went to.
//
// Two ways of counting CPU time:
// - self: the category of the function that was running (the leaf of each sample);
// - owner: the innermost package on the stack. Node's internals (sockets, streams, HTTP/2) and V8's builtins run
//   for whoever called them: a sample in node:net below undici counts for undici, one in node:internal/http2
//   below @grpc/grpc-js for gRPC. Node's module loader (finding, reading and compiling a module) is "module
//   loading", split by the package being loaded; a module's top-level code is its own package's work. Garbage
//   collection and V8's own work ("(program)": compiling, the runtime) have no stack and stay apart; Node
//   internals with no package above them (the event loop's own work) too.
// Allocations (heap profile) are counted by owner the same way.
//
//   node bench/profile.mjs <file.cpuprofile | file.heapprofile>...   prints the breakdown of each file
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseJson } from "../scripts/harness/repo.mjs";

/**
 * @typedef {object} CallFrame
 * @property {string} functionName
 * @property {string} url
 * @property {number} lineNumber
 */
/**
 * @typedef {object} ProfileNode
 * @property {number} id
 * @property {CallFrame} callFrame
 * @property {number[]} [children]
 */
/**
 * @typedef {object} CpuProfile
 * @property {ProfileNode[]} nodes
 * @property {number} startTime
 * @property {number} endTime
 * @property {number[]} [samples]
 * @property {number[]} [timeDeltas]
 */
/**
 * @typedef {object} HeapNode
 * @property {CallFrame} callFrame
 * @property {number} selfSize
 * @property {HeapNode[]} children
 */

/** The categories of the breakdown, in the order the tables show them. */
export const CATEGORIES = /** @type {const} */ ([
  "ours",
  "zod",
  "undici",
  "gRPC/protobuf",
  "@pulumi/pulumi",
  "other packages",
  "user code",
  "module loading",
  "Node internals",
  "GC",
  "V8 (program)",
]);
/** @typedef {(typeof CATEGORIES)[number]} Category */
/** What a frame is: a category, or a frame that is not counted or passes its time on to its caller's owner. */
/** @typedef {Category | "idle" | "root" | "instrumentation" | "loader"} FrameKind */

/** Categories that are code of a package, the program or the stored text: the owners a sample is charged to. */
const OWNERS = new Set([
  "ours",
  "zod",
  "undici",
  "gRPC/protobuf",
  "@pulumi/pulumi",
  "other packages",
  "user code",
]);

/** bench/profile-hook.cjs's own work (not counted). */
const HOOK_WORK = new Set([
  "write",
  "schedule",
  "pollMemory",
  "finishProfile",
  "packageOf",
  "cpuMs",
  "peakRss",
  "patchGrpc",
  "install",
]);

/** Functions of Node's module loader below a require(), whatever file they are in. */
const LOADER_FUNCTIONS = new Set(["compileFunctionForCJSLoader", "compileFunction", "wrapSafe"]);

/**
 * What a frame is.
 * @param {CallFrame} frame
 * @returns {FrameKind}
 */
export function categoryOf(frame) {
  const { url, functionName } = frame;
  // The benchmark's own hook (bench/profile-hook.cjs): its wrappers of the module loader are loader frames, its
  // polling and writing are not the profiled process's work, and its wrappers of the gRPC methods pass through.
  if (url.endsWith("/bench/profile-hook.cjs")) {
    if (functionName === "M._load" || functionName === "M.load") return "loader";
    return HOOK_WORK.has(functionName) ? "instrumentation" : "Node internals";
  }
  if (LOADER_FUNCTIONS.has(functionName) || url.startsWith("node:internal/modules/")) return "loader";
  if (url === "") {
    if (functionName === "(idle)") return "idle";
    if (functionName === "(root)") return "root";
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(program)") return "V8 (program)";
    // A builtin (JSON.parse, a RegExp, a file system binding) or the text the dynamic-provider host evaluates
    // from __provider (require-from-string gives it no file): charged to its caller's owner.
    return "Node internals";
  }
  if (url.startsWith("node:")) return "Node internals";
  const name = packageName(url);
  // The program's own files.
  if (name === undefined) return "user code";
  if (name === "pulumi-webhook-endpoints") return "ours";
  if (name.startsWith("@grpc/") || name === "google-protobuf" || name === "protobufjs")
    return "gRPC/protobuf";
  if (name === "@pulumi/pulumi") return "@pulumi/pulumi";
  if (name === "undici") return "undici";
  if (name === "zod") return "zod";
  return "other packages";
}

/**
 * The package a file belongs to: the innermost node_modules/<name> (undici nested below this package is undici's).
 * @param {string} url
 * @returns {string | undefined}
 */
function packageName(url) {
  const at = url.lastIndexOf("/node_modules/");
  if (at < 0) return undefined;
  const parts = url.slice(at + "/node_modules/".length).split("/");
  return (parts[0] ?? "").startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The owner of a stack, leaf first: GC and V8's own work as they are; else the innermost frame that is code of a
 * package, of the program or of the stored text, or of Node's module loader (reading, resolving and compiling a
 * module: "module loading"; a module's own top-level code is its package's work).
 * @param {FrameKind[]} stack
 * @returns {FrameKind}
 */
function ownerOf(stack) {
  const leaf = stack[0] ?? "root";
  if (leaf === "GC" || leaf === "V8 (program)" || leaf === "idle" || leaf === "root") return leaf;
  for (const kind of stack) {
    if (kind === "instrumentation") return kind;
    if (kind === "loader") return "module loading";
    if (OWNERS.has(kind)) return kind;
  }
  return "Node internals";
}

/**
 * The package a module-loading sample loads: that of the innermost module's top-level code on the stack (the
 * module whose require() is running), else that of the innermost package frame (a require from inside a function).
 * @param {CallFrame[]} path leaf first
 * @returns {string}
 */
function loadingPackage(path) {
  const wrapper = path.find((f) => f.functionName === "" && f.lineNumber === 0 && OWNERS.has(categoryOf(f)));
  const frame = wrapper ?? path.find((f) => OWNERS.has(categoryOf(f)));
  if (frame === undefined) return "(Node)";
  const category = categoryOf(frame);
  return category === "other packages" ? (packageName(frame.url) ?? category) : category;
}

/**
 * @typedef {object} Breakdown
 * @property {number} totalMs sampled CPU time, idle excluded
 * @property {Record<string, number>} ownerMs by owner (see the top of this file)
 * @property {Record<string, number>} selfMs by the category of the running function
 * @property {[string, number][]} topSelf the functions with the most self time, ms
 * @property {[string, number][]} topOurs this package's functions with the most time charged to them (as owner), ms
 * @property {Record<string, number>} loadingMs module loading by the package loaded (see loadingPackage), ms
 */

/**
 * @param {string} file a .cpuprofile
 * @returns {Breakdown}
 */
export function cpuBreakdown(file) {
  const profile = /** @type {CpuProfile} */ (parseJson(readFileSync(file, "utf8")));
  /** @type {Map<number, ProfileNode>} */
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  /** @type {Map<number, number>} self time per node, µs */
  const self = new Map();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the delta that follows it.
  for (let i = 0; i < samples.length; i++) {
    const id = /** @type {number} */ (samples[i]);
    self.set(id, (self.get(id) ?? 0) + (deltas[i + 1] ?? 0));
  }
  let total = 0;
  /** @type {Record<string, number>} */
  const ownerMs = {};
  /** @type {Record<string, number>} */
  const selfMs = {};
  /** @type {Map<string, number>} */
  const functions = new Map();
  /** @type {Map<string, number>} */
  const ours = new Map();
  /** @type {Record<string, number>} */
  const loadingMs = {};
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (node === undefined) continue;
    /** @type {ProfileNode[]} */
    const path = [];
    for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame !== undefined) path.push(frame);
    }
    const stack = path.map((n) => categoryOf(n.callFrame));
    const owner = ownerOf(stack);
    if (owner === "idle" || owner === "root" || owner === "instrumentation") continue;
    const ms = us / 1000;
    total += ms;
    ownerMs[owner] = (ownerMs[owner] ?? 0) + ms;
    const leaf = stack[0] ?? "root";
    const selfKind = leaf === "loader" ? "module loading" : leaf;
    selfMs[selfKind] = (selfMs[selfKind] ?? 0) + ms;
    if (owner === "module loading") {
      const loaded = loadingPackage(path.map((n) => n.callFrame));
      loadingMs[loaded] = (loadingMs[loaded] ?? 0) + ms;
    }
    const key = frameName(node.callFrame);
    functions.set(key, (functions.get(key) ?? 0) + ms);
    if (owner === "ours") {
      const mine = path.find((n) => categoryOf(n.callFrame) === "ours");
      if (mine !== undefined) {
        const name = frameName(mine.callFrame);
        ours.set(name, (ours.get(name) ?? 0) + ms);
      }
    }
  }
  return {
    totalMs: total,
    ownerMs,
    selfMs,
    topSelf: top(functions, 10),
    topOurs: top(ours, 10),
    loadingMs,
  };
}

/**
 * @typedef {object} HeapBreakdown
 * @property {number} totalBytes bytes allocated over the profile (sampled; freed objects included)
 * @property {Record<string, number>} ownerBytes by owner, as for CPU time
 * @property {[string, number][]} topOurs this package's functions charged with the most bytes
 */

/**
 * @param {string} file a .heapprofile (HeapProfiler.stopSampling's profile)
 * @returns {HeapBreakdown}
 */
export function heapBreakdown(file) {
  const profile = /** @type {{ head: HeapNode }} */ (parseJson(readFileSync(file, "utf8")));
  let total = 0;
  /** @type {Record<string, number>} */
  const ownerBytes = {};
  /** @type {Map<string, number>} */
  const ours = new Map();
  /** @type {{ node: HeapNode, path: HeapNode[] }[]} */
  const pending = [{ node: profile.head, path: [] }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const path = [item.node, ...item.path];
    if (item.node.selfSize > 0) {
      const owner = ownerOf(path.map((n) => categoryOf(n.callFrame)));
      const key = owner === "idle" || owner === "root" || owner === "loader" ? "V8 (program)" : owner;
      total += item.node.selfSize;
      ownerBytes[key] = (ownerBytes[key] ?? 0) + item.node.selfSize;
      if (owner === "ours") {
        const mine = path.find((n) => categoryOf(n.callFrame) === "ours");
        if (mine !== undefined) {
          const name = frameName(mine.callFrame);
          ours.set(name, (ours.get(name) ?? 0) + item.node.selfSize);
        }
      }
    }
    for (const child of item.node.children) pending.push({ node: child, path });
  }
  return { totalBytes: total, ownerBytes, topOurs: top(ours, 8) };
}

/** @param {CallFrame} frame */
function frameName(frame) {
  const where =
    frame.url === ""
      ? ""
      : ` ${frame.url
          .replace(/^.*\/node_modules\//, "")
          .replace(/^.*\/dist\//, "dist/")
          .replace(/^file:\/\//, "")}:${frame.lineNumber + 1}`;
  return `${frame.functionName || "(anonymous)"}${where}`;
}

/**
 * @param {Map<string, number>} map
 * @param {number} limit
 * @returns {[string, number][]}
 */
function top(map, limit) {
  return [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit);
}

/**
 * "ours 41%, undici 12%, ..." for a breakdown by category.
 * @param {Record<string, number>} values
 * @param {number} total
 */
export function shares(values, total) {
  return CATEGORIES.filter((c) => (values[c] ?? 0) > 0)
    .map((c) => `${c} ${(((values[c] ?? 0) / total) * 100).toFixed(0)}%`)
    .join(", ");
}

/**
 * One line per function: "name 12 ms".
 * @param {[string, number][]} list
 * @param {(x: number) => string} format
 */
export function listed(list, format) {
  return list.map(([name, value]) => `${name} ${format(value)}`).join(", ");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const file of process.argv.slice(2)) {
    if (file.endsWith(".heapprofile")) {
      const heap = heapBreakdown(file);
      const mb = (/** @type {number} */ bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
      console.log(`${file}: ${mb(heap.totalBytes)} allocated: ${shares(heap.ownerBytes, heap.totalBytes)}`);
      console.log(`  ours: ${listed(heap.topOurs, mb)}`);
    } else {
      const cpu = cpuBreakdown(file);
      const ms = (/** @type {number} */ x) => `${x.toFixed(0)} ms`;
      console.log(`${file}: ${ms(cpu.totalMs)} sampled`);
      console.log(`  by owner: ${shares(cpu.ownerMs, cpu.totalMs)}`);
      console.log(`  by running function: ${shares(cpu.selfMs, cpu.totalMs)}`);
      console.log(`  top self: ${listed(cpu.topSelf, ms)}`);
      console.log(
        `  module loading by package: ${listed(top(new Map(Object.entries(cpu.loadingMs)), 8), ms)}`,
      );
      console.log(`  ours: ${listed(cpu.topOurs, ms)}`);
    }
  }
}
