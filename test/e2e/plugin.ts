// The native plugin installed the Pulumi way, for the end-to-end tests: the linux-amd64 release archive
// (`npm run release:archives -- --platform linux-amd64`, built from this checkout once per run), installed
// with the command the build prints into a test's own PULUMI_HOME, and a PATH that holds the Pulumi CLI and
// no `node`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runProcess, type RunResult } from "../../scripts/harness/process.mjs";
import { E2E_DIR, REPO } from "./paths";

export const ARCHIVE_DIR = join(E2E_DIR, "plugin-archive");
/** A directory with `pulumi` (and its YAML language host) and nothing else: the PATH of a machine without Node.js. */
export const NO_NODE_BIN = join(E2E_DIR, "no-node-bin");
/** The release build, run as a maintainer runs it (npm run release:archives). */
export const RELEASE_ARCHIVES = join(REPO, "scripts", "release", "archives.mjs");

export interface PluginArchive {
  /** The linux-amd64 single-executable archive. */
  path: string;
  bytes: number;
  executableBytes: number;
  sha256: string;
  /** The command the build printed to install it, its checksum included. */
  install: string;
  /** The checksums file written beside it. */
  checksums: string;
}

/** What `npm run release:archives -- --json` prints. */
export interface ReleaseReport {
  version: string;
  node: string;
  archives: {
    platform: string;
    kind: string;
    path: string;
    bytes: number;
    executableBytes: number;
    sha256: string;
    install: string;
  }[];
  checksums: string;
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
 * The linux-amd64 release archive, built once per end-to-end run (the setup empties E2E_DIR); the builds of
 * two files running at once would write the same bytes (the build is reproducible).
 */
export function pluginArchive(): PluginArchive {
  const saved = join(ARCHIVE_DIR, "archive.json");
  if (existsSync(saved)) return JSON.parse(readFileSync(saved, "utf8")) as PluginArchive;
  mkdirSync(ARCHIVE_DIR, { recursive: true });
  const printed = execFileSync(
    process.execPath,
    [RELEASE_ARCHIVES, "--platform", "linux-amd64", "--out", ARCHIVE_DIR, "--json"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  const report = JSON.parse(printed) as ReleaseReport;
  const built = report.archives.find((a) => a.platform === "linux-amd64");
  if (built === undefined || built.kind !== "single-executable" || report.archives.length !== 1)
    throw new Error(`npm run release:archives built no linux-amd64 single executable alone:\n${printed}`);
  const archive: PluginArchive = {
    path: built.path,
    bytes: built.bytes,
    executableBytes: built.executableBytes,
    sha256: built.sha256,
    install: built.install,
    checksums: report.checksums,
  };
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
