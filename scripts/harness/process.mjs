// @ts-check
/**
 * The one way the harness runs a command: spawned without a shell, output collected, wall time
 * measured, and never a rejection. The caller checks `code`; a command that could not be started
 * or was aborted resolves with code -1 and says why in `error`.
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { ProcSampler } from "./proc-sampler.mjs";

/**
 * @typedef {object} RunResult
 * @property {number} code the exit code; -1 when the process could not start or ended by a signal
 * @property {NodeJS.Signals | null} signal the signal that ended it, if one did
 * @property {string} stdout
 * @property {string} stderr
 * @property {string} output stdout and stderr interleaved in the order they arrived
 * @property {number} ms wall time, whole milliseconds
 * @property {string} [error] why the process could not be started, or that it was aborted
 * @property {import("./proc-sampler.mjs").Sample} [sample] present when `sample` was asked for
 */

/**
 * @typedef {object} RunOptions
 * @property {string} cwd
 * @property {Record<string, string | undefined>} [env] merged over process.env; an undefined value
 *   removes the variable
 * @property {AbortSignal} [signal] aborting kills the process with `killSignal`
 * @property {NodeJS.Signals} [killSignal] default SIGTERM
 * @property {import("./proc-sampler.mjs").SampleOptions} [sample] poll /proc for the peak RSS and
 *   CPU time of the process and its descendants
 */

/**
 * After the process exits, how long to wait for its output pipes to close: a detached grandchild can hold
 * them open.
 */
const CLOSE_GRACE_MS = 2000;

/**
 * @param {string} command
 * @param {readonly string[]} args
 * @param {RunOptions} options
 * @returns {Promise<RunResult>}
 */
export function runProcess(command, args, options) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.signal ? { signal: options.signal, killSignal: options.killSignal ?? "SIGTERM" } : {}),
    });
    const sampler =
      options.sample && child.pid !== undefined ? new ProcSampler(child.pid, options.sample) : undefined;
    let stdout = "";
    let stderr = "";
    let output = "";
    /** @type {string | undefined} */
    let error;
    /** @type {number | null} */
    let exitCode = null;
    /** @type {NodeJS.Signals | null} */
    let exitSignal = null;
    let settled = false;
    child.stdout.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
      stderr += chunk;
      output += chunk;
    });
    const finish = () => {
      if (settled) return;
      settled = true;
      const sample = sampler?.stop();
      /** @type {RunResult} */
      const result = {
        code: exitCode ?? -1,
        signal: exitSignal,
        stdout,
        stderr,
        output,
        ms: Math.round(performance.now() - started),
      };
      if (error !== undefined) result.error = error;
      if (sample !== undefined) result.sample = sample;
      resolve(result);
    };
    child.on("error", (e) => {
      error =
        e.name === "AbortError"
          ? `aborted (${options.killSignal ?? "SIGTERM"})`
          : `could not run ${command}: ${e.message}`;
      // When the process never started there is no exit or close to wait for.
      if (child.pid === undefined) finish();
    });
    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, CLOSE_GRACE_MS).unref();
    });
    child.on("close", finish);
  });
}
