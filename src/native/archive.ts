import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { createGzip } from "node:zlib";

/**
 * The native plugin packaged the way Pulumi installs providers: one archive per platform,
 * `pulumi-resource-webhooks-v<version>-<os>-<arch>.tar.gz`, with the executable at its root, for
 * `pulumi plugin install resource webhooks <version> --file <archive>` (or downloaded by the engine from
 * the schema's pluginDownloadURL).
 *
 * Two kinds of archive, from the same one-file bundle of the plugin (dist/plugin/pulumi-resource-webhooks.js):
 * - single-executable: a Node.js single executable application (the bundle injected into a copy of the
 *   running `node`), which needs no Node.js where it runs. Made for the platform this runs on only: the
 *   copy is of this machine's node binary.
 * - launcher: the bundle and a script that runs it with the `node` found on PATH (Node.js 22.19 or newer),
 *   for the other platforms, and for this one with `launcher: true`.
 */
export const PLUGIN_EXECUTABLE = "pulumi-resource-webhooks";
export const PLATFORMS = [
  "linux-amd64",
  "linux-arm64",
  "darwin-amd64",
  "darwin-arm64",
  "windows-amd64",
  "windows-arm64",
] as const;
export type Platform = (typeof PLATFORMS)[number];
export type ArchiveKind = "single-executable" | "launcher";

/** The sentinel the official Node.js builds carry for single executable applications (Node.js documentation). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const NODE_FLOOR = "22.19";

export interface ArchiveResult {
  platform: Platform;
  kind: ArchiveKind;
  /** The archive written. */
  path: string;
  /** Its size in bytes. */
  bytes: number;
  /** The size of the executable inside it (the launcher's bundle, for a launcher). */
  executableBytes: number;
  /** SHA-256 of the archive, hexadecimal. */
  sha256: string;
}

export interface ArchiveOptions {
  platform: Platform;
  /** Where the archive is written (created if missing). */
  outDir: string;
  /** The plugin's one-file bundle. */
  bundle: string;
  /** The package version: the archive's name and the version `pulumi plugin install` is given. */
  version: string;
  /** A launcher even for this machine's platform. */
  launcher?: boolean;
  /** The node binary copied into a single executable. @default process.execPath */
  node?: string;
}

/** Pulumi's name of this machine's platform, or undefined where the plugin is not built for it. */
export function hostPlatform(
  os: string = process.platform,
  arch: string = process.arch,
): Platform | undefined {
  const name = `${os === "win32" ? "windows" : os}-${arch === "x64" ? "amd64" : arch}`;
  return (PLATFORMS as readonly string[]).includes(name) ? (name as Platform) : undefined;
}

export function archiveFileName(version: string, platform: Platform): string {
  return `${PLUGIN_EXECUTABLE}-v${version}-${platform}.tar.gz`;
}

/** Builds one archive; a single executable for this machine's platform unless `launcher` is set. */
export async function buildPluginArchive(options: ArchiveOptions): Promise<ArchiveResult> {
  if (!existsSync(options.bundle))
    throw new Error(`the plugin bundle ${options.bundle} is missing: build the package (npm run build)`);
  const kind: ArchiveKind =
    !options.launcher && options.platform === hostPlatform() ? "single-executable" : "launcher";
  await mkdir(options.outDir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), "pwe-plugin-archive-"));
  try {
    const entries =
      kind === "single-executable" ? await singleExecutable(options, work) : await launcher(options);
    const path = join(options.outDir, archiveFileName(options.version, options.platform));
    const partial = `${path}.partial-${process.pid}`;
    try {
      await pipeline(Readable.from(tarStream(entries)), createGzip({ level: 6 }), createWriteStream(partial));
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
    const executable = entries.find((entry) =>
      kind === "single-executable" ? entry.name === PLUGIN_EXECUTABLE : entry.name.endsWith(".js"),
    );
    return {
      platform: options.platform,
      kind,
      path,
      bytes: (await stat(path)).size,
      executableBytes: executable ? await entrySize(executable) : 0,
      sha256: await sha256(path),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface TarEntry {
  name: string;
  mode: number;
  /** A file to copy, or the text itself. */
  file?: string;
  text?: string;
}

async function entrySize(entry: TarEntry): Promise<number> {
  return entry.file !== undefined ? (await stat(entry.file)).size : Buffer.byteLength(entry.text ?? "");
}

/**
 * The bundle as a Node.js single executable application (the steps of the Node.js documentation):
 * `node --experimental-sea-config` writes the preparation blob, postject injects it into a copy of
 * that same node, and the result must start with no `node` on PATH before it is packed.
 */
async function singleExecutable(options: ArchiveOptions, work: string): Promise<TarEntry[]> {
  const node = options.node ?? process.execPath;
  const blob = join(work, "sea-prep.blob");
  const config = join(work, "sea-config.json");
  // The code cache is made by this node for this node: it starts the plugin faster, and is only valid in the copy of it.
  await writeFile(
    config,
    JSON.stringify({
      main: options.bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
    }),
  );
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  // The executable is this node: one older than the plugin's floor would only say so when the engine starts it.
  const version = (await promisify(execFile)(node, ["-p", "process.versions.node"], { env })).stdout.trim();
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [floorMajor = 0, floorMinor = 0] = NODE_FLOOR.split(".").map(Number);
  if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
    throw new Error(
      `the single executable would be this node (${node}, v${version}), and the plugin needs Node.js ${NODE_FLOOR} or newer: run \`webhooks plugin-archive\` with a newer node, or add --launcher`,
    );
  }
  await run(
    node,
    ["--experimental-sea-config", config],
    env,
    `${node} --experimental-sea-config (writing the single-executable blob)`,
  );
  const executable = join(work, PLUGIN_EXECUTABLE);
  await copyFile(node, executable);
  await chmod(executable, 0o755);
  const postject = require.resolve("postject/dist/cli.js");
  try {
    await run(
      process.execPath,
      [postject, executable, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE],
      env,
      "postject",
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\nThis node (${node}) cannot be made into a single executable (the official Node.js builds can; a distribution's node linked to a shared libnode cannot): run \`webhooks plugin-archive\` with the node from nodejs.org, or add --launcher for an archive that runs the plugin with the node on PATH`,
      { cause: error },
    );
  }
  await startsAlone(executable);
  return [{ name: PLUGIN_EXECUTABLE, mode: 0o755, file: executable }];
}

/** The bundle and a script that runs it with the `node` on PATH, saying what it needs when there is none. */
async function launcher(options: ArchiveOptions): Promise<TarEntry[]> {
  const script = `${PLUGIN_EXECUTABLE}.js`;
  const bundle: TarEntry = { name: script, mode: 0o644, file: options.bundle };
  const need = `pulumi-resource-webhooks v${options.version} (${options.platform}) runs on Node.js ${NODE_FLOOR} or newer`;
  if (options.platform.startsWith("windows-")) {
    // A label rather than an if-block: the message's parentheses would end a block early.
    const cmd = [
      "@echo off",
      `rem ${need}: this launcher starts ${script}, beside it, with the node on PATH.`,
      "where node >nul 2>nul",
      "if errorlevel 1 goto nonode",
      `node "%~dp0${script}" %*`,
      "exit /b %errorlevel%",
      ":nonode",
      `echo ${need}, and no node is on PATH: install Node.js ${NODE_FLOOR} or newer 1>&2`,
      "exit /b 1",
      "",
    ].join("\r\n");
    return [{ name: `${PLUGIN_EXECUTABLE}.cmd`, mode: 0o755, text: cmd }, bundle];
  }
  const sh = [
    "#!/bin/sh",
    `# ${need}: this launcher starts ${script}, beside it, with the node on PATH.`,
    "if ! command -v node >/dev/null 2>&1; then",
    `  echo "${need}, and no node is on PATH: install Node.js ${NODE_FLOOR} or newer" >&2`,
    "  exit 1",
    "fi",
    // The engine starts a plugin by its path, so $0 names the directory (no dirname needed on PATH).
    `exec node "\${0%/*}/${script}" "$@"`,
    "",
  ].join("\n");
  return [{ name: PLUGIN_EXECUTABLE, mode: 0o755, text: sh }, bundle];
}

/** The executable prints its port with an empty PATH (no node to fall back on), then is stopped. */
async function startsAlone(executable: string): Promise<void> {
  const child = spawn(executable, ["127.0.0.1:1"], { env: { PATH: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `the single executable ${executable} printed no port within 60 s: ${stderr.slice(0, 2000)}`,
            ),
          ),
        60_000,
      );
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (/^\d+\n/.test(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `the single executable ${executable} exited (${signal ?? code}) before printing its port: ${stderr.slice(0, 2000)}`,
          ),
        );
      });
    });
  } finally {
    child.kill("SIGKILL");
  }
}

async function run(command: string, args: string[], env: NodeJS.ProcessEnv, what: string): Promise<void> {
  try {
    await promisify(execFile)(command, args, { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = error as Error & { stderr?: string; stdout?: string };
    throw new Error(
      `${what} failed: ${(failure.stderr ?? "").trim().split("\n").slice(-5).join("\n") || failure.message}`,
      { cause: error },
    );
  }
}

async function sha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * A POSIX ustar archive of the entries, streamed (the single executable is over 100 MB). Every entry is
 * owned by 0:0 and dated at SOURCE_DATE_EPOCH (else 0), so the same inputs make the same archive.
 */
async function* tarStream(entries: readonly TarEntry[]): AsyncGenerator<Buffer> {
  const mtime = Number(process.env.SOURCE_DATE_EPOCH ?? 0) || 0;
  for (const entry of entries) {
    const size = await entrySize(entry);
    yield tarHeader(entry.name, entry.mode, size, mtime);
    if (entry.file !== undefined) {
      let written = 0;
      for await (const chunk of createReadStream(entry.file)) {
        written += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      if (written !== size) throw new Error(`${entry.file} changed while it was archived`);
    } else {
      yield Buffer.from(entry.text ?? "");
    }
    if (size % 512 !== 0) yield Buffer.alloc(512 - (size % 512));
  }
  yield Buffer.alloc(1024);
}

function tarHeader(name: string, mode: number, size: number, mtime: number): Buffer {
  if (Buffer.byteLength(name) > 100 || basename(name) !== name)
    throw new Error(`archive entry name ${name} must be a plain file name`);
  const header = Buffer.alloc(512);
  const octal = (value: number, at: number, width: number) =>
    header.write(`${value.toString(8).padStart(width - 1, "0")}\0`, at, width, "ascii");
  header.write(name, 0, 100, "utf8");
  octal(mode, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(mtime, 136, 12);
  header.write("        ", 148, 8, "ascii");
  header.write("0", 156, 1, "ascii");
  header.write("ustar\0", 257, 6, "ascii");
  header.write("00", 263, 2, "ascii");
  header.write("root", 265, 32, "ascii");
  header.write("root", 297, 32, "ascii");
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8, "ascii");
  return header;
}
