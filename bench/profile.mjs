// @ts-check
// Reads a V8 CPU profile (.cpuprofile, written by bench/profile-hook.cjs) of the provider host and says where
// its time went: self time by category (whose code ran), the functions with the most self time, and what ran
// inside the dynamic provider's Create handler (inclusive time below createRPC).
import { readFileSync } from "node:fs";
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
 * Whose code a frame is.
 * @param {CallFrame} frame
 */
export function categoryOf(frame) {
  const { url, functionName } = frame;
  if (url === "") {
    if (functionName === "(idle)") return "idle";
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(program)") return "V8/native (program)";
    return "V8/native";
  }
  if (url.startsWith("node:")) return "Node internals";
  if (url.includes("/pulumi-webhook-endpoints/")) return "pulumi-webhook-endpoints";
  if (url.includes("/@pulumi/pulumi/")) return "@pulumi/pulumi";
  if (url.includes("/@grpc/") || url.includes("/google-protobuf/") || url.includes("/protobufjs/"))
    return "gRPC/protobuf";
  if (url.includes("/undici/")) return "undici";
  if (url.includes("/zod/")) return "zod";
  if (url.includes("/node_modules/")) return "other packages";
  return "serialized provider / other";
}

/**
 * @param {string} file
 * @returns {{ totalMs: number, categories: string, top: string, creates: string }}
 */
export function summariseCpuProfile(file) {
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
    const span = deltas[i + 1] ?? 0;
    self.set(id, (self.get(id) ?? 0) + span);
  }
  let total = 0;
  /** @type {Map<string, number>} */
  const categories = new Map();
  /** @type {Map<string, number>} */
  const functions = new Map();
  /** @type {Map<string, number>} inside Create, by category */
  const insideCreate = new Map();
  let createTotal = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const category = categoryOf(node.callFrame);
    if (category === "idle") continue;
    total += us;
    categories.set(category, (categories.get(category) ?? 0) + us);
    const where =
      node.callFrame.url === ""
        ? ""
        : ` ${node.callFrame.url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\//, "")}:${node.callFrame.lineNumber + 1}`;
    const key = `${node.callFrame.functionName || "(anonymous)"}${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    // Below the dynamic provider's createRPC?
    for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame?.functionName === "createRPC" && frame.url.includes("cmd/dynamic-provider")) {
        createTotal += us;
        insideCreate.set(category, (insideCreate.get(category) ?? 0) + us);
        break;
      }
    }
  }
  const ms = (/** @type {number} */ us) => `${(us / 1000).toFixed(0)} ms`;
  const list = (/** @type {Map<string, number>} */ map, /** @type {number} */ limit) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, us]) => `${name} ${ms(us)}`)
      .join(", ");
  return {
    totalMs: total / 1000,
    categories: list(categories, 10),
    top: list(functions, 8),
    creates:
      createTotal === 0
        ? ""
        : `${ms(createTotal)} (synchronous part of createRPC and below: ${list(insideCreate, 6)})`,
  };
}
