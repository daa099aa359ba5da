// @ts-check
/**
 * Starting a plugin executable the way the engine does (its address as the one argument) until it prints
 * its port, the first thing the engine waits for.
 */
import { spawn } from "node:child_process";

/**
 * Starts `command [...prefix, executable] 127.0.0.1:1` with exactly `env` and resolves to the port it
 * prints, or rejects with what it wrote to stderr when it exits first or prints nothing for `seconds`.
 * The process is killed either way.
 * @param {string} executable
 * @param {{ env: NodeJS.ProcessEnv, wrapper?: readonly string[], seconds?: number }} options
 *   wrapper: a command that runs the executable (e.g. qemu-aarch64-static -L <sysroot>)
 * @returns {Promise<number>}
 */
export function printsPort(executable, options) {
  const [command, ...prefix] = [...(options.wrapper ?? []), executable];
  const child = spawn(/** @type {string} */ (command), [...prefix, "127.0.0.1:1"], {
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seconds = options.seconds ?? 60;
  let stdout = "";
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${executable} printed no port within ${seconds} s: ${stderr.slice(0, 2000)}`));
    }, seconds * 1000);
    child.stdout.on("data", (/** @type {Buffer} */ chunk) => {
      stdout += chunk.toString();
      const line = /^(\d+)\r?\n/.exec(stdout);
      if (line) {
        clearTimeout(timer);
        child.kill("SIGKILL");
        resolve(Number(line[1]));
      }
    });
    child.stderr.on("data", (/** @type {Buffer} */ chunk) => (stderr += chunk.toString()));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${executable} exited (${signal ?? code}) before printing its port: ${stderr.slice(0, 2000)}`,
        ),
      );
    });
  });
}
