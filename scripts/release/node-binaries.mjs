// @ts-check
/**
 * The pinned Node.js binaries (node-binaries.json): fetched with npm itself (`npm pack <package>@<version>`,
 * which checks the registry's own integrity) into a cache shared by runs, checked against the pinned
 * SHA-512 every time they are used (a changed registry answer or a tampered cache is refused), then unpacked.
 *
 * The cache is ~/.cache/pulumi-webhook-endpoints/node-binaries (XDG_CACHE_HOME or PWE_CACHE_DIR move it):
 * about 50 MB per platform, fetched once.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { NODE_BINARIES } from "./platforms.mjs";

/** @typedef {import("./platforms.mjs").Platform} Platform */

const run = promisify(execFile);

export function cacheDir(env = process.env) {
  const base =
    env.PWE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-webhook-endpoints");
  return join(base, "node-binaries");
}

/**
 * The SRI form npm records: `sha512-<base64>`.
 * @param {string} file
 */
export async function integrityOf(file) {
  const hash = createHash("sha512");
  for await (const chunk of /** @type {AsyncIterable<Buffer>} */ (createReadStream(file))) hash.update(chunk);
  return `sha512-${hash.digest("base64")}`;
}

/**
 * The package tarball for `platform`, from the cache or fetched into it, with the pinned integrity.
 * @param {Platform} platform
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<string>}
 */
export async function nodeTarball(platform, options = {}) {
  const pin = NODE_BINARIES.binaries[platform];
  if (pin === undefined) throw new Error(`no Node.js binary is pinned for ${platform} (node-binaries.json)`);
  const spec = `${pin.package}@${NODE_BINARIES.version}`;
  const dir = cacheDir();
  const cached = join(dir, `${pin.package}-${NODE_BINARIES.version}.tgz`);
  if (await exists(cached)) {
    const found = await integrityOf(cached);
    if (found === pin.integrity) return cached;
    options.log?.(`[release] ${cached} is not the pinned ${spec} (${found}): fetching it again`);
    await rm(cached, { force: true });
  }
  await mkdir(dir, { recursive: true });
  const staging = await mkdtemp(join(dir, ".fetch-"));
  try {
    options.log?.(`[release] fetching ${spec} with npm`);
    try {
      await run("npm", ["pack", spec, "--pack-destination", staging, "--loglevel=error"], {
        cwd: staging,
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (error) {
      const failure = /** @type {Error & { stderr?: string }} */ (error);
      throw new Error(
        `npm pack ${spec} failed (the release build fetches the pinned Node.js binaries from the npm registry, or npm's cache): ${(failure.stderr ?? failure.message).trim().slice(0, 2000)}`,
        { cause: error },
      );
    }
    const fetched = join(staging, `${pin.package}-${NODE_BINARIES.version}.tgz`);
    const found = await integrityOf(fetched);
    if (found !== pin.integrity)
      throw new Error(
        `${spec} from the registry has integrity ${found}, and scripts/release/node-binaries.json pins ${pin.integrity}: refusing it`,
      );
    await rename(fetched, cached);
    return cached;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * The pinned Node.js binary for `platform`, unpacked into `dir` (which must be private to this run).
 * @param {Platform} platform
 * @param {string} dir
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<string>} the binary's path
 */
export async function unpackNodeBinary(platform, dir, options = {}) {
  const pin = NODE_BINARIES.binaries[platform];
  if (pin === undefined) throw new Error(`no Node.js binary is pinned for ${platform} (node-binaries.json)`);
  const tarball = await nodeTarball(platform, options);
  await mkdir(dir, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", dir, "--no-same-owner", `package/${pin.file}`]);
  const binary = join(dir, "package", pin.file);
  const info = await lstat(binary);
  if (!info.isFile()) throw new Error(`${pin.package}@${NODE_BINARIES.version} holds no file ${pin.file}`);
  return binary;
}

/** @param {string} path */
async function exists(path) {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
