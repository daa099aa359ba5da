// @ts-check
/**
 * The native plugin's release archives, one per platform, in Pulumi's layout: what each is called, what it
 * holds, and which Node.js binary a single executable is made from. The Node.js binaries, their version and
 * their integrity are pinned in node-binaries.json beside this file, and nowhere else: the archives' names,
 * the builder and the docs' table (held to it by test/docs/numbers.test.ts) derive from it.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readJson } from "../harness/repo.mjs";

export const PLUGIN_EXECUTABLE = "pulumi-resource-webhooks";
/** The platforms Pulumi names (`<os>-<arch>`), in the order they are built and listed. */
export const PLATFORMS = /** @type {const} */ ([
  "linux-amd64",
  "linux-arm64",
  "darwin-amd64",
  "darwin-arm64",
  "windows-amd64",
  "windows-arm64",
]);
/** @typedef {(typeof PLATFORMS)[number]} Platform */
/** @typedef {"single-executable" | "launcher"} ArchiveKind */

/**
 * @typedef {object} NodeBinary
 * @property {string} package the npm package that ships the binary
 * @property {string} file the binary's path inside the package
 * @property {string} integrity the package tarball's SHA-512, as npm's lockfiles record it
 */

/** @type {{ version: string, binaries: Partial<Record<Platform, NodeBinary>> }} */
export const NODE_BINARIES = readJson(
  join(fileURLToPath(new URL(".", import.meta.url)), "node-binaries.json"),
);

/** The Node.js a launcher archive runs on (undici 8's floor, package.json's engines). */
export const LAUNCHER_NODE_FLOOR = "22.19";

/**
 * @param {string} name
 * @returns {name is Platform}
 */
export function isPlatform(name) {
  return /** @type {readonly string[]} */ (PLATFORMS).includes(name);
}

/**
 * A single executable where a pinned Node.js binary exists for the platform, else a launcher (the bundle
 * and a script that runs it with the `node` on PATH).
 * @param {Platform} platform
 * @returns {ArchiveKind}
 */
export function archiveKind(platform) {
  return NODE_BINARIES.binaries[platform] === undefined ? "launcher" : "single-executable";
}

/**
 * The file the engine starts, at the archive's root: Windows finds executables by their extension.
 * @param {Platform} platform
 */
export function executableName(platform) {
  if (!platform.startsWith("windows-")) return PLUGIN_EXECUTABLE;
  return archiveKind(platform) === "launcher" ? `${PLUGIN_EXECUTABLE}.cmd` : `${PLUGIN_EXECUTABLE}.exe`;
}

/**
 * @param {string} version
 * @param {Platform} platform
 */
export function archiveFileName(version, platform) {
  return `${PLUGIN_EXECUTABLE}-v${version}-${platform}.tar.gz`;
}

/** @param {string} version */
export function checksumsFileName(version) {
  return `${PLUGIN_EXECUTABLE}-v${version}-checksums.txt`;
}

/**
 * Pulumi's name of a machine's platform, or undefined where no archive is made for it.
 * @param {string} [os]
 * @param {string} [arch]
 * @returns {Platform | undefined}
 */
export function hostPlatform(os = process.platform, arch = process.arch) {
  const name = `${os === "win32" ? "windows" : os}-${arch === "x64" ? "amd64" : arch}`;
  return isPlatform(name) ? name : undefined;
}
