// @ts-check
// The emulator under an unauthenticated flood: how much memory it holds after N POSTs of a body
// that is large once parsed (64 KiB of `[{},{},...]`), none of them carrying a token. The emulator
// is documented as safe to leave running (docs/emulator.md, Bounds): an unauthenticated request
// must cost it no more than a small, fixed amount, and leave nothing behind.
//
//   npm run build && node bench/emulator-flood.mjs [requests=2000] [concurrency=16]
//
// Prints the emulator's resident set size (VmRSS from /proc, Linux only) before the flood, right
// after it, and after the process has idled until two readings a second apart agree within 5%
// (at most 30 s), with the answers' status codes. A measurement, not a test: nothing here asserts.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { startEmulatorProcess } from "../scripts/harness/emulator.mjs";

const REQUESTS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const BODY_BYTES = 64 * 1024;
/** `[{},{},...]`: about 16,000 empty objects once parsed, the most memory 64 KiB of JSON can ask for. */
const BODY = Buffer.from(
  `[${Array.from({ length: (BODY_BYTES - 2) / 3 }, () => "{}").join(",")}]`.padEnd(BODY_BYTES),
);

/** @param {number} pid */
function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

/**
 * One POST without Authorization; resolves to the status code, or the error's code when the
 * emulator closed the connection instead of answering.
 * @param {URL} url
 * @returns {Promise<string>}
 */
function unauthenticatedPost(url) {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(BODY.length) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(String(res.statusCode)));
        res.on("error", (error) => resolve(/** @type {NodeJS.ErrnoException} */ (error).code ?? "error"));
      },
    );
    req.on("error", (error) => resolve(/** @type {NodeJS.ErrnoException} */ (error).code ?? "error"));
    req.end(BODY);
  });
}

const emulator = await startEmulatorProcess({
  args: ["--latency-ms", "0"],
  env: { WEBHOOKS_ACCESS_TOKEN: "flood_tok_3b9e0c2d7a" },
});
try {
  const url = new URL("/open-api/v1/webhooks", emulator.url);
  const before = rssMiB(emulator.pid);
  /** @type {Map<string, number>} */
  const statuses = new Map();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const status = await unauthenticatedPost(url);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = rssMiB(emulator.pid);
  let settled = after;
  for (let i = 0; i < 30; i++) {
    await sleep(1000);
    const now = rssMiB(emulator.pid);
    const steady = Math.abs(now - settled) <= settled * 0.05;
    settled = now;
    if (steady) break;
  }
  console.log(
    JSON.stringify(
      {
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        bodyBytes: BODY.length,
        statuses: Object.fromEntries(statuses),
        seconds: Math.round(seconds * 10) / 10,
        rssMiB: { before, afterFlood: after, settled },
        node: process.version,
      },
      null,
      2,
    ),
  );
} finally {
  await emulator.close();
}
