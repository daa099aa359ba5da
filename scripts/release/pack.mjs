// @ts-check
/**
 * Writing the release files: reproducible .tar.gz archives, the checksums file, and publishing them into the
 * output directory without ever writing through a link someone planted there.
 *
 * Reproducible: an archive is a function of its entries' names, modes and bytes. Every tar header has owner
 * 0:0 (root), the mode given (not the file's), the time SOURCE_DATE_EPOCH (else 0), entries in the order
 * given; the gzip header has no file name and time 0. Nothing of the machine, the user, the umask or the
 * directories it was built in reaches the archive.
 *
 * Safe to publish: every file is first written into a fresh private directory (mkdtemp: a new name, mode
 * 0700) inside the output directory, each opened with O_CREAT | O_EXCL | O_NOFOLLOW, then renamed into place
 * (rename replaces a directory entry and never follows a link). A target that is a symbolic link, or not a
 * regular file, is refused before anything is moved, as is an output directory that other users could
 * change files in.
 */
import { createHash } from "node:crypto";
import { constants, createReadStream } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readlink, rename, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";

/**
 * @typedef {object} TarEntry
 * @property {string} name a plain file name: the archive is flat, as Pulumi's plugin archives are
 * @property {number} mode
 * @property {string} [file] a file to copy
 * @property {string} [text] or the text itself
 */

/** Open flags for a new file that must not exist yet and must not be a link. */
const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** @param {TarEntry} entry */
async function entrySize(entry) {
  return entry.file !== undefined ? (await stat(entry.file)).size : Buffer.byteLength(entry.text ?? "");
}

/** The archive's time: SOURCE_DATE_EPOCH (the reproducible-builds convention), else the epoch. */
export function archiveTime(env = process.env) {
  const value = env.SOURCE_DATE_EPOCH;
  if (value === undefined || value === "") return 0;
  if (!/^\d{1,11}$/.test(value))
    throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * A POSIX ustar header.
 * @param {string} name
 * @param {number} mode
 * @param {number} size
 * @param {number} mtime
 */
function tarHeader(name, mode, size, mtime) {
  if (
    name === "" ||
    Buffer.byteLength(name) > 100 ||
    basename(name) !== name ||
    name === "." ||
    name === ".."
  )
    throw new Error(`archive entry name ${JSON.stringify(name)} must be a plain file name`);
  const header = Buffer.alloc(512);
  /** @type {(value: number, at: number, width: number) => void} */
  const octal = (value, at, width) =>
    void header.write(`${value.toString(8).padStart(width - 1, "0")}\0`, at, width, "ascii");
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

/**
 * The archive's bytes before compression, streamed (a single executable is over 100 MB).
 * @param {readonly TarEntry[]} entries
 * @param {number} mtime
 * @returns {AsyncGenerator<Buffer>}
 */
async function* tarStream(entries, mtime) {
  for (const entry of entries) {
    const size = await entrySize(entry);
    yield tarHeader(entry.name, entry.mode, size, mtime);
    if (entry.file !== undefined) {
      let written = 0;
      for await (const chunk of /** @type {AsyncIterable<Buffer>} */ (createReadStream(entry.file))) {
        written += chunk.length;
        yield chunk;
      }
      if (written !== size) throw new Error(`${entry.file} changed while it was archived`);
    } else {
      yield Buffer.from(entry.text ?? "");
    }
    if (size % 512 !== 0) yield Buffer.alloc(512 - (size % 512));
  }
  yield Buffer.alloc(1024);
}

/**
 * Writes `entries` as a .tar.gz to `path`, which must not exist (it is opened exclusively, not following links).
 * @param {readonly TarEntry[]} entries
 * @param {string} path
 * @param {{ mtime?: number }} [options]
 */
export async function writeTarGz(entries, path, options = {}) {
  const mtime = options.mtime ?? archiveTime();
  const handle = await open(path, EXCLUSIVE, 0o644);
  await pipeline(
    Readable.from(tarStream(entries, mtime)),
    // zlib's gzip header carries no name and time 0: only the entries decide the bytes. Level 9 packs a
    // single executable 0.4% smaller in 8 times as long (33 s against 4 s, measured).
    createGzip({ level: 6 }),
    // The stream closes the handle when it ends or fails.
    handle.createWriteStream(),
  );
}

/**
 * Writes a text file that must not exist yet, not following links.
 * @param {string} path
 * @param {string} text
 */
export async function writeExclusive(path, text) {
  const handle = await open(path, EXCLUSIVE, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/** @param {string} path */
export async function sha256File(path) {
  const hash = createHash("sha256");
  for await (const chunk of /** @type {AsyncIterable<Buffer>} */ (createReadStream(path))) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * The checksums file in the format of `sha256sum` (and `sha256sum -c`): `<hex>  <file name>`, one a line,
 * sorted by name.
 * @param {readonly { name: string, sha256: string }[]} files
 */
export function checksumsText(files) {
  return [...files]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, sha256 }) => {
      if (!/^[0-9a-f]{64}$/.test(sha256) || basename(name) !== name || /[\n\\]/.test(name))
        throw new Error(`cannot list ${JSON.stringify(name)} (${sha256}) in a checksums file`);
      return `${sha256}  ${name}\n`;
    })
    .join("");
}

/**
 * The output directory, created if missing, refused when users other than its owner could replace what is
 * written there (a directory writable by group or others without the sticky bit, or owned by someone else).
 * @param {string} dir
 */
async function outputDirectory(dir) {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const info = await stat(dir);
  if (!info.isDirectory()) throw new Error(`--out ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid && info.uid !== 0)
    throw new Error(
      `--out ${dir} belongs to another user (uid ${info.uid}), who could replace the archives after they are written: choose a directory of your own`,
    );
  if ((info.mode & 0o022) !== 0 && (info.mode & 0o1000) === 0)
    throw new Error(
      `--out ${dir} can be written by other users (mode ${(info.mode & 0o7777).toString(8)}) and is not sticky, so they could replace the archives after they are written: choose a directory only you can write to`,
    );
}

/**
 * Refuses a target that is a symbolic link or anything but a regular file: writing through a link someone
 * planted would put the file where they chose.
 * @param {string} target
 */
async function refuseUnsafeTarget(target) {
  let info;
  try {
    info = await lstat(target);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return;
    throw error;
  }
  if (info.isSymbolicLink())
    throw new Error(
      `${target} is a symbolic link (to ${await readlink(target)}): refusing to write through it. Remove it, or choose another --out`,
    );
  if (!info.isFile())
    throw new Error(`${target} exists and is not a regular file: remove it, or choose another --out`);
}

/**
 * @typedef {object} Published
 * @property {string} name
 * @property {string} path
 * @property {number} bytes
 * @property {string} sha256
 */

/**
 * Writes files into `outDir`: each `write(path, before)` writes its file at a path in a fresh private
 * directory there (`before`: the files written before it, e.g. for a checksums file); when all are written,
 * every target is checked, then each is renamed into place. A failure before the renames leaves the output
 * directory as it was.
 * @param {string} outDir
 * @param {readonly { name: string, write: (path: string, before: readonly Published[]) => Promise<void> }[]} files
 * @returns {Promise<Published[]>}
 */
export async function publish(outDir, files) {
  await outputDirectory(outDir);
  const staging = await mkdtemp(join(outDir, ".pulumi-resource-webhooks-staging-"));
  try {
    /** @type {Published[]} */
    const written = [];
    for (const { name, write } of files) {
      if (basename(name) !== name) throw new Error(`${name} must be a plain file name`);
      const path = join(staging, name);
      await write(path, [...written]);
      const bytes = (await stat(path)).size;
      written.push({ name, path: join(outDir, name), bytes, sha256: await sha256File(path) });
    }
    for (const { path } of written) await refuseUnsafeTarget(path);
    for (const { name, path } of written) await rename(join(staging, name), path);
    return written;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
