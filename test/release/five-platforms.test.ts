// @module-tag deep
// npm run release:archives for every platform, twice, as a maintainer runs it before a release, and each
// archive proven as far as this Linux machine can: linux-amd64 is installed and driven through the engine
// in npm test (test/e2e/plugin-archive.test.ts); here linux-arm64 runs under qemu-user, the darwin
// executables' ad hoc signatures are checked page by page, and windows-amd64 is read structurally (Debian's
// Wine 8.0 cannot start Node.js 26: V8 stops with "Fatal process out of memory: SegmentedTable::InitializeTable
// (subspace allocation)", the plain node.exe too). Needs rcodesign and qemu: bash scripts/ensure-release-tools.sh
// (npm run test:deep runs it).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundlePlugin } from "../../scripts/plugin-bundle.mjs";
import { adHocSignatureProblems, blobProblems, inspectExecutable } from "../../scripts/release/inspect.mjs";
import {
  NODE_BINARIES,
  PLATFORMS,
  archiveFileName,
  checksumsFileName,
} from "../../scripts/release/platforms.mjs";
import { MAIN_SCRIPT, findRcodesign } from "../../scripts/release/sea.mjs";
import { ProviderHost } from "../support/provider-host";

const run = promisify(execFile);
const REPO = join(__dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const SYSROOT = "/usr/aarch64-linux-gnu";
const dir = mkdtempSync(join(tmpdir(), "pwe-five-platforms-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Report {
  archives: {
    platform: string;
    kind: string;
    path: string;
    bytes: number;
    executableBytes: number;
    sha256: string;
  }[];
  checksums: string;
}

/** The release build, into `out`, as `npm run release:archives -- --out <out> --json` runs it. */
async function build(out: string): Promise<Report> {
  const started = Date.now();
  const { stdout } = await run(
    process.execPath,
    [join(REPO, "scripts", "release", "archives.mjs"), "--out", out, "--json"],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  console.log(`[five-platforms] build into ${out}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return JSON.parse(stdout) as Report;
}

/** The archive of `platform`, unpacked; the path of the file named `name` in it. */
async function unpacked(report: Report, platform: string, name: string): Promise<string> {
  const into = join(dir, "unpacked", platform);
  if (!existsSync(into)) {
    mkdirSync(into, { recursive: true });
    await run("tar", ["-xzf", report.archives.find((a) => a.platform === platform)!.path, "-C", into]);
  }
  return join(into, name);
}

let first: Report;
let second: Report;
let bundle: Buffer;
let qemu: string;

describe("the release archives for every platform", () => {
  beforeAll(async () => {
    qemu = (await run("/bin/sh", ["-c", "command -v qemu-aarch64-static || true"])).stdout.trim();
    if (findRcodesign() === undefined || qemu === "" || !existsSync(join(SYSROOT, "lib", "libatomic.so.1")))
      throw new Error(
        "rcodesign or qemu is missing: run `bash scripts/ensure-release-tools.sh` (npm run test:deep does)",
      );
    first = await build(join(dir, "first"));
    second = await build(join(dir, "second"));
    const outfile = join(dir, "bundle", MAIN_SCRIPT);
    await bundlePlugin({ outfile, repo: REPO });
    bundle = readFileSync(outfile);
  }, 3_600_000);

  it("two builds of one commit are byte-identical: the same checksums file, which sha256sum -c accepts in each", async () => {
    const sums = readFileSync(first.checksums);
    expect(readFileSync(second.checksums).equals(sums)).toBe(true);
    for (const report of [first, second]) {
      const { stdout } = await run("sha256sum", ["-c", checksumsFileName(VERSION)], {
        cwd: join(report.checksums, ".."),
      });
      expect(stdout.trim().split("\n")).toEqual(
        PLATFORMS.map((p) => `${archiveFileName(VERSION, p)}: OK`).sort(),
      );
    }
    for (const a of first.archives)
      console.log(
        `[five-platforms] ${a.platform}  ${a.kind}  ${a.bytes} bytes (executable ${a.executableBytes})  sha256 ${a.sha256}`,
      );
    expect(first.archives.map((a) => [a.platform, a.kind])).toEqual(
      PLATFORMS.map((p) => [p, NODE_BINARIES.binaries[p] ? "single-executable" : "launcher"]),
    );
  });

  it("every single executable carries one blob: this checkout's bundle, under a relative name, nothing else", async () => {
    const names: Record<string, string> = { "windows-amd64": "pulumi-resource-webhooks.exe" };
    const blobs = [];
    for (const platform of PLATFORMS.filter((p) => NODE_BINARIES.binaries[p])) {
      const found = await inspectExecutable(
        await unpacked(first, platform, names[platform] ?? "pulumi-resource-webhooks"),
      );
      const [os, arch] = platform.split("-");
      expect([platform, found.format, found.arch, found.fuseFlipped]).toEqual([
        platform,
        { linux: "elf", darwin: "macho", windows: "pe" }[os!],
        arch,
        true,
      ]);
      expect(blobProblems(found.blob, bundle, MAIN_SCRIPT)).toEqual([]);
      blobs.push(found.blob);
    }
    for (const blob of blobs) expect(blob.equals(blobs[0]!)).toBe(true);
  });

  it("linux-arm64 under qemu-user answers the engine's handshake, GetPluginInfo and GetSchema, and ignores NODE_OPTIONS", async () => {
    const executable = await unpacked(first, "linux-arm64", "pulumi-resource-webhooks");
    const mark = join(dir, "evil.ran");
    writeFileSync(join(dir, "evil.js"), `require("fs").writeFileSync(${JSON.stringify(mark)}, "ran")\n`);
    const started = Date.now();
    const host = await ProviderHost.startExecutable(
      executable,
      { PATH: "", NODE_OPTIONS: `--require ${join(dir, "evil.js")}` },
      { wrapper: [qemu, "-L", SYSROOT], seconds: 300 },
    );
    try {
      console.log(
        `[five-platforms] linux-arm64 under qemu printed its port after ${Date.now() - started} ms`,
      );
      expect(await host.pluginVersion()).toBe(VERSION);
      expect((await host.getSchema()).version).toBe(VERSION);
      expect(existsSync(mark)).toBe(false);
    } finally {
      await host.stop();
    }
  });

  it("darwin-amd64 and darwin-arm64: signed ad hoc, every page hashing to its slot; one changed byte breaks it", async () => {
    for (const platform of ["darwin-amd64", "darwin-arm64"]) {
      const executable = await unpacked(first, platform, "pulumi-resource-webhooks");
      const found = await inspectExecutable(executable);
      expect(found.signed).toBe(true);
      const signature = await adHocSignatureProblems(executable);
      expect([signature.identifier, signature.problems]).toEqual(["pulumi-resource-webhooks", []]);
      expect(signature.pages).toBeGreaterThan(30_000);
      const { stdout } = await run(findRcodesign()!, ["print-signature-info", executable], {
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(stdout).toMatch(/^\s*flags: CodeSignatureFlags\(ADHOC\)$/m);
      // The check can fail: the same file with one byte of its code changed.
      const changed = join(dir, `${platform}-changed`);
      const bytes = readFileSync(executable);
      bytes[5_000_000] = bytes[5_000_000]! ^ 0xff;
      writeFileSync(changed, bytes);
      expect((await adHocSignatureProblems(changed)).problems).toEqual([
        `1 of ${signature.pages} pages do not hash to their slot`,
      ]);
    }
  });

  it("windows-arm64: no Node.js binary on the registry at the pinned version, so a launcher (.cmd) and the bundle", async () => {
    expect(NODE_BINARIES.binaries["windows-arm64"]).toBeUndefined();
    const { stdout } = await run("tar", [
      "-tzf",
      first.archives.find((a) => a.platform === "windows-arm64")!.path,
    ]);
    expect(stdout.trim().split("\n")).toEqual([
      "pulumi-resource-webhooks.cmd",
      "pulumi-resource-webhooks.js",
    ]);
    expect(
      readFileSync(await unpacked(first, "windows-arm64", "pulumi-resource-webhooks.js")).equals(bundle),
    ).toBe(true);
  });
});
