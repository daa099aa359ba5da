// @ts-check
/**
 * Cold start of the native plugin: the time from exec to the port line on stdout (what the engine waits for
 * before its first call), for each plugin given, over several runs, the plugins taken in turn so that a
 * machine's load falls on all of them alike.
 *
 *   node scripts/plugin-startup.mjs [--runs N] [--archive FILE.tar.gz]... [EXECUTABLE]...
 *
 * An archive (from `npm run release:archives`) is unpacked into a temporary directory and its
 * pulumi-resource-webhooks run with an empty PATH (a single executable needs no node); a linux-arm64 archive
 * on an x64 machine runs under qemu-user (qemu-aarch64-static -L /usr/aarch64-linux-gnu, which
 * scripts/ensure-release-tools.sh qemu installs); an executable is run as
 * the engine runs one, with this PATH (e.g. node_modules/.bin/pulumi-resource-webhooks, the npm-installed
 * plugin: node and the package's dist/). Prints min, median and max in milliseconds, and each run.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    archive: { type: "string", multiple: true, default: [] },
  },
  allowPositionals: true,
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive whole number");

/** @type {{ label: string, executable: string, env: NodeJS.ProcessEnv, wrapper?: string[] }[]} */
const plugins = [];
const temporary = mkdtempSync(join(tmpdir(), "pwe-plugin-startup-"));
try {
  for (const [i, archive] of values.archive.entries()) {
    const dir = join(temporary, String(i));
    execFileSync("mkdir", ["-p", dir]);
    execFileSync("tar", ["-xzf", archive, "-C", dir]);
    const emulated = archive.endsWith("-linux-arm64.tar.gz") && process.arch !== "arm64";
    plugins.push({
      label: `${archive} (unpacked, PATH empty${emulated ? ", under qemu-aarch64-static" : ""})`,
      executable: join(dir, "pulumi-resource-webhooks"),
      env: { PATH: "" },
      // By its path: the plugin's own PATH is empty.
      ...(emulated ? { wrapper: [qemuPath(), "-L", "/usr/aarch64-linux-gnu"] } : {}),
    });
  }
  for (const executable of positionals)
    plugins.push({
      label: `${executable} (PATH as here)`,
      executable: resolve(executable),
      env: process.env,
    });
  if (plugins.length === 0)
    throw new Error(
      "usage: node scripts/plugin-startup.mjs [--runs N] [--archive FILE.tar.gz]... [EXECUTABLE]...",
    );

  /** @type {number[][]} */
  const times = plugins.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, plugin] of plugins.entries())
      times[i]?.push(await coldStart(plugin.executable, plugin.env, plugin.wrapper));
  }
  console.log(`cold start, exec to port line, ${runs} runs each (ms):`);
  for (const [i, plugin] of plugins.entries()) {
    const sorted = [...(times[i] ?? [])].sort((a, b) => a - b);
    const median =
      sorted.length % 2 === 1
        ? sorted[(sorted.length - 1) / 2]
        : ((sorted[sorted.length / 2 - 1] ?? 0) + (sorted[sorted.length / 2] ?? 0)) / 2;
    console.log(`  ${plugin.label}`);
    console.log(
      `    min ${sorted[0]?.toFixed(0)}  median ${median?.toFixed(0)}  max ${sorted.at(-1)?.toFixed(0)}   runs: ${(times[i] ?? []).map((t) => t.toFixed(0)).join(" ")}`,
    );
  }
} finally {
  rmSync(temporary, { recursive: true, force: true });
}

/**
 * @param {string} executable
 * @param {NodeJS.ProcessEnv} env
 * @param {string[]} [wrapper] a command that runs the executable
 * @returns {Promise<number>}
 */
function coldStart(executable, env, wrapper = []) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const [command, ...args] = [...wrapper, executable, "127.0.0.1:1"];
    const child = spawn(/** @type {string} */ (command), args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
    child.stdout.on("data", (/** @type {Buffer} */ chunk) => {
      stdout += chunk.toString();
      if (/^\d+\n/.test(stdout)) {
        const elapsed = performance.now() - started;
        child.once("exit", () => resolve(elapsed));
        child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!/^\d+\n/.test(stdout))
        reject(
          new Error(`${executable} exited (${code}) before printing its port: ${stderr.slice(0, 1000)}`),
        );
    });
  });
}

/** qemu-aarch64-static's path on this process's PATH. */
function qemuPath() {
  try {
    return execFileSync("/bin/sh", ["-c", "command -v qemu-aarch64-static"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      "a linux-arm64 archive runs here under qemu-aarch64-static: bash scripts/ensure-release-tools.sh qemu",
    );
  }
}
