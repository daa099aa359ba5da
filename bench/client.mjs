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
const SEEDED = 200;

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
  const listBody = (name, limit) => ({ cursor: "", limit, webhook_name: name, webhook_url: "", ascending: "true" });

  try {
    for (let i = 0; i < SEEDED; i++) {
      await bare(CREATE_PATH, { webhook_name: `seed-${i}`, webhook_url: `https://example.com/hooks/seed-${i}` });
    }
    let tag = 0;
    const cases = [
      {
        name: "list by name (1 record)",
        client: (i) => client.list({ webhookName: `seed-${i % SEEDED}` }),
        bare: (i) => bare(LIST_PATH, listBody(`seed-${i % SEEDED}`, 100)),
      },
      {
        // Limits 85..100 so that the calls in flight differ: identical concurrent lists would be
        // coalesced by the client into one request, which is not what this case measures.
        name: "list page (~100 records)",
        client: (i) => client.list({ limit: 100 - (i % 16) }),
        bare: (i) => bare(LIST_PATH, listBody("", 100 - (i % 16))),
      },
      {
        // Last: creates grow the store, which the list cases scan.
        name: "create",
        client: (i) => client.create({ webhookName: `c-${tag}-${i}`, webhookUrl: `https://example.com/hooks/c-${tag}-${i}` }),
        bare: (i) => bare(CREATE_PATH, { webhook_name: `b-${tag}-${i}`, webhook_url: `https://example.com/hooks/b-${tag}-${i}` }),
      },
    ];
    const results = [];
    for (const c of cases) {
      // Warm-up of both (connections, JIT), not counted.
      await trial(Math.ceil(ops / 4), concurrency, c.client);
      await trial(Math.ceil(ops / 4), concurrency, c.bare);
      const clientRates = [];
      const bareRates = [];
      for (let r = 0; r < runs; r++) {
        tag++;
        clientRates.push(await trial(ops, concurrency, c.client));
        bareRates.push(await trial(ops, concurrency, c.bare));
      }
      const row = { name: c.name, client: median(clientRates), bare: median(bareRates), clientRates, bareRates };
      log(`client ${c.name}: client ${row.client.toFixed(0)} ops/s, bare ${row.bare.toFixed(0)} ops/s`);
      results.push(row);
    }
    return results;
  } finally {
    await client.close();
    await agent.close();
    await emulator.close();
  }
}
