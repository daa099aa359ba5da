// Client micro-benchmark: WebhooksClient against a bare undici request loop (keep-alive Agent,
// same bodies, same headers, JSON.parse of the body), same emulator, same concurrency,
// trials alternated (client, bare, client, bare, ...), median ops/s of each.
//
// The emulator runs in its own process (dist/emulator/bin.js) so that its work is not charged
// to either side of the comparison and does not dilute the ratio.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const LIST_PATH = "/open-api/v1/webhooks";
const CREATE_PATH = "/open-api/v1/webhooks/create";
const SEEDED = 400;
const PAGE_STARTS = 300;

export async function startEmulatorProcess(repo, token) {
  const child = spawn(process.execPath, [join(repo, "dist/emulator/bin.js"), "--token", token, "--latency-ms", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("the emulator process did not start within 10 s")), 10_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`the emulator process exited with ${code}`)));
  });
  child.stdout.resume();
  return {
    url,
    pid: child.pid,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Runs `ops` calls of `fn(i)` with `concurrency` in flight; returns ops per second. */
async function trial(ops, concurrency, fn) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < ops) await fn(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ops / ((performance.now() - started) / 1000);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export async function clientBenchmark({ repo, ops, concurrency, runs, log }) {
  const require = createRequire(join(repo, "package.json"));
  const { WebhooksClient } = require(join(repo, "dist/index.js"));
  const { Agent, request } = require("undici");
  const token = "bench_client_tok_5c2e9a71d04b";
  const emulator = await startEmulatorProcess(repo, token);
  const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: token });
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const headers = { authorization: token, "content-type": "application/json", accept: "application/json" };
  const bare = async (path, body) => {
    const response = await request(new URL(path, emulator.url), { method: "POST", dispatcher: agent, headers, body: JSON.stringify(body) });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`bare ${path}: HTTP ${response.statusCode}`);
    const json = JSON.parse(text);
    if (json.code !== "200") throw new Error(`bare ${path}: code ${json.code}`);
    return json;
  };
  const admin = async (route, body) => {
    const response = await request(new URL(`/__emulator/${route}`, emulator.url), {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`emulator admin ${route}: HTTP ${response.statusCode}`);
  };
  const apiRequests = async () => {
    const response = await request(new URL("/__emulator/counters", emulator.url), { dispatcher: agent });
    const counters = JSON.parse(await response.body.text());
    return counters.list + counters.create;
  };
  const listBody = (name, limit) => ({ cursor: "", limit, webhook_name: name, webhook_url: "", ascending: "true" });

  try {
    // A short request log: trimming a full 10000-entry log costs the emulator on every request.
    await admin("config", { requestLogLimit: 100 });
    for (let i = 0; i < SEEDED; i++) {
      await bare(CREATE_PATH, { webhook_name: `seed-${i}`, webhook_url: `https://example.com/hooks/seed-${i}` });
    }
    // Real cursors, one per starting position, so that the page requests in flight all differ:
    // identical concurrent lists would be coalesced by the client into one request, which is
    // not what this compares.
    const cursors = [];
    for (let cursor = ""; cursors.length < PAGE_STARTS; ) {
      const page = await bare(LIST_PATH, { ...listBody("", 1), cursor });
      cursor = page.data.cursor;
      cursors.push(cursor);
    }
    let tag = 0;
    const cases = [
      {
        name: "list by name (1 record)",
        client: (i) => client.list({ webhookName: `seed-${i % SEEDED}` }),
        bare: (i) => bare(LIST_PATH, listBody(`seed-${i % SEEDED}`, 100)),
      },
      {
        name: "list page (100 records)",
        client: (i) => client.list({ cursor: cursors[i % PAGE_STARTS], limit: 100 }),
        bare: (i) => bare(LIST_PATH, { ...listBody("", 100), cursor: cursors[i % PAGE_STARTS] }),
      },
      {
        // Last, and on an emptied store before every trial: the emulator copies its whole store on
        // each create (WebhookStore.commit), so a growing store would throttle both sides alike.
        name: "create",
        before: () => admin("reset"),
        maxOps: 2000,
        client: (i) => client.create({ webhookName: `c-${tag}-${i}`, webhookUrl: `https://example.com/hooks/c-${tag}-${i}` }),
        bare: (i) => bare(CREATE_PATH, { webhook_name: `b-${tag}-${i}`, webhook_url: `https://example.com/hooks/b-${tag}-${i}` }),
      },
    ];
    const results = [];
    for (const c of cases) {
      // Warm-up of both (connections, JIT), not counted.
      const measure = async (count, fn) => {
        tag++;
        await c.before?.();
        const before = await apiRequests();
        const cpuBefore = process.cpuUsage();
        const rate = await trial(count, concurrency, fn);
        const cpu = process.cpuUsage(cpuBefore);
        const sent = (await apiRequests()) - before;
        if (sent !== count) throw new Error(`client benchmark ${c.name}: ${count} calls made ${sent} requests; the comparison needs one each`);
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
