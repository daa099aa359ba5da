// @ts-check
/**
 * A single executable for any platform, made on this machine (Node.js's single executable applications,
 * `node --build-sea`): the pinned Node.js of this machine's platform writes the blob and injects it into the
 * pinned Node.js binary of the target platform (ELF, Mach-O or PE), which must be the same Node.js version.
 * Its configuration:
 *
 * - execArgvExtension "none": the executable ignores NODE_OPTIONS, so `--require` or `--inspect` set in the
 *   environment cannot run code in, or open a debugger on, the process that holds the access token (with
 *   the default, "env", they do);
 * - no code cache and no snapshot: they are V8 data of the machine that made them, which differ build to
 *   build, and are only valid in the binary that made them;
 * - the main script under a relative name: the blob records it, and a path of the build machine would make
 *   every build differ and reveal where it was made.
 *
 * macOS runs no unsigned code on Apple silicon: a darwin executable is signed ad hoc with rcodesign (crate
 * apple-codesign; `bash scripts/ensure-release-tools.sh rcodesign` installs it) and the signature checked.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { adHocSignatureProblems } from "./inspect.mjs";
import { NODE_BINARIES, PLUGIN_EXECUTABLE, executableName } from "./platforms.mjs";

/** @typedef {import("./platforms.mjs").Platform} Platform */

const execute = promisify(execFile);
/** The main script's name inside the blob. */
export const MAIN_SCRIPT = `${PLUGIN_EXECUTABLE}.js`;
/** The rcodesign the release tools script installs, and where. */
export const RCODESIGN_VERSION = "0.29.0";

/** The SEA configuration: one for every platform, so every executable carries the same blob. */
export const SEA_CONFIG = Object.freeze({
  main: MAIN_SCRIPT,
  mainFormat: "commonjs",
  disableExperimentalSEAWarning: true,
  useSnapshot: false,
  useCodeCache: false,
  execArgvExtension: "none",
});

/**
 * Runs a command; its failure names the step and the end of what it printed.
 * @param {string} command
 * @param {readonly string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} options
 * @param {string} what
 */
export async function step(command, args, options, what) {
  try {
    return await execute(command, [...args], { ...options, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = /** @type {Error & { stderr?: string, stdout?: string }} */ (error);
    const said = `${failure.stderr ?? ""}${failure.stdout ?? ""}`.trim().split("\n").slice(-8).join("\n");
    throw new Error(`${what} failed: ${said || failure.message}`, { cause: error });
  }
}

/**
 * Makes the single executable for `platform` in `dir` (private to this run) from the bundle and that
 * platform's pinned Node.js binary. Must run in the pinned Node.js (the blob's maker and the binary must be
 * the same version).
 * @param {{ platform: Platform, bundle: string, target: string, dir: string }} options
 * @returns {Promise<string>} the executable's path
 */
export async function buildSingleExecutable({ platform, bundle, target, dir }) {
  if (process.versions.node !== NODE_BINARIES.version)
    throw new Error(
      `the blob must be made by Node.js ${NODE_BINARIES.version}, the version of the binaries it goes into; this is ${process.versions.node}`,
    );
  await mkdir(dir, { recursive: true });
  await copyFile(bundle, join(dir, MAIN_SCRIPT));
  const output = executableName(platform);
  await writeFile(
    join(dir, "sea-config.json"),
    JSON.stringify({ ...SEA_CONFIG, executable: target, output }, null, 2),
  );
  // Only PATH: nothing of this environment (NODE_OPTIONS above all) may shape the build.
  await step(
    process.execPath,
    ["--build-sea", "sea-config.json"],
    { cwd: dir, env: { PATH: process.env.PATH ?? "" } },
    `node --build-sea for ${platform}`,
  );
  return join(dir, output);
}

/**
 * The rcodesign to sign with: PWE_RCODESIGN, else the one the release tools script installed, else one on PATH.
 * @returns {string | undefined}
 */
export function findRcodesign(env = process.env) {
  if (env.PWE_RCODESIGN) return existsSync(env.PWE_RCODESIGN) ? env.PWE_RCODESIGN : undefined;
  const base =
    env.PWE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-webhook-endpoints");
  const installed = join(base, `rcodesign-${RCODESIGN_VERSION}`, "bin", "rcodesign");
  if (existsSync(installed)) return installed;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, "rcodesign"))) return join(dir, "rcodesign");
  }
  return undefined;
}

/** What to do without rcodesign: said before anything is built. */
export const RCODESIGN_MISSING = `the darwin archives are signed ad hoc with rcodesign (crate apple-codesign ${RCODESIGN_VERSION}), which is not installed: run \`bash scripts/ensure-release-tools.sh rcodesign\` (cargo install, about 15 minutes on 2 cores), put rcodesign on PATH or name it in PWE_RCODESIGN, or leave the darwin platforms out with --platform`;

/**
 * Signs a Mach-O executable ad hoc (no certificate: the identity is the code's own hashes), in place, and
 * checks the signature two ways: as rcodesign reads it back (print-signature-info: an ad hoc CodeDirectory
 * under our identifier), and as macOS checks it (inspect.mjs: every page hashes to its slot). rcodesign's
 * `verify` cannot be used: it fails on every ad hoc signature ("CMS error", 0.29.0).
 * @param {string} rcodesign
 * @param {string} executable
 */
export async function signAdHoc(rcodesign, executable) {
  await step(
    rcodesign,
    ["sign", "--binary-identifier", PLUGIN_EXECUTABLE, executable],
    {},
    `rcodesign sign ${executable}`,
  );
  const { stdout } = await step(
    rcodesign,
    ["print-signature-info", executable],
    {},
    `rcodesign print-signature-info ${executable}`,
  );
  const problems = [
    ...(/^\s*flags: CodeSignatureFlags\(ADHOC\)$/m.test(stdout)
      ? []
      : ["rcodesign reads no ad hoc signature"]),
    ...(new RegExp(`^\\s*identifier: ${PLUGIN_EXECUTABLE}$`, "m").test(stdout)
      ? []
      : [`rcodesign reads no identifier ${PLUGIN_EXECUTABLE}`]),
    ...(await adHocSignatureProblems(executable)).problems,
  ];
  if (problems.length > 0) throw new Error(`the signature of ${executable} is wrong: ${problems.join("; ")}`);
}
