// @ts-check
// The single-executable plugin against the npm plugin (BENCH_PARTS=sea): the archive for this machine is made by
// the installed package's own command (`webhooks plugin-archive`, whatever it builds), unpacked, and its
// executable raced against node_modules/.bin/pulumi-resource-webhooks: cold start (process start to the port
// printed, the CPU and peak RSS it took to get there), and the native face's up and preview through the engine
// (bench/run.mjs runs those, with the unpacked directory first on PATH).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseJson } from "../scripts/harness/repo.mjs";

/** USER_HZ on every Linux this runs on. */
const CLOCK_TICKS = 100;

/**
 * @typedef {object} PluginArchive
 * @property {string} dir the unpacked archive: the plugin executable at its root
 * @property {string} executable
 * @property {string} kind what the command says it built ("single-executable", or a launcher)
 * @property {number} archiveBytes
 * @property {number} executableBytes
 */

/**
 * Builds this machine's archive with the installed package's CLI and unpacks it into `dir`.
 * @param {string} packageDir the installed package (node_modules/pulumi-webhook-endpoints)
 * @param {string} dir
 * @returns {PluginArchive}
 */
export function buildHostArchive(packageDir, dir) {
  rmSync(dir, { recursive: true, force: true });
  const unpacked = join(dir, "plugin");
  mkdirSync(unpacked, { recursive: true });
  const out = execFileSync(
    process.execPath,
    [join(packageDir, "dist", "cli", "main.js"), "plugin-archive", "--out", dir, "--json"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const { archives } =
    /** @type {{ archives: { kind: string, path: string, bytes: number, executableBytes: number }[] }} */ (
      parseJson(out)
    );
  const archive = archives[0];
  if (archive === undefined) throw new Error(`plugin-archive made no archive: ${out}`);
  execFileSync("tar", ["-xzf", archive.path, "-C", unpacked]);
  const executable = readdirSync(unpacked).find((f) => f === "pulumi-resource-webhooks");
  if (executable === undefined)
    throw new Error(`${archive.path} holds no pulumi-resource-webhooks at its root`);
  return {
    dir: unpacked,
    executable: join(unpacked, executable),
    kind: archive.kind,
    archiveBytes: archive.bytes,
    executableBytes: archive.executableBytes,
  };
}

/**
 * @typedef {object} ColdStart
 * @property {number} readyMs from spawn to the port line on stdout
 * @property {number} cpuMs CPU the plugin process had used when it printed its port (its own and its reaped children's)
 * @property {number} peakRss VmHWM at that moment, bytes
 */

/**
 * Starts the plugin as the engine does (its address as the last argument), waits for its port, reads its CPU and
 * peak RSS from /proc, and stops it.
 * @param {string} executable
 * @returns {Promise<ColdStart>}
 */
export function coldStart(executable) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // An address nobody listens on: the plugin only dials it to log, which a cold start never does.
    const child = spawn(executable, ["127.0.0.1:1"], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) =>
      reject(new Error(`${executable} exited (${code}) before printing its port: ${stderr}`)),
    );
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
      if (!/^\d+\s*\n/.test(stdout)) return;
      const readyMs = performance.now() - started;
      const pid = /** @type {number} */ (child.pid);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      child.removeAllListeners("exit");
      child.once("exit", () =>
        resolve({ readyMs, cpuMs: (ticks / CLOCK_TICKS) * 1000, peakRss: hwm ? Number(hwm[1]) * 1024 : NaN }),
      );
      child.kill("SIGKILL");
    });
  });
}
