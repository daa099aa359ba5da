// @ts-check
/**
 * Where this checkout is, and which versions its lockfile installed. Read, never hard-coded: the
 * SDK range in package.json moves, and the harness installs what the checkout itself tests with.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is scripts/harness/repo.mjs). */
export const REPO = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** The npm name of this package, as the tarball installs it. */
export const PACKAGE_NAME = "pulumi-webhook-endpoints";

/**
 * JSON.parse, typed to return unknown rather than any: the caller states the shape it expects.
 * @type {(text: string) => unknown}
 */
export const parseJson = JSON.parse;

/**
 * Reads and parses a JSON file; the caller states the shape it expects.
 * @template T
 * @param {string} file
 * @returns {T}
 */
export function readJson(file) {
  return /** @type {T} */ (parseJson(readFileSync(file, "utf8")));
}

/**
 * The version of `name` installed in this checkout's node_modules (what the lockfile resolved).
 * @param {string} name an npm package name, e.g. "@pulumi/pulumi"
 * @returns {string}
 */
export function repoVersion(name) {
  /** @type {{ version: string }} */
  const manifest = readJson(join(REPO, "node_modules", name, "package.json"));
  return manifest.version;
}

/** The SDK version this checkout tests with (node_modules/@pulumi/pulumi/package.json). */
export function repoSdkVersion() {
  return repoVersion("@pulumi/pulumi");
}
