// @ts-check
/**
 * The emulator as a separate process: `node <bin> [flags]`, whose first stdout line is
 * `webhooks emulator listening on <url>` (src/emulator/bin.ts). That line is parsed here and
 * nowhere else: scripts/demo.sh calls this file's command line (`wait-url`) instead of parsing it.
 *
 *   node scripts/harness/emulator.mjs wait-url <log-file> <pid> [timeout-ms]
 *     waits until the log holds the line, prints the URL; exits 1 with a reason on stderr if the
 *     process <pid> ends first or the time runs out (default 15000 ms)
 */
import { spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isRunning } from "./proc-sampler.mjs";
import { PACKAGE_NAME, REPO, readJson } from "./repo.mjs";

/** What the emulator prints, followed by its URL, once it accepts connections. */
export const LISTENING_PREFIX = "webhooks emulator listening on ";

/**
 * The URL of the first "listening on" line in `text`, if a complete one is there.
 * @param {string} text output of the emulator, possibly partial
 * @returns {string | undefined}
 */
export function findListeningUrl(text) {
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  for (const line of complete.split("\n")) {
    if (line.startsWith(LISTENING_PREFIX)) {
      const url = line.slice(LISTENING_PREFIX.length).trim();
      if (/^https?:\/\/\S+$/.test(url)) return url;
    }
  }
  return undefined;
}

/** The checkout's built emulator (dist/ must be built). */
const REPO_EMULATOR_BIN = join(REPO, "dist", "emulator", "bin.js");

/**
 * The `webhooks-emulator` bin of the package installed for a project, as its package.json declares it.
 * @param {string} projectDir
 * @returns {string}
 */
export function installedEmulatorBin(projectDir) {
  const manifestFile = createRequire(join(projectDir, "package.json")).resolve(
    `${PACKAGE_NAME}/package.json`,
  );
  /** @type {{ bin?: Record<string, string> }} */
  const manifest = readJson(manifestFile);
  const bin = manifest.bin?.["webhooks-emulator"];
  if (bin === undefined) throw new Error(`${manifestFile} declares no webhooks-emulator bin`);
  return join(dirname(manifestFile), bin);
}

/**
 * @typedef {object} EmulatorProcess
 * @property {string} url
 * @property {number} pid
 * @property {import("node:child_process").ChildProcess} child
 * @property {() => string} output everything it printed so far, stdout and stderr
 * @property {() => Promise<void>} close SIGTERM, then waits for the exit
 */

/**
 * @typedef {object} EmulatorProcessOptions
 * @property {string} [bin] default the checkout's dist/emulator/bin.js
 * @property {string[]} [args] flags, e.g. ["--latency-ms", "0"]; a token is best passed in `env`
 *   (WEBHOOKS_ACCESS_TOKEN), which `ps` does not show
 * @property {Record<string, string | undefined>} [env] over process.env
 * @property {string} [cwd]
 * @property {number} [timeoutMs] for the listening line; default 10000
 */

/**
 * Starts the emulator as a child process and resolves once it listens.
 * @param {EmulatorProcessOptions} [options]
 * @returns {Promise<EmulatorProcess>}
 */
export function startEmulatorProcess(options = {}) {
  const bin = options.bin ?? REPO_EMULATOR_BIN;
  const child = spawn(process.execPath, [bin, ...(options.args ?? [])], {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const fail = (/** @type {string} */ why) => {
      cleanup();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      reject(new Error(`the emulator (${bin}) ${why}; it printed:\n${output}`));
    };
    const timer = setTimeout(() => fail(`did not report its address within ${timeoutMs} ms`), timeoutMs);
    const onData = () => {
      const url = findListeningUrl(stdout);
      if (url === undefined || child.pid === undefined) return;
      cleanup();
      resolve({ url, pid: child.pid, child, output: () => output, close });
    };
    const onExit = (/** @type {number | null} */ code, /** @type {NodeJS.Signals | null} */ signal) =>
      fail(`exited (${code ?? signal}) before listening`);
    const onError = (/** @type {Error} */ error) => fail(`could not be started: ${error.message}`);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.off("exit", onExit);
      child.off("error", onError);
    };
    child.stdout.on("data", onData);
    child.once("exit", onExit);
    child.once("error", onError);
  });
}

/** What the emulator prints, followed by the admin token it generated, right after it listens. */
export const ADMIN_TOKEN_PREFIX = "admin token: ";

/**
 * The admin token an emulator process generated and printed (the only token that opens its admin
 * routes); waits for the line if it has not come yet.
 * @param {EmulatorProcess} emulator
 * @returns {Promise<string>}
 */
export function printedAdminToken(emulator) {
  const find = () => {
    const line = emulator
      .output()
      .split("\n")
      .slice(0, -1)
      .find((text) => text.startsWith(ADMIN_TOKEN_PREFIX));
    return line === undefined ? undefined : line.slice(ADMIN_TOKEN_PREFIX.length).trim();
  };
  return new Promise((resolve, reject) => {
    const check = () => {
      const token = find();
      if (token === undefined) return;
      stop();
      if (/^[0-9a-f]{32}$/.test(token)) resolve(token);
      else reject(new Error(`the emulator printed no generated admin token (${JSON.stringify(token)})`));
    };
    const onExit = () => {
      stop();
      reject(
        new Error(`the emulator exited before printing its admin token; it printed:\n${emulator.output()}`),
      );
    };
    const stop = () => {
      emulator.child.stdout?.off("data", check);
      emulator.child.off("exit", onExit);
    };
    emulator.child.stdout?.on("data", check);
    emulator.child.once("exit", onExit);
    check();
  });
}

/**
 * Waits for the listening line in the log of an emulator started elsewhere (in the background by
 * a shell script), while its process lives.
 * @param {string} logFile
 * @param {number} pid
 * @param {number} timeoutMs
 * @returns {Promise<string>} the URL
 */
async function waitForListeningUrl(logFile, pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text = "";
    try {
      text = readFileSync(logFile, "utf8");
    } catch {
      // not written yet
    }
    const url = findListeningUrl(text);
    if (url !== undefined) return url;
    if (!isRunning(pid)) throw new Error("the emulator exited at start");
    if (Date.now() >= deadline)
      throw new Error(`the emulator did not report its address within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main() {
  const [command, logFile, pid, timeout] = process.argv.slice(2);
  if (
    command !== "wait-url" ||
    logFile === undefined ||
    !/^\d+$/.test(pid ?? "") ||
    (timeout !== undefined && !/^\d+$/.test(timeout))
  ) {
    process.stderr.write("usage: node scripts/harness/emulator.mjs wait-url <log-file> <pid> [timeout-ms]\n");
    process.exitCode = 2;
    return;
  }
  try {
    process.stdout.write(`${await waitForListeningUrl(logFile, Number(pid), Number(timeout ?? 15_000))}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

// A command only when run as one; importing this file starts nothing (and it has no top-level
// await, so CommonJS can require it).
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url))
  void main();
