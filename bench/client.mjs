// @ts-check
// Client micro-benchmark: WebhooksClient against a bare undici request loop (keep-alive Agent,
// same bodies, same headers, JSON.parse of the body), same emulator, same concurrency,
// trials alternated (client, bare, client, bare, ...), median ops/s of each.
//
// The emulator runs in its own process (dist/emulator/bin.js) so that its work is not charged
// to either side of the comparison and does not dilute the ratio.
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { printedAdminToken, startEmulatorProcess } from "../scripts/harness/emulator.mjs";
import { parseJson } from "../scripts/harness/repo.mjs";

const SEEDED = 400;
const PAGE_STARTS = 300;

/**
 * @typedef {object} ClientResult
 * @property {string} name
 * @property {number} ops per trial
 * @property {number} client median ops/s of WebhooksClient
 * @property {number} bare median ops/s of the bare undici loop
 * @property {number} clientCpuMicros median CPU µs per call, client
 * @property {number} bareCpuMicros median CPU µs per call, bare
 * @property {number[]} clientRates
 * @property {number[]} bareRates
 */

/**
 * Runs `ops` calls of `fn(i)` with `concurrency` in flight; returns ops per second.
 * @param {number} ops
 * @param {number} concurrency
 * @param {(i: number) => Promise<unknown>} fn
 */
async function trial(ops, concurrency, fn) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < ops) await fn(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ops / ((performance.now() - started) / 1000);
}

/** @param {readonly number[]} values at least one */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const at = (/** @type {number} */ i) => /** @type {number} */ (sorted[i]);
  return sorted.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/** A successful API envelope, as far as the bare loop reads it. */
/** @typedef {{ code: string, data: { cursor: string } }} Envelope */

/**
 * @param {{ repo: string, ops: number, concurrency: number, runs: number, log: (message: string) => void }} options
 * @returns {Promise<ClientResult[]>}
 */
export async function clientBenchmark({ repo, ops, concurrency, runs, log }) {
  /** @type {(id: string) => unknown} */
  const load = createRequire(join(repo, "package.json"));
  // The built package (scripts/bench.sh builds dist/ first); its types are the source's.
  const { WebhooksClient, LIST_PATH, CREATE_PATH } = /** @type {typeof import("../src/index.js")} */ (
    load(join(repo, "dist/index.js"))
  );
  const { Agent, request } = /** @type {typeof import("undici")} */ (load("undici"));
  const token = "bench_client_tok_5c2e9a71d04b";
  // The token in the environment, not on the command line; latency 0 so only the client is measured.
  const emulator = await startEmulatorProcess({
    args: ["--latency-ms", "0"],
    env: { WEBHOOKS_ACCESS_TOKEN: token },
  });
  const adminToken = await printedAdminToken(emulator);
  const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: token });
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const headers = { authorization: token, "content-type": "application/json", accept: "application/json" };
  /**
   * @param {string} path
   * @param {object} body
   * @returns {Promise<Envelope>}
   */
  const bare = async (path, body) => {
    const response = await request(new URL(path, emulator.url), {
      method: "POST",
      dispatcher: agent,
      headers,
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`bare ${path}: HTTP ${response.statusCode}`);
    const json = /** @type {Envelope} */ (parseJson(text));
    if (json.code !== "200") throw new Error(`bare ${path}: code ${json.code}`);
    return json;
  };
  /**
   * @param {string} route
   * @param {object} [body]
   */
  const admin = async (route, body) => {
    const response = await request(new URL(`/__emulator/${route}`, emulator.url), {
      method: "POST",
      dispatcher: agent,
      // Only the admin token the emulator printed opens the admin routes.
      headers: { authorization: adminToken, "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`emulator admin ${route}: HTTP ${response.statusCode}`);
  };
  const apiRequests = async () => {
    const response = await request(new URL("/__emulator/counters", emulator.url), {
      dispatcher: agent,
      headers: { authorization: adminToken },
    });
    const counters = /** @type {{ list: number, create: number }} */ (parseJson(await response.body.text()));
    return counters.list + counters.create;
  };
  const listBody = (/** @type {string} */ name, /** @type {number} */ limit) => ({
    cursor: "",
    limit,
    webhook_name: name,
    webhook_url: "",
    ascending: "true",
  });

  try {
    // A short request log: trimming a full 10000-entry log costs the emulator on every request.
    await admin("config", { requestLogLimit: 100 });
    for (let i = 0; i < SEEDED; i++) {
      await bare(CREATE_PATH, {
        webhook_name: `seed-${i}`,
        webhook_url: `https://example.com/hooks/seed-${i}`,
      });
    }
    // Real cursors, one per starting position, so that the page requests in flight all differ:
    // identical concurrent lists would be coalesced by the client into one request, which is
    // not what this compares.
    /** @type {string[]} */
    const cursors = [];
    for (let cursor = ""; cursors.length < PAGE_STARTS;) {
      const page = await bare(LIST_PATH, { ...listBody("", 1), cursor });
      cursor = page.data.cursor;
      cursors.push(cursor);
    }
    const cursorAt = (/** @type {number} */ i) => /** @type {string} */ (cursors[i % PAGE_STARTS]);
    let tag = 0;
    /**
     * requestsPerCall: what one call of either side must send (checked); default 1.
     * @type {{ name: string, before?: () => Promise<void>, maxOps?: number, requestsPerCall?: number,
     *   client: (i: number) => Promise<unknown>, bare: (i: number) => Promise<unknown> }[]}
     */
    const cases = [
      {
        name: "list by name (1 record)",
        client: (i) => client.list({ webhookName: `seed-${i % SEEDED}` }),
        bare: (i) => bare(LIST_PATH, listBody(`seed-${i % SEEDED}`, 100)),
      },
      {
        name: "list page (100 records)",
        client: (i) => client.list({ cursor: cursorAt(i), limit: 100 }),
        bare: (i) => bare(LIST_PATH, { ...listBody("", 100), cursor: cursorAt(i) }),
      },
      {
        // Last, and on an emptied store before every trial: the emulator copies its whole store on
        // each create (WebhookStore.commit), so a growing store would throttle both sides alike.
        // A safe create lists by name first (WebhooksClient.create never duplicates an endpoint
        // that existed before), so the bare side makes the same two requests.
        name: "create",
        before: () => admin("reset"),
        maxOps: 2000,
        requestsPerCall: 2,
        client: (i) =>
          client.create({
            webhookName: `c-${tag}-${i}`,
            webhookUrl: `https://example.com/hooks/c-${tag}-${i}`,
          }),
        bare: async (i) => {
          await bare(LIST_PATH, listBody(`b-${tag}-${i}`, 100));
          return bare(CREATE_PATH, {
            webhook_name: `b-${tag}-${i}`,
            webhook_url: `https://example.com/hooks/b-${tag}-${i}`,
          });
        },
      },
    ];
    /** @type {ClientResult[]} */
    const results = [];
    for (const c of cases) {
      // Warm-up of both (connections, JIT), not counted.
      /**
       * @param {number} count
       * @param {(i: number) => Promise<unknown>} fn
       */
      const measure = async (count, fn) => {
        tag++;
        await c.before?.();
        const before = await apiRequests();
        const cpuBefore = process.cpuUsage();
        const rate = await trial(count, concurrency, fn);
        const cpu = process.cpuUsage(cpuBefore);
        const sent = (await apiRequests()) - before;
        const expected = count * (c.requestsPerCall ?? 1);
        if (sent !== expected) {
          throw new Error(
            `client benchmark ${c.name}: ${count} calls made ${sent} requests; the comparison needs ${c.requestsPerCall ?? 1} each`,
          );
        }
        // CPU of this process only (the emulator is another process): what each side costs per call.
        return { rate, cpuMicros: (cpu.user + cpu.system) / count };
      };
      const count = Math.min(ops, c.maxOps ?? ops);
      const warmUp = Math.max(Math.ceil(count / 2), 1000);
      await measure(warmUp, c.client);
      await measure(warmUp, c.bare);
      const clientTrials = [];
      const bareTrials = [];
      for (let r = 0; r < runs; r++) {
        clientTrials.push(await measure(count, c.client));
        bareTrials.push(await measure(count, c.bare));
      }
      const clientRates = clientTrials.map((t) => t.rate);
      const bareRates = bareTrials.map((t) => t.rate);
      const row = {
        name: c.name,
        ops: count,
        client: median(clientRates),
        bare: median(bareRates),
        clientCpuMicros: median(clientTrials.map((t) => t.cpuMicros)),
        bareCpuMicros: median(bareTrials.map((t) => t.cpuMicros)),
        clientRates,
        bareRates,
      };
      log(
        `client ${c.name}: client ${row.client.toFixed(0)} ops/s (${row.clientCpuMicros.toFixed(0)} µs CPU/op), bare ${row.bare.toFixed(0)} ops/s (${row.bareCpuMicros.toFixed(0)} µs CPU/op)`,
      );
      results.push(row);
    }
    return results;
  } finally {
    await client.close();
    await agent.close();
    await emulator.close();
  }
}
