import { spawn } from "node:child_process";
import { showable } from "../../text";
import { CliError, EXIT } from "../exit";

/**
 * Running the Pulumi CLI. Every command runs with `--non-interactive`, in the project directory,
 * with our environment (backend, passphrase, ...). What a command prints on stdout may hold secrets
 * (`config --show-secrets`): it stays in memory and is never echoed; only stderr is ever quoted.
 */
export interface PulumiResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface PulumiRunner {
  /**
   * Runs `pulumi <args> --non-interactive`; `input` is written to its stdin. Rejects with {@link
   * PulumiMissingError}.
   */
  run(args: readonly string[], options?: { input?: string; cwd?: string }): Promise<PulumiResult>;
}

/** `pulumi` is not on PATH (or cannot be started). */
export class PulumiMissingError extends Error {
  override name = "PulumiMissingError";
}

/** Most bytes of pulumi's output kept (a large stack's export is tens of MB). */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** The real CLI, found on PATH (or at `command`). */
export function pulumiCli(options: { cwd: string; env?: NodeJS.ProcessEnv; command?: string }): PulumiRunner {
  return {
    run(args, runOptions = {}) {
      return new Promise((resolve, reject) => {
        const child = spawn(options.command ?? "pulumi", [...args, "--non-interactive"], {
          cwd: runOptions.cwd ?? options.cwd,
          env: options.env ?? process.env,
          stdio: ["pipe", "pipe", "pipe"],
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let bytes = 0;
        const keep = (into: Buffer[]) => (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= MAX_OUTPUT_BYTES) into.push(chunk);
        };
        child.stdout.on("data", keep(out));
        child.stderr.on("data", keep(err));
        child.on("error", (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT" || error.code === "EACCES")
            reject(new PulumiMissingError(`pulumi is not on PATH (${error.code})`));
          else reject(error);
        });
        child.on("close", (code, signal) => {
          if (bytes > MAX_OUTPUT_BYTES) {
            reject(new Error(`pulumi ${args[0] ?? ""} printed more than ${MAX_OUTPUT_BYTES} bytes`));
            return;
          }
          resolve({
            code: code ?? (signal ? 128 : 1),
            stdout: Buffer.concat(out).toString("utf8"),
            stderr: Buffer.concat(err).toString("utf8"),
          });
        });
        // A pulumi that exits before reading its input must not crash us with EPIPE.
        child.stdin.on("error", () => undefined);
        child.stdin.end(runOptions.input ?? "");
      });
    },
  };
}

/** Most of pulumi's explanation of a failure shown (UTF-8 bytes). */
const FAILURE_BYTES = 1200;

/** pulumi's own explanation of a failure, whole, on one line. */
function failureText(result: PulumiResult): string {
  const text = (result.stderr.trim() || result.stdout.trim() || `exit code ${result.code}`).replace(
    /\s+\n/g,
    "\n",
  );
  return text.replace(/\n/g, " | ");
}

/**
 * pulumi's own explanation of a failure, bounded and without control characters; with `redacted`,
 * the text policy's redaction of the whole text first (`redactShown`), so that a secret the cut
 * would split is never shown in part.
 */
export function pulumiFailure(result: PulumiResult, redacted?: (text: string) => string): string {
  const text = failureText(result);
  return showable(redacted === undefined ? text : redacted(text), FAILURE_BYTES);
}

/** `--stack S`, or nothing for the current stack. */
export function stackArgs(stack: string | undefined): string[] {
  return stack === undefined ? [] : ["--stack", stack];
}

/** Runs a pulumi command that must succeed; a failure is a CliError with pulumi's explanation. */
export async function pulumiOk(
  pulumi: PulumiRunner,
  args: readonly string[],
  what: string,
  options: { input?: string; exitCode?: (typeof EXIT)[keyof typeof EXIT] } = {},
): Promise<string> {
  let result: PulumiResult;
  try {
    result = await pulumi.run(args, options.input === undefined ? {} : { input: options.input });
  } catch (error) {
    if (error instanceof PulumiMissingError) {
      throw new CliError(
        EXIT.config,
        `${what} needs the Pulumi CLI, and ${error.message}: install it (https://www.pulumi.com/docs/install/) or put it on PATH`,
      );
    }
    throw error;
  }
  if (result.code !== 0)
    throw new CliError(
      options.exitCode ?? EXIT.config,
      `${what} failed: \`pulumi ${args.join(" ")}\`: ${pulumiFailure(result)}`,
    );
  return result.stdout;
}

/** Parses what a pulumi command printed as JSON, or fails saying which command it was. */
export function parsePulumiJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(EXIT.unexpected, `${what}: pulumi did not print JSON`);
  }
}

/** `pulumi whoami --json`: the backend URL. */
export async function backendUrl(pulumi: PulumiRunner): Promise<string | undefined> {
  try {
    const result = await pulumi.run(["whoami", "--json"]);
    if (result.code !== 0) return undefined;
    const parsed = JSON.parse(result.stdout) as { url?: unknown };
    return typeof parsed.url === "string" ? parsed.url : undefined;
  } catch {
    return undefined;
  }
}
