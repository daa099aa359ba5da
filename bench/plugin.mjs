// @ts-check
// The single-executable plugin against the npm plugin (BENCH_PARTS=sea): this machine's release archive is built from
// the checkout as a release builds it (`npm run release:archives -- --platform <this machine's>`, docs/native-plugin.md),
// unpacked, and its executable raced against node_modules/.bin/pulumi-resource-webhooks of the package installed from
// the same checkout: cold start (process start to the port printed, the CPU and peak RSS it took to get there), and the
// native face's up and preview through the engine (bench/run.mjs runs those, with the unpacked directory first on PATH).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseJson } from "../scripts/harness/repo.mjs";
import { executableName, hostPlatform } from "../scripts/release/platforms.mjs";

/** USER_HZ on every Linux this runs on. */
const CLOCK_TICKS = 100;

/**
 * @typedef {object} PluginArchive
 * @property {string} platform the archive's platform (this machine's)
 * @property {string} dir the unpacked archive: the plugin executable at its root
 * @property {string} executable
 * @property {string} kind what the build says it made ("single-executable", or a launcher)
 * @property {string} node the pinned Node.js version a single executable is made from
 * @property {number} archiveBytes
 * @property {number} executableBytes
 */

/**
 * Builds this machine's release archive from the checkout with `npm run release:archives` (its build log goes to
 * this process's stderr) into `dir`, and unpacks it into `dir`/plugin.
 * @param {string} repo the checkout whose package the benchmark installed
 * @param {string} dir
 * @returns {PluginArchive}
 */
export function buildHostArchive(repo, dir) {
  const platform = hostPlatform();
  if (platform === undefined)
    throw new Error(
      `no release archive is built for ${process.platform}-${process.arch}: run without the sea part`,
    );
  rmSync(dir, { recursive: true, force: true });
  const unpacked = join(dir, "plugin");
  mkdirSync(unpacked, { recursive: true });
  const out = execFileSync(
    "npm",
    ["run", "--silent", "release:archives", "--", "--platform", platform, "--out", dir, "--json"],
    { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 16 * 1024 * 1024 },
  );
  const { archives, node } =
    /** @type {{ node: string, archives: { platform: string, kind: string, path: string, bytes: number, executableBytes: number }[] }} */ (
      parseJson(out)
    );
  const archive = archives.find((a) => a.platform === platform);
  if (archive === undefined) throw new Error(`release:archives made no ${platform} archive: ${out}`);
  execFileSync("tar", ["-xzf", archive.path, "-C", unpacked]);
  const executable = executableName(platform);
  if (!readdirSync(unpacked).includes(executable))
    throw new Error(`${archive.path} holds no ${executable} at its root`);
  return {
    platform,
    dir: unpacked,
    executable: join(unpacked, executable),
    kind: archive.kind,
    node,
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
