// The native plugin installed the Pulumi way, for the end-to-end tests: the archive `webhooks plugin-archive`
// makes from the installed package (once per run), installed with the command it prints into a test's own
// PULUMI_HOME, and a PATH that holds the Pulumi CLI and no `node`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runProcess, type RunResult } from "../../scripts/harness/process.mjs";
import { BASE_DIR, E2E_DIR, REPO } from "./paths";

const ARCHIVE_DIR = join(E2E_DIR, "plugin-archive");
/** A directory with `pulumi` (and its YAML language host) and nothing else: the PATH of a machine without Node.js. */
export const NO_NODE_BIN = join(E2E_DIR, "no-node-bin");
/** The installed package's own copy of the CLI, run as a user runs `webhooks` after npm install. */
const WEBHOOKS_CLI = join(BASE_DIR, "node_modules", "pulumi-webhook-endpoints", "dist", "cli", "main.js");

export interface PluginArchive {
  /** The linux-amd64 single-executable archive. */
  path: string;
  bytes: number;
  executableBytes: number;
  /** The command `webhooks plugin-archive` printed to install it. */
  install: string;
  /** What the command printed, whole. */
  printed: string;
}

/** Lines of output carrying the engine's warning about a plugin it took from PATH (a progress row may repeat one). */
export function pathWarnings(text: string): number {
  return text.match(/using pulumi-resource-webhooks from \$PATH/g)?.length ?? 0;
}

/** The warnings themselves: those listed under the run's "Diagnostics:" (one per plugin load). */
export function diagnosedPathWarnings(text: string): number {
  const diagnostics = text.split("\nDiagnostics:\n")[1]?.split(/\n(?:Outputs|Resources):\n/)[0] ?? "";
  return pathWarnings(diagnostics);
}

/**
 * `webhooks plugin-archive` from the installed package, once per end-to-end run (the setup empties E2E_DIR):
 * the archive for this machine, as the user sees it printed.
 */
export function pluginArchive(): PluginArchive {
  const saved = join(ARCHIVE_DIR, "archive.json");
  if (existsSync(saved)) return JSON.parse(readFileSync(saved, "utf8")) as PluginArchive;
  mkdirSync(ARCHIVE_DIR, { recursive: true });
  const printed = execFileSync(process.execPath, [WEBHOOKS_CLI, "plugin-archive", "--out", ARCHIVE_DIR], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  // "<path>  linux-amd64  single executable, needs no Node.js  45.1 MB (executable 129.7 MB)  sha256 <hex>", then the install command.
  const row = printed.split("\n").find((line) => line.includes("  linux-amd64  "));
  const install = /Install it for Pulumi with:\n {2}(.+)\n/.exec(printed)?.[1];
  if (row === undefined || install === undefined || !row.includes("single executable"))
    throw new Error(`webhooks plugin-archive printed no linux-amd64 single executable:\n${printed}`);
  const path = row.split("  ")[0]!;
  const size = (file: string) =>
    Number(execFileSync("stat", ["-c", "%s", file], { encoding: "utf8" }).trim());
  const listing = execFileSync("tar", ["-tvzf", path], { encoding: "utf8" }).trim().split("\n");
  const executableBytes = Number(listing[0]?.split(/\s+/)[2]);
  const archive: PluginArchive = { path, bytes: size(path), executableBytes, install, printed };
  writeFileSync(saved, JSON.stringify(archive));
  return archive;
}

/** Links `pulumi`, and its YAML language host when it is not beside it, into NO_NODE_BIN. */
export function noNodeBin(): string {
  if (existsSync(join(NO_NODE_BIN, "pulumi"))) return NO_NODE_BIN;
  mkdirSync(NO_NODE_BIN, { recursive: true });
  const which = (name: string) =>
    execFileSync("/bin/sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  const pulumi = realpathSync(which("pulumi"));
  symlinkSync(pulumi, join(NO_NODE_BIN, "pulumi"));
  // The CLI takes a language host from beside its own executable first; only one found elsewhere needs PATH.
  if (!existsSync(join(dirname(pulumi), "pulumi-language-yaml")))
    symlinkSync(realpathSync(which("pulumi-language-yaml")), join(NO_NODE_BIN, "pulumi-language-yaml"));
  return NO_NODE_BIN;
}

/** `command -v node` in a shell with this PATH: undefined when there is no node. */
export async function nodeOn(path: string): Promise<string | undefined> {
  const result = await runProcess("/bin/sh", ["-c", "command -v node"], {
    cwd: E2E_DIR,
    env: { PATH: path },
  });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** Runs the printed install command with a POSIX shell, the CLI found on the no-node PATH, into `home`. */
export async function installPlugin(home: string): Promise<RunResult> {
  const { install } = pluginArchive();
  const result = await runProcess("/bin/sh", ["-c", `${install} --non-interactive`], {
    cwd: E2E_DIR,
    env: { PATH: noNodeBin(), PULUMI_HOME: home },
  });
  if (result.code !== 0) throw new Error(`${install} failed (${result.code}):\n${result.output}`);
  return result;
}

/**
 * A directory with a copy of `pulumi` and, beside it, this checkout's stand-in language hosts: the Node.js one
 * (which the CLI takes from beside its own executable before PATH; in the shared engine cache that link points
 * at whichever checkout last set it up) and codegen-only Python and Go ones (`-runtime python|go`), each running
 * scripts/sdkgen ($PWE_SDKGEN) for code generation. For the tests of `pulumi package gen-sdk` and `pulumi import`.
 */
export function ownLanguageHosts(): string {
  const dir = join(E2E_DIR, "own-language-hosts");
  if (existsSync(join(dir, "pulumi"))) return dir;
  mkdirSync(dir, { recursive: true });
  const which = (name: string) =>
    execFileSync("/bin/sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  execFileSync("cp", ["--reflink=auto", realpathSync(which("pulumi")), join(dir, "pulumi")]);
  const standIn = join(REPO, "scripts", "engine", "pulumi-language-nodejs");
  symlinkSync(standIn, join(dir, "pulumi-language-nodejs"));
  symlinkSync(realpathSync(which("pulumi-language-yaml")), join(dir, "pulumi-language-yaml"));
  for (const language of ["python", "go"])
    writeFileSync(
      join(dir, `pulumi-language-${language}`),
      `#!/bin/sh\nexec "${process.execPath}" "${standIn}" -runtime ${language} "$@"\n`,
      { mode: 0o755 },
    );
  return dir;
}

/** The path of scripts/sdkgen, built once per change of its sources (scripts/sdk-check.sh --generator-path). */
export function sdkgenPath(): string {
  return execFileSync("bash", [join(REPO, "scripts", "sdk-check.sh"), "--generator-path"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}
