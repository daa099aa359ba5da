// @ts-check
/**
 * npm run release:archives: the native plugin's release archives, built on this machine for every platform
 * (docs/native-plugin.md), and a checksums file.
 *
 *   npm run release:archives -- [--out DIR] [--platform P]... [--json]
 *
 * One archive per platform, `pulumi-resource-webhooks-v<version>-<os>-<arch>.tar.gz`, the executable at its
 * root: a single executable (the plugin's bundle in the pinned Node.js binary of that platform; needs no
 * Node.js) where a binary is pinned (node-binaries.json), else a launcher. Darwin executables are signed ad
 * hoc. Then `pulumi-resource-webhooks-v<version>-checksums.txt`, for `sha256sum -c`.
 *
 * Reproducible: run under the pinned Node.js of this machine's platform (this script starts itself again
 * with it), so that the blob, the injection, tar and gzip are the same code whatever node started it; two
 * builds of one commit are byte-identical. Everything is made in a private temporary directory and
 * published into --out without following any link planted there (pack.mjs).
 *
 * Needs: node_modules (esbuild bundles the plugin from src/), the npm registry or npm's cache (the Node.js
 * binaries, about 50 MB each, kept in ~/.cache/pulumi-webhook-endpoints/node-binaries), and rcodesign for
 * the darwin platforms (scripts/ensure-release-tools.sh). Each is checked before anything is built.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { readJson } from "../harness/repo.mjs";
import { bundlePlugin } from "../plugin-bundle.mjs";
import { blobProblems, inspectExecutable } from "./inspect.mjs";
import { launcherEntries } from "./launcher.mjs";
import { unpackNodeBinary } from "./node-binaries.mjs";
import { checksumsText, publish, writeExclusive, writeTarGz } from "./pack.mjs";
import {
  NODE_BINARIES,
  PLATFORMS,
  archiveFileName,
  archiveKind,
  checksumsFileName,
  executableName,
  hostPlatform,
  isPlatform,
} from "./platforms.mjs";
import { MAIN_SCRIPT, RCODESIGN_MISSING, buildSingleExecutable, findRcodesign, signAdHoc } from "./sea.mjs";
import { printsPort } from "./start.mjs";

/** @typedef {import("./platforms.mjs").Platform} Platform */
/** @typedef {import("./pack.mjs").TarEntry} TarEntry */

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** Set in the environment of the run this script starts under the pinned Node.js: that binary's path. */
const BUILDER = "PWE_RELEASE_BUILDER";

export const USAGE = `Usage: npm run release:archives -- [--out DIR] [--platform P]... [--json]

Builds the native plugin's release archives, pulumi-resource-webhooks-v<version>-<os>-<arch>.tar.gz, and
pulumi-resource-webhooks-v<version>-checksums.txt (sha256sum's format), into DIR.
  --out DIR       where they are written (default: release-archives)
  --platform P    ${PLATFORMS.join(", ")}, or all; repeatable (default: all)
  --json          JSON for scripts: {"version", "node", "archives": [{platform, kind, path, bytes, executableBytes, sha256, install}], "checksums"}
Check an archive before installing it: sha256sum -c --ignore-missing <checksums file>, in its directory.`;

/** A usage mistake: said with the usage, exit 2. */
class UsageError extends Error {}

/**
 * @param {readonly string[]} argv
 * @returns {{ out: string, platforms: Platform[], json: boolean, help: boolean }}
 */
export function parseOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        out: { type: "string" },
        platform: { type: "string", multiple: true },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(/** @type {Error} */ (error).message);
  }
  const requested = parsed.values.platform ?? ["all"];
  /** @type {Set<Platform>} */
  const selected = new Set();
  for (const name of requested) {
    if (name === "all") PLATFORMS.forEach((p) => selected.add(p));
    else if (isPlatform(name)) selected.add(name);
    else
      throw new UsageError(
        `--platform must be one of ${PLATFORMS.join(", ")} or all, got ${JSON.stringify(name.slice(0, 40))}`,
      );
  }
  if (parsed.values.out === "") throw new UsageError("--out needs a directory");
  return {
    out: parsed.values.out ?? "release-archives",
    // Built and listed in PLATFORMS' order, whatever order they were asked in.
    platforms: PLATFORMS.filter((p) => selected.has(p)),
    json: parsed.values.json === true,
    help: parsed.values.help === true,
  };
}

/** The version the archives carry: the package's (package.json). */
export function packageVersion() {
  /** @type {{ version?: unknown }} */
  const manifest = readJson(join(REPO, "package.json"));
  if (typeof manifest.version !== "string") throw new Error("package.json has no version");
  return manifest.version;
}

/** @param {string} text a word for a POSIX shell */
export function shellWord(text) {
  return /^[A-Za-z0-9_.:/@%+-][A-Za-z0-9_.:/@%+=-]*$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that installs an archive. Without --checksum: Pulumi (v3.259.0) accepts it with --file and
 * never checks it, so the archive is checked with sha256sum first (docs/native-plugin.md).
 * @param {string} version
 * @param {string} archive
 */
export function installCommand(version, archive) {
  return `pulumi plugin install resource webhooks ${shellWord(version)} --file ${shellWord(archive)}`;
}

/**
 * What must be here before anything is built: a pinned Node.js for this machine (the builder) and rcodesign
 * for darwin archives.
 * @param {readonly Platform[]} platforms
 * @returns {{ host: Platform, rcodesign: string | undefined }}
 */
function preconditions(platforms) {
  const host = hostPlatform();
  if (host === undefined || NODE_BINARIES.binaries[host] === undefined)
    throw new Error(
      `the archives are built by a pinned Node.js of this machine's platform, and none is pinned for ${process.platform}-${process.arch}: build them on ${Object.keys(NODE_BINARIES.binaries).join(", ")}`,
    );
  const rcodesign = findRcodesign();
  if (platforms.some((p) => p.startsWith("darwin-")) && rcodesign === undefined)
    throw new Error(RCODESIGN_MISSING);
  return { host, rcodesign };
}

/**
 * Starts this script again under the pinned Node.js of this machine, and returns its exit code.
 * @param {Platform} host
 * @param {readonly string[]} argv
 */
async function runUnderBuilder(host, argv) {
  const dir = await mkdtemp(join(tmpdir(), "pwe-release-builder-"));
  try {
    const builder = await unpackNodeBinary(host, dir, { log: (line) => process.stderr.write(`${line}\n`) });
    /** @type {NodeJS.ProcessEnv} */
    const env = { ...process.env, [BUILDER]: builder };
    delete env.NODE_OPTIONS;
    const result = spawnSync(builder, [fileURLToPath(import.meta.url), ...argv], { stdio: "inherit", env });
    if (result.error) throw result.error;
    return result.status ?? 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * @typedef {object} BuiltArchive
 * @property {Platform} platform
 * @property {import("./platforms.mjs").ArchiveKind} kind
 * @property {string} path
 * @property {number} bytes
 * @property {number} executableBytes the executable's size (the bundle's, for a launcher)
 * @property {string} sha256
 * @property {string} install
 */

/**
 * Builds the archives (in the pinned Node.js) and publishes them with the checksums file.
 * @param {{ out: string, platforms: readonly Platform[], host: Platform, rcodesign: string | undefined, log:
 * (line: string) => void }} options
 * @returns {Promise<{ archives: BuiltArchive[], checksums: string }>}
 */
export async function buildArchives({ out, platforms, host, rcodesign, log }) {
  const version = packageVersion();
  const work = await mkdtemp(join(tmpdir(), "pwe-release-"));
  try {
    const bundle = join(work, "bundle", MAIN_SCRIPT);
    await bundlePlugin({ outfile: bundle, repo: REPO });
    const bundleBytes = readFileSync(bundle);
    /** @type {Buffer | undefined} */
    let firstBlob;
    /** @type {Map<Platform, number>} */
    const executableBytes = new Map();

    /** @param {Platform} platform @returns {Promise<TarEntry[]>} */
    const singleExecutable = async (platform) => {
      const dir = join(work, platform);
      const target = await unpackNodeBinary(platform, join(dir, "node"), { log });
      log(`[release] ${platform}: node --build-sea`);
      const executable = await buildSingleExecutable({ platform, bundle, target, dir: join(dir, "sea") });
      await rm(join(dir, "node"), { recursive: true, force: true });
      if (platform.startsWith("darwin-")) {
        log(`[release] ${platform}: rcodesign sign (ad hoc), signature checked`);
        await signAdHoc(/** @type {string} */ (rcodesign), executable);
      }
      const found = await inspectExecutable(executable);
      const [os, arch] = /** @type {[string, string]} */ (platform.split("-"));
      const format = { linux: "elf", darwin: "macho", windows: "pe" }[os];
      const problems = [
        ...(found.format !== format || found.arch !== arch ? [`it is ${found.format} ${found.arch}`] : []),
        ...(found.fuseFlipped ? [] : ["its single-executable fuse is not flipped"]),
        ...(os === "darwin" && !found.signed ? ["it has no code signature"] : []),
        ...blobProblems(found.blob, bundleBytes, MAIN_SCRIPT),
        // One configuration for all: every executable carries the very blob the first one does.
        ...(firstBlob !== undefined && !firstBlob.equals(found.blob)
          ? ["its blob differs from the others'"]
          : []),
      ];
      if (problems.length > 0) throw new Error(`the ${platform} executable is wrong: ${problems.join("; ")}`);
      firstBlob ??= found.blob;
      if (platform === host) {
        // It must start on its own: no node on PATH, and a NODE_OPTIONS it must ignore.
        await printsPort(executable, { env: { PATH: "", NODE_OPTIONS: "--require ./nonexistent.js" } });
      }
      executableBytes.set(platform, (await stat(executable)).size);
      return [{ name: executableName(platform), mode: 0o755, file: executable }];
    };

    const files = platforms.map((platform) => ({
      name: archiveFileName(version, platform),
      write: async (/** @type {string} */ path) => {
        const entries =
          archiveKind(platform) === "single-executable"
            ? await singleExecutable(platform)
            : launcherEntries(platform, version, bundle);
        if (!executableBytes.has(platform)) executableBytes.set(platform, bundleBytes.length);
        await writeTarGz(entries, path);
        await rm(join(work, platform), { recursive: true, force: true });
        log(`[release] ${platform}: packed`);
      },
    }));
    const published = await publish(resolve(out), [
      ...files,
      {
        name: checksumsFileName(version),
        write: async (path, before) => writeExclusive(path, checksumsText(before)),
      },
    ]);
    const archives = published.slice(0, -1).map((file, i) => {
      const platform = /** @type {Platform} */ (platforms[i]);
      return {
        platform,
        kind: archiveKind(platform),
        path: file.path,
        bytes: file.bytes,
        executableBytes: executableBytes.get(platform) ?? 0,
        sha256: file.sha256,
        install: installCommand(version, file.path),
      };
    });
    return { archives, checksums: /** @type {{ path: string }} */ (published.at(-1)).path };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * @param {{ archives: BuiltArchive[], checksums: string }} result
 * @param {string} version
 */
function report(result, version) {
  const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  // Paths as given: relative to here when below it, else absolute.
  const shown = (/** @type {string} */ path) => {
    const below = relative(process.cwd(), path);
    return below === "" ? "." : below.startsWith("..") ? path : below;
  };
  const lines = result.archives.map(
    (a) =>
      `${shown(a.path)}  ${a.platform}  ${
        a.kind === "single-executable"
          ? `single executable (Node.js ${NODE_BINARIES.version}), needs no Node.js`
          : `launcher, needs Node.js on PATH`
      }  ${mb(a.bytes)} (executable ${mb(a.executableBytes)})  sha256 ${a.sha256}`,
  );
  const checksums = shown(result.checksums);
  const where = shown(resolve(result.checksums, ".."));
  return [
    ...lines,
    `${checksums}  the SHA-256 of each, for sha256sum -c`,
    "",
    "On the machine that runs Pulumi, check the archive, then install it (pulumi plugin install does not check --checksum with --file):",
    `  (cd ${shellWord(where)} && sha256sum -c --ignore-missing ${shellWord(checksumsFileName(version))})`,
    ...result.archives.map((a) => `  ${installCommand(version, shown(a.path))}`),
    "",
  ].join("\n");
}

/** @param {readonly string[]} argv */
async function main(argv) {
  let options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`release:archives: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { host, rcodesign } = preconditions(options.platforms);
  const builder = process.env[BUILDER];
  if (builder === undefined) return runUnderBuilder(host, argv);
  if (realpathSync(builder) !== realpathSync(process.execPath))
    throw new Error(`${BUILDER} names ${builder}, but this is ${process.execPath}: unset it`);
  const log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);
  const result = await buildArchives({ ...options, host, rcodesign, log });
  const version = packageVersion();
  process.stdout.write(
    options.json
      ? `${JSON.stringify({ version, node: NODE_BINARIES.version, ...result }, null, 2)}\n`
      : report(result, version),
  );
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (/** @type {unknown} */ error) => {
      process.stderr.write(`release:archives: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
