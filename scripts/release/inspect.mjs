// @ts-check
/**
 * What a single executable is made of, read from its headers without running it: the executable format and
 * architecture, and the Node.js single-executable blob where Node.js looks for it. Used by the release build
 * on every executable it makes, and by the tests on platforms this machine cannot run:
 *
 * - ELF (Linux): a PT_NOTE segment holding a note named NODE_SEA_BLOB.
 * - Mach-O (macOS): the segment NODE_SEA with the section __NODE_SEA_BLOB, and whether a code signature
 *   (LC_CODE_SIGNATURE) is present.
 * - PE (Windows): an RT_RCDATA resource named NODE_SEA_BLOB.
 *
 * Plus the fuse Node.js flips in an executable that carries a blob. Files are read by ranges: the
 * executables are about 150 MB.
 */
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";

/** Node.js's sentinel: `<fuse>:0` in a plain node, `<fuse>:1` once a blob is injected (Node.js docs). */
export const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
export const SEA_RESOURCE = "NODE_SEA_BLOB";

/**
 * @typedef {object} Executable
 * @property {"elf" | "macho" | "pe"} format
 * @property {"amd64" | "arm64"} arch
 * @property {Buffer} blob the injected single-executable blob
 * @property {boolean} signed Mach-O: a code signature load command is present (always false elsewhere)
 * @property {boolean} fuseFlipped
 */

/**
 * @param {string} path
 * @returns {Promise<Executable>}
 */
export async function inspectExecutable(path) {
  const file = await open(path, "r");
  try {
    /** @type {(offset: number | bigint, length: number) => Promise<Buffer>} */
    const read = async (offset, length) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await file.read(buffer, 0, length, Number(offset));
      if (bytesRead !== length) throw new Error(`${path} ends before byte ${Number(offset) + length}`);
      return buffer;
    };
    const size = (await file.stat()).size;
    const head = await read(0, 64);
    const found = head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))
      ? await elf(read)
      : head.readUInt32LE(0) === 0xfeedfacf
        ? await macho(read)
        : head.subarray(0, 2).toString("latin1") === "MZ"
          ? await pe(read)
          : undefined;
    if (found === undefined) throw new Error(`${path} is neither ELF, 64-bit Mach-O nor PE`);
    return { ...found, fuseFlipped: await fuseFlipped(read, size) };
  } finally {
    await file.close();
  }
}

/** @typedef {(offset: number | bigint, length: number) => Promise<Buffer>} Read */

/**
 * A 64-bit little-endian ELF file: the notes of its PT_NOTE segments.
 * @param {Read} read
 */
async function elf(read) {
  const header = await read(0, 64);
  if (header[4] !== 2 || header[5] !== 1) throw new Error("not a 64-bit little-endian ELF file");
  const machine = header.readUInt16LE(18);
  /** @type {"amd64" | "arm64" | undefined} */
  const arch = machine === 0x3e ? "amd64" : machine === 0xb7 ? "arm64" : undefined;
  if (arch === undefined)
    throw new Error(`ELF machine 0x${machine.toString(16)} is neither x86-64 nor AArch64`);
  const phoff = header.readBigUInt64LE(0x20);
  const phentsize = header.readUInt16LE(0x36);
  const phnum = header.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const ph = await read(phoff + BigInt(i * phentsize), 56);
    if (ph.readUInt32LE(0) !== 4) continue; // PT_NOTE
    const notes = await read(ph.readBigUInt64LE(8), Number(ph.readBigUInt64LE(32)));
    for (let at = 0; at + 12 <= notes.length;) {
      const nameSize = notes.readUInt32LE(at);
      const descSize = notes.readUInt32LE(at + 4);
      const nameStart = at + 12;
      const descStart = nameStart + align4(nameSize);
      const name = notes
        .subarray(nameStart, nameStart + nameSize)
        .toString("latin1")
        .replace(/\0+$/, "");
      if (name === SEA_RESOURCE)
        return {
          format: /** @type {const} */ ("elf"),
          arch,
          signed: false,
          blob: notes.subarray(descStart, descStart + descSize),
        };
      at = descStart + align4(descSize);
    }
  }
  throw new Error(`no ${SEA_RESOURCE} note in any PT_NOTE segment`);
}

/** @param {number} n */
function align4(n) {
  return (n + 3) & ~3;
}

/**
 * A 64-bit little-endian Mach-O file (not a universal one): its load commands.
 * @param {Read} read
 */
async function macho(read) {
  const header = await read(0, 32);
  const cpu = header.readUInt32LE(4);
  /** @type {"amd64" | "arm64" | undefined} */
  const arch = cpu === 0x01000007 ? "amd64" : cpu === 0x0100000c ? "arm64" : undefined;
  if (arch === undefined)
    throw new Error(`Mach-O CPU type 0x${cpu.toString(16)} is neither x86_64 nor arm64`);
  const commands = await read(32, header.readUInt32LE(20));
  let signed = false;
  /** @type {Buffer | undefined} */
  let blob;
  for (let at = 0, i = 0; i < header.readUInt32LE(16); i++) {
    const command = commands.readUInt32LE(at);
    const size = commands.readUInt32LE(at + 4);
    if (command === 0x1d) signed = true; // LC_CODE_SIGNATURE
    if (command === 0x19 && cString(commands.subarray(at + 8, at + 24)) === "NODE_SEA") {
      // LC_SEGMENT_64: its sections (80 bytes each) follow the 72-byte command.
      for (let s = 0; s < commands.readUInt32LE(at + 64); s++) {
        const section = commands.subarray(at + 72 + s * 80, at + 72 + (s + 1) * 80);
        if (cString(section.subarray(0, 16)) === `__${SEA_RESOURCE}`)
          blob = await read(section.readUInt32LE(48), Number(section.readBigUInt64LE(40)));
      }
    }
    at += size;
  }
  if (blob === undefined) throw new Error(`no section __${SEA_RESOURCE} in a segment NODE_SEA`);
  return { format: /** @type {const} */ ("macho"), arch, signed, blob };
}

/** @param {Buffer} bytes */
function cString(bytes) {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString("latin1");
}

/**
 * A PE32+ file: its resource tree, type RT_RCDATA (10), then the entry named NODE_SEA_BLOB, then its
 * first language.
 * @param {Read} read
 */
async function pe(read) {
  const peOffset = (await read(0x3c, 4)).readUInt32LE(0);
  const coff = await read(peOffset, 24);
  if (coff.toString("latin1", 0, 4) !== "PE\0\0") throw new Error("no PE signature");
  const machine = coff.readUInt16LE(4);
  /** @type {"amd64" | "arm64" | undefined} */
  const arch = machine === 0x8664 ? "amd64" : machine === 0xaa64 ? "arm64" : undefined;
  if (arch === undefined) throw new Error(`PE machine 0x${machine.toString(16)} is neither AMD64 nor ARM64`);
  const sections = coff.readUInt16LE(6);
  const optionalSize = coff.readUInt16LE(20);
  const optional = await read(peOffset + 24, optionalSize);
  if (optional.readUInt16LE(0) !== 0x20b) throw new Error("not a PE32+ (64-bit) image");
  const resourceRva = optional.readUInt32LE(112 + 2 * 8); // data directory 2: the resource table
  const table = await read(peOffset + 24 + optionalSize, sections * 40);
  /** @param {number} rva */
  const fileOffset = (rva) => {
    for (let i = 0; i < sections; i++) {
      const virtualSize = table.readUInt32LE(i * 40 + 8);
      const virtualAddress = table.readUInt32LE(i * 40 + 12);
      const rawSize = table.readUInt32LE(i * 40 + 16);
      if (rva >= virtualAddress && rva < virtualAddress + Math.max(virtualSize, rawSize))
        return table.readUInt32LE(i * 40 + 20) + (rva - virtualAddress);
    }
    throw new Error(`RVA 0x${rva.toString(16)} is in no section`);
  };
  const base = fileOffset(resourceRva);
  /**
   * The entries of the resource directory at `offset` (relative to the resource section).
   * @param {number} offset
   */
  const entries = async (offset) => {
    const directory = await read(base + offset, 16);
    const count = directory.readUInt16LE(12) + directory.readUInt16LE(14);
    const raw = await read(base + offset + 16, count * 8);
    const list = [];
    for (let i = 0; i < count; i++) {
      const name = raw.readUInt32LE(i * 8);
      const target = raw.readUInt32LE(i * 8 + 4);
      let label = String(name);
      if (name & 0x80000000) {
        const at = name & 0x7fffffff;
        const length = (await read(base + at, 2)).readUInt16LE(0);
        label = (await read(base + at + 2, length * 2)).toString("utf16le");
      }
      list.push({ label, subdirectory: (target & 0x80000000) !== 0, offset: target & 0x7fffffff });
    }
    return list;
  };
  const rcdata = (await entries(0)).find((e) => e.label === "10" && e.subdirectory);
  const named =
    rcdata && (await entries(rcdata.offset)).find((e) => e.label === SEA_RESOURCE && e.subdirectory);
  const language = named && (await entries(named.offset)).find((e) => !e.subdirectory);
  if (language === undefined) throw new Error(`no RT_RCDATA resource named ${SEA_RESOURCE}`);
  const data = await read(base + language.offset, 8);
  const blob = await read(fileOffset(data.readUInt32LE(0)), data.readUInt32LE(4));
  return { format: /** @type {const} */ ("pe"), arch, signed: false, blob };
}

/**
 * Whether the sentinel fuse reads `:1`: scanned in chunks that overlap by the fuse's length.
 * @param {Read} read
 * @param {number} size
 */
async function fuseFlipped(read, size) {
  const needle = Buffer.from(`${SEA_FUSE}:`);
  const chunk = 8 * 1024 * 1024;
  for (let at = 0; at < size; at += chunk - needle.length - 1) {
    const bytes = await read(at, Math.min(chunk, size - at));
    const found = bytes.indexOf(needle);
    if (found !== -1 && found + needle.length < bytes.length) return bytes[found + needle.length] === 0x31;
  }
  return false;
}

/**
 * What a blob must hold: the bundle as its main script, under a relative name (no path of the build
 * machine), and nothing but a few bytes of framing besides (no V8 code cache, no snapshot: both are made
 * for one machine's V8 build and would differ build to build). The layout checked is the one Node.js
 * 26.10.0 writes (magic, flags, then the script's name and text, each after its 64-bit length).
 * @param {Buffer} blob
 * @param {Buffer} bundle
 * @param {string} mainName
 * @returns {string[]} what is wrong, empty when nothing is
 */
export function blobProblems(blob, bundle, mainName) {
  const problems = [];
  if (blob.readUInt32LE(0) !== 0x0143da20) problems.push("the blob does not start with Node.js's SEA magic");
  const u64 = (/** @type {number} */ n) => {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64LE(BigInt(n));
    return bytes;
  };
  const main = Buffer.concat([
    u64(Buffer.byteLength(mainName)),
    Buffer.from(mainName),
    u64(bundle.length),
    bundle,
  ]);
  const at = blob.indexOf(main);
  if (at === -1) problems.push(`the blob does not hold the bundle as its main script named ${mainName}`);
  else if (at > 16) problems.push(`the blob has ${at} bytes before its main script's name, not at most 16`);
  const extra = blob.length - bundle.length;
  if (extra > 256)
    problems.push(`the blob holds ${extra} bytes besides the bundle: a code cache or snapshot?`);
  return problems;
}

/**
 * Checks a Mach-O file's code signature the way macOS checks an ad hoc one: the LC_CODE_SIGNATURE blob is a
 * SuperBlob whose CodeDirectory is flagged ad hoc (CS_ADHOC), and every page of the file up to the
 * directory's code limit hashes (SHA-256) to the directory's slot for it, and the requirements blob to its
 * special slot. (rcodesign's own `verify` fails on every ad hoc signature, on its empty CMS blob: "CMS
 * error: missing further values", seen with 0.29.0.)
 * @param {string} path
 * @returns {Promise<{ identifier: string, pages: number, problems: string[] }>}
 */
export async function adHocSignatureProblems(path) {
  const file = await open(path, "r");
  try {
    const bytes = await file.readFile();
    const ncmds = bytes.readUInt32LE(16);
    let signature;
    for (let at = 32, i = 0; i < ncmds; i++) {
      if (bytes.readUInt32LE(at) === 0x1d)
        signature = bytes.subarray(
          bytes.readUInt32LE(at + 8),
          bytes.readUInt32LE(at + 8) + bytes.readUInt32LE(at + 12),
        );
      at += bytes.readUInt32LE(at + 4);
    }
    if (signature === undefined) return { identifier: "", pages: 0, problems: ["no LC_CODE_SIGNATURE"] };
    if (signature.readUInt32BE(0) !== 0xfade0cc0)
      return { identifier: "", pages: 0, problems: ["no SuperBlob"] };
    /** @type {Map<number, Buffer>} */
    const blobs = new Map();
    for (let i = 0; i < signature.readUInt32BE(8); i++) {
      const offset = signature.readUInt32BE(16 + i * 8);
      blobs.set(
        signature.readUInt32BE(12 + i * 8),
        signature.subarray(offset, offset + signature.readUInt32BE(offset + 4)),
      );
    }
    const directory = blobs.get(0);
    if (directory === undefined || directory.readUInt32BE(0) !== 0xfade0c02)
      return { identifier: "", pages: 0, problems: ["no CodeDirectory"] };
    const problems = [];
    const flags = directory.readUInt32BE(12);
    const hashOffset = directory.readUInt32BE(16);
    const identifier = cString(directory.subarray(directory.readUInt32BE(20)));
    const codeSlots = directory.readUInt32BE(28);
    const codeLimit = directory.readUInt32BE(32);
    const hashSize = directory[36] ?? 0;
    const hashType = directory[37];
    const pageSize = 2 ** (directory[39] ?? 0);
    if ((flags & 0x2) === 0) problems.push(`the CodeDirectory is not ad hoc (flags 0x${flags.toString(16)})`);
    if (hashType !== 2 || hashSize !== 32)
      problems.push(`hash type ${hashType} (size ${hashSize}) is not SHA-256`);
    const digest = (/** @type {Buffer} */ data) => createHash("sha256").update(data).digest();
    const slot = (/** @type {number} */ index) =>
      directory.subarray(hashOffset + index * hashSize, hashOffset + (index + 1) * hashSize);
    if (codeSlots !== Math.ceil(codeLimit / pageSize))
      problems.push(`${codeSlots} code slots for ${codeLimit} bytes`);
    let wrong = 0;
    for (let page = 0; page < codeSlots; page++) {
      const data = bytes.subarray(page * pageSize, Math.min((page + 1) * pageSize, codeLimit));
      if (!digest(data).equals(slot(page))) wrong++;
    }
    if (wrong > 0) problems.push(`${wrong} of ${codeSlots} pages do not hash to their slot`);
    const requirements = blobs.get(2);
    if (requirements !== undefined && !digest(requirements).equals(slot(-2)))
      problems.push("the requirements blob does not hash to its special slot");
    return { identifier, pages: codeSlots, problems };
  } finally {
    await file.close();
  }
}
