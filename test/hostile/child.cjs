"use strict";
/**
 * One call against a hostile server, in a process of its own so that its memory can be measured.
 * Run by hostile-servers.test.ts as `node child.cjs '<json>'` with the token in HOSTILE_TOKEN.
 * Loads the compiled package (dist/), makes the call, and prints one line "@@REPORT@@<json>":
 * the outcome, every error as a caller would see it, what the code logged, the time taken, and
 * the peak resident set size (/proc VmHWM).
 */
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { format, inspect } = require("node:util");

const task = JSON.parse(process.argv[2]);
const token = process.env.HOSTILE_TOKEN;
const logs = [];
for (const method of ["log", "info", "warn", "error", "debug"])
  console[method] = (...args) => logs.push(format(...args));

const NAME = "orders";
const URL_ = "https://example.com/hooks/orders";
const FAST = { timeoutMs: 3000, maxRetries: 1, retryBaseDelayMs: 50, createSettleMs: 500 };

/**
 * Peak resident set size of this process, in KB: VmHWM of /proc. Not getrusage's maxRSS: on Linux
 * that survives execve, so a child spawned by a large parent reports the parent's size.
 */
function peakKb() {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (match) return Number(match[1]);
  } catch {
    // Not Linux: getrusage, which is right when the parent is small.
  }
  return process.resourceUsage().maxRSS;
}

/** Everything a caller could see of an error: message, stack, properties, the whole cause chain. */
function asSeen(error) {
  const parts = [];
  let current = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    parts.push(current instanceof Error ? `${current.stack ?? ""}\n${current.message}` : String(current));
    parts.push(inspect(current, { depth: 8, showHidden: true, maxStringLength: 100_000 }));
    current = current instanceof Error ? current.cause : undefined;
  }
  const pick = (key) =>
    error !== null && typeof error === "object" && typeof error[key] === "string" ? error[key] : undefined;
  return {
    name: pick("name") ?? typeof error,
    code: pick("code"),
    message: error instanceof Error ? error.message : String(error),
    msg: pick("msg"),
    serviceCode: pick("serviceCode"),
    traceId: pick("traceId"),
    visible: parts.join("\n"),
  };
}

async function clientCall(op) {
  const { WebhooksClient } = require(join(task.repo, "dist/client/index.js"));
  const client = new WebhooksClient({ baseUrl: task.url, accessToken: token, ...FAST });
  try {
    if (op === "listAll") {
      let pages = 0;
      let records = 0;
      for await (const page of client.listAll({})) {
        pages++;
        records += page.records.length;
      }
      return `${pages} pages, ${records} records`;
    }
    if (op === "scan") {
      const result = await client.scan({});
      return `${result.pages} pages, ${result.records.length} records`;
    }
    if (op === "list") {
      const page = await client.list({ webhookName: NAME });
      return `${page.records.length} records, traceId ${page.traceId === "" ? '""' : `${page.traceId.length} chars`}`;
    }
    const created = await client.create({ webhookName: NAME, webhookUrl: URL_ });
    return `id ${created.record.webhookId}${created.recovered ? " (recovered)" : ""}, ${created.attempts} attempt(s)`;
  } finally {
    await client.close();
  }
}

async function dynamicCall(op) {
  const { createDynamicProvider } = require(join(task.repo, "dist/dynamic/provider.js"));
  const provider = createDynamicProvider();
  const config = {
    "webhooks:baseUrl": task.url,
    "webhooks:accessToken": token,
    "webhooks:timeoutMs": String(FAST.timeoutMs),
    "webhooks:maxRetries": String(FAST.maxRetries),
    "webhooks:createSettleMs": String(FAST.createSettleMs),
  };
  await provider.configure({ config: { get: (key) => config[key], require: (key) => config[key] ?? "" } });
  const olds = {
    webhookId: 1,
    webhookName: NAME,
    webhookUrl: URL_,
    signSecret: "whsec_1",
    creatorId: 7,
    creatorName: "ci",
    createTime: 1,
    operatorId: 7,
    operatorName: "ci",
    operateTime: 1,
  };
  if (op === "read") {
    const result = await provider.read("1", olds);
    return result.id === "" ? "gone" : `found id ${result.id}`;
  }
  if (op === "diff") {
    const result = await provider.diff("1", olds, { webhookName: NAME, webhookUrl: URL_ });
    return result.changes ? `changes (replaces ${result.replaces.join(", ") || "nothing"})` : "no changes";
  }
  const result = await provider.create({ webhookName: NAME, webhookUrl: URL_ });
  return `created id ${result.id}`;
}

async function main() {
  // Load the code under test first, so that the baseline is the resident size before the call.
  require(join(task.repo, task.face === "client" ? "dist/client/index.js" : "dist/dynamic/provider.js"));
  const baselineKb = Math.round(process.memoryUsage().rss / 1024);
  const started = Date.now();
  const errors = [];
  let outcome;
  try {
    const summary = task.face === "client" ? await clientCall(task.op) : await dynamicCall(task.op);
    outcome = { ok: true, summary };
  } catch (error) {
    errors.push(asSeen(error));
    outcome = { ok: false, summary: errors[0].name };
  }
  const report = { outcome, errors, logs, elapsedMs: Date.now() - started, peakKb: peakKb(), baselineKb };
  process.stdout.write(`\n@@REPORT@@${JSON.stringify(report)}\n`);
  process.exit(0);
}

process.on("unhandledRejection", (reason) =>
  logs.push(`unhandledRejection: ${inspect(reason, { depth: 2 }).slice(0, 2000)}`),
);
void main();
