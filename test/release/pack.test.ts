// The release files as their consumers read them: archives read back by the system's tar (Pulumi's own
// reader is exercised end to end in test/e2e/plugin-archive.test.ts), the checksums file checked by
// `sha256sum -c`, the printed install command read back by a POSIX shell. And the writing itself: the same
// entries make the same bytes whatever the machine's state, and nothing is ever written through a link
// someone planted in the output directory.
import { execFile, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { installCommand, parseOptions } from "../../scripts/release/archives.mjs";
import { launcherEntries } from "../../scripts/release/launcher.mjs";
import {
  archiveTime,
  checksumsText,
  publish,
  writeExclusive,
  writeTarGz,
  type TarEntry,
} from "../../scripts/release/pack.mjs";
import { PLATFORMS } from "../../scripts/release/platforms.mjs";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "pwe-release-pack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
/** A fresh directory below the test's own. */
function fresh(name: string): string {
  const path = join(dir, `${name}-${++counter}`);
  mkdirSync(path, { recursive: true });
  return path;
}

/** Two copies of the same content, each with its own file times and permissions. */
function sameContentTwice(): [TarEntry[], TarEntry[]] {
  const copies = [fresh("a"), fresh("b")].map((base, i) => {
    const file = join(base, "payload.bin");
    writeFileSync(file, Buffer.from(Array.from({ length: 3000 }, (_, n) => (n * 7) % 256)));
    chmodSync(file, i === 0 ? 0o600 : 0o777);
    utimesSync(file, new Date(2001 + i * 20, 0, 1), new Date(2001 + i * 20, 0, 1));
    return [
      { name: "pulumi-resource-webhooks", mode: 0o755, file },
      { name: "notes.txt", mode: 0o644, text: "the same text\n" },
    ];
  });
  return [copies[0]!, copies[1]!];
}

describe("release archives: reproducible .tar.gz", () => {
  it("the same entries make the same bytes, whatever the files' times, permissions and directories", async () => {
    const [first, second] = sameContentTwice();
    const a = join(fresh("out"), "x.tar.gz");
    const b = join(fresh("out"), "y.tar.gz");
    await writeTarGz(first, a, { mtime: 0 });
    await writeTarGz(second, b, { mtime: 0 });
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });

  it("tar reads each entry back as given: mode from the entry, owner root 0:0, the archive's time, in order", async () => {
    const [entries] = sameContentTwice();
    const path = join(fresh("out"), "x.tar.gz");
    await writeTarGz(entries, path, { mtime: 1_700_000_000 });
    const listing = (
      await run("tar", ["--numeric-owner", "--full-time", "-tvzf", path], { env: { TZ: "UTC" } })
    ).stdout
      .trim()
      .split("\n");
    expect(listing).toHaveLength(2);
    expect(listing[0]).toMatch(/^-rwxr-xr-x 0\/0 +3000 2023-11-14 22:13:20 pulumi-resource-webhooks$/);
    expect(listing[1]).toMatch(/^-rw-r--r-- 0\/0 +14 2023-11-14 22:13:20 notes\.txt$/);
    const unpacked = fresh("unpacked");
    await run("tar", ["-xzf", path, "-C", unpacked]);
    expect(
      readFileSync(join(unpacked, "pulumi-resource-webhooks")).equals(readFileSync(entries[0]!.file!)),
    ).toBe(true);
  });

  it("the gzip header names no file and no time (RFC 1952: FLG without FNAME, MTIME 0)", async () => {
    const [entries] = sameContentTwice();
    const path = join(fresh("out"), "x.tar.gz");
    await writeTarGz(entries, path, { mtime: 0 });
    const header = readFileSync(path).subarray(0, 10);
    expect([header[0], header[1], header[2]]).toEqual([0x1f, 0x8b, 8]);
    expect(header[3]! & 0x08).toBe(0);
    expect(header.readUInt32LE(4)).toBe(0);
  });

  it("the archive's time is SOURCE_DATE_EPOCH, else 0; anything else is refused", () => {
    expect(archiveTime({})).toBe(0);
    expect(archiveTime({ SOURCE_DATE_EPOCH: "1700000000" })).toBe(1_700_000_000);
    expect(() => archiveTime({ SOURCE_DATE_EPOCH: "yesterday" })).toThrow(
      /SOURCE_DATE_EPOCH must be whole seconds/,
    );
  });

  it("refuses an entry that is not a plain file name (the archive is flat, as the engine expects)", async () => {
    for (const name of ["../evil", "dir/file", "..", ""]) {
      const path = join(fresh("out"), "x.tar.gz");
      await expect(writeTarGz([{ name, mode: 0o644, text: "x" }], path)).rejects.toThrow(/plain file name/);
    }
  });
});

describe("release archives: nothing written through a planted link", () => {
  /** A file an attacker would like overwritten, and its content. */
  function victim(): { path: string; content: string } {
    const path = join(fresh("victim"), "authorized_keys");
    writeFileSync(path, "the victim's own content\n");
    return { path, content: "the victim's own content\n" };
  }
  const file = (name: string, text: string) => ({
    name,
    write: (path: string) => writeExclusive(path, text),
  });

  it("a link planted at the archive's path is refused with a clear message; its target is untouched", async () => {
    const out = fresh("out");
    const target = victim();
    symlinkSync(target.path, join(out, "a.tar.gz"));
    await expect(publish(out, [file("a.tar.gz", "archive")])).rejects.toThrow(
      `${join(out, "a.tar.gz")} is a symbolic link (to ${target.path}): refusing to write through it. Remove it, or choose another --out`,
    );
    expect(readFileSync(target.path, "utf8")).toBe(target.content);
    expect(lstatSync(join(out, "a.tar.gz")).isSymbolicLink()).toBe(true);
    // Nothing else is left: no staging directory, no partial file.
    expect(readdirSync(out)).toEqual(["a.tar.gz"]);
  });

  it("links planted at the temporary names a writer could pick (<file>.partial-<pid>, <file>.tmp) are never followed", async () => {
    const out = fresh("out");
    const target = victim();
    for (const name of [`a.tar.gz.partial-${process.pid}`, "a.tar.gz.tmp", "a.tar.gz.partial"])
      symlinkSync(target.path, join(out, name));
    const [written] = await publish(out, [file("a.tar.gz", "archive\n")]);
    expect(readFileSync(target.path, "utf8")).toBe(target.content);
    expect(readFileSync(join(out, "a.tar.gz"), "utf8")).toBe("archive\n");
    expect(lstatSync(join(out, "a.tar.gz")).isFile()).toBe(true);
    expect(written?.path).toBe(join(out, "a.tar.gz"));
  });

  it("all or nothing: when one target is refused, no other file is replaced", async () => {
    const out = fresh("out");
    writeFileSync(join(out, "a.tar.gz"), "the old archive\n");
    symlinkSync(victim().path, join(out, "b.tar.gz"));
    await expect(publish(out, [file("a.tar.gz", "new a\n"), file("b.tar.gz", "new b\n")])).rejects.toThrow(
      /b\.tar\.gz is a symbolic link/,
    );
    expect(readFileSync(join(out, "a.tar.gz"), "utf8")).toBe("the old archive\n");
    expect(readdirSync(out).sort()).toEqual(["a.tar.gz", "b.tar.gz"]);
  });

  it("a directory at a target is refused; a regular file there is replaced", async () => {
    const out = fresh("out");
    mkdirSync(join(out, "a.tar.gz"));
    await expect(publish(out, [file("a.tar.gz", "x")])).rejects.toThrow(
      /a\.tar\.gz exists and is not a regular file/,
    );
    writeFileSync(join(out, "b.tar.gz"), "old\n");
    await publish(out, [file("b.tar.gz", "new\n")]);
    expect(readFileSync(join(out, "b.tar.gz"), "utf8")).toBe("new\n");
  });

  it("the writers open exclusively and do not follow a link: a planted path makes them fail, not write", async () => {
    const target = victim();
    const link = join(fresh("out"), "planted");
    symlinkSync(target.path, link);
    await expect(writeExclusive(link, "x")).rejects.toThrow(/EEXIST|ELOOP/);
    await expect(writeTarGz([{ name: "f", mode: 0o644, text: "x" }], link)).rejects.toThrow(/EEXIST|ELOOP/);
    expect(readFileSync(target.path, "utf8")).toBe(target.content);
  });

  it("an output directory others can write to is refused unless sticky (then they cannot replace our files)", async () => {
    const open = fresh("open");
    chmodSync(open, 0o777);
    await expect(publish(open, [file("a.tar.gz", "x")])).rejects.toThrow(
      `--out ${open} can be written by other users (mode 777) and is not sticky, so they could replace the archives after they are written: choose a directory only you can write to`,
    );
    expect(readdirSync(open)).toEqual([]);
    const sticky = fresh("sticky");
    chmodSync(sticky, 0o1777);
    await publish(sticky, [file("a.tar.gz", "x")]);
    expect(readFileSync(join(sticky, "a.tar.gz"), "utf8")).toBe("x");
  });

  it("a missing output directory is made, and the files in it are readable by all (0644)", async () => {
    const out = join(fresh("parent"), "new", "dir");
    const [written] = await publish(out, [file("a.tar.gz", "x")]);
    expect(lstatSync(written!.path).mode & 0o777).toBe(0o644);
  });
});

describe("release archives: the checksums file", () => {
  it("is what sha256sum -c reads: each file checks OK, and a changed file fails", async () => {
    const out = fresh("out");
    const published = await publish(out, [
      { name: "b.tar.gz", write: (path) => writeExclusive(path, "bee\n") },
      { name: "a.tar.gz", write: (path) => writeExclusive(path, "ay\n") },
      { name: "sums.txt", write: (path, before) => writeExclusive(path, checksumsText(before)) },
    ]);
    const sums = readFileSync(join(out, "sums.txt"), "utf8");
    expect(sums.split("\n").map((line) => line.split("  ")[1])).toEqual(["a.tar.gz", "b.tar.gz", undefined]);
    expect(published.find((p) => p.name === "a.tar.gz")?.sha256).toBe(
      (await run("sha256sum", ["a.tar.gz"], { cwd: out })).stdout.split(" ")[0],
    );
    expect((await run("sha256sum", ["-c", "sums.txt"], { cwd: out })).stdout).toBe(
      "a.tar.gz: OK\nb.tar.gz: OK\n",
    );
    writeFileSync(join(out, "b.tar.gz"), "changed\n");
    await expect(run("sha256sum", ["-c", "sums.txt"], { cwd: out })).rejects.toMatchObject({
      stdout: expect.stringContaining("b.tar.gz: FAILED") as unknown,
    });
  });

  it("refuses names sha256sum would misread, and anything that is not a SHA-256", () => {
    const hex = "0".repeat(64);
    for (const name of ["a\nb", "a\\b", "dir/a"])
      expect(() => checksumsText([{ name, sha256: hex }])).toThrow(/cannot list/);
    expect(() => checksumsText([{ name: "a", sha256: "abc" }])).toThrow(/cannot list/);
  });
});

describe("release archives: the command line", () => {
  it("builds every platform by default, in the platforms' order, each once", () => {
    expect(parseOptions([]).platforms).toEqual([...PLATFORMS]);
    expect(
      parseOptions(["--platform", "windows-arm64", "--platform", "linux-amd64", "--platform", "linux-amd64"])
        .platforms,
    ).toEqual(["linux-amd64", "windows-arm64"]);
    expect(parseOptions(["--platform", "all", "--platform", "linux-arm64"]).platforms).toHaveLength(6);
    expect(parseOptions([]).out).toBe("release-archives");
  });

  it("refuses an unknown platform naming every platform, and unknown flags", () => {
    expect(() => parseOptions(["--platform", "linux-x64"])).toThrow(
      '--platform must be one of linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64, windows-arm64 or all, got "linux-x64"',
    );
    expect(() => parseOptions(["--launcher"])).toThrow(/--launcher/);
    expect(() => parseOptions(["--out", ""])).toThrow("--out needs a directory");
  });

  it("the install command it prints is what a POSIX shell reads back as the path written, spaces and quotes included", async () => {
    const path = join(dir, "it's a dir", "pulumi-resource-webhooks-v1.2.3-linux-amd64.tar.gz");
    const command = installCommand("1.2.3", path);
    const { stdout } = await run("/bin/sh", [
      "-c",
      `set -- ${command.replace(/^pulumi /, "")}; printf '%s\\n' "$@"`,
    ]);
    expect(stdout.split("\n").slice(0, -1)).toEqual([
      "plugin",
      "install",
      "resource",
      "webhooks",
      "1.2.3",
      "--file",
      path,
    ]);
  });
});

describe("release archives: the launcher (a platform with no pinned Node.js binary)", () => {
  const bundle = join(dir, "bundle.js");
  writeFileSync(bundle, "process.stdout.write('4242\\n'); setInterval(() => {}, 1000);\n");

  /** Starts an executable as the engine does; resolves to its first line or its exit. */
  function firstLine(
    executable: string,
    env: NodeJS.ProcessEnv,
  ): Promise<{ line?: string; code?: number | null; stderr: string }> {
    const child = spawn(executable, ["127.0.0.1:1"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("\n")) {
          child.kill("SIGKILL");
          resolve({ line: stdout.split("\n")[0]!, stderr });
        }
      });
      // "close", not "exit": only then has all of stderr been read.
      child.on("close", (code) => resolve({ code, stderr }));
    });
  }

  it("for Windows: a .cmd that runs the bundle beside it with the node on PATH, and says what it needs without one (read: no Windows here)", () => {
    const [cmd, js] = launcherEntries("windows-arm64", "1.2.3", bundle);
    expect([cmd?.name, js?.name, js?.file]).toEqual([
      "pulumi-resource-webhooks.cmd",
      "pulumi-resource-webhooks.js",
      bundle,
    ]);
    expect(cmd?.text?.split("\r\n")).toEqual([
      "@echo off",
      "rem pulumi-resource-webhooks v1.2.3 (windows-arm64) runs on Node.js 22.19 or newer: this launcher starts pulumi-resource-webhooks.js, beside it, with the node on PATH.",
      "where node >nul 2>nul",
      "if errorlevel 1 goto nonode",
      'node "%~dp0pulumi-resource-webhooks.js" %*',
      "exit /b %errorlevel%",
      ":nonode",
      "echo pulumi-resource-webhooks v1.2.3 (windows-arm64) runs on Node.js 22.19 or newer, and no node is on PATH: install Node.js 22.19 or newer 1>&2",
      "exit /b 1",
      "",
    ]);
  });

  it("for a POSIX system: unpacked by tar, it starts the bundle with the node on PATH, and says what it needs when there is none", async () => {
    const archive = join(fresh("out"), "launcher.tar.gz");
    await writeTarGz(launcherEntries("linux-arm64", "1.2.3", bundle), archive);
    const unpacked = fresh("unpacked");
    await run("tar", ["-xzf", archive, "-C", unpacked]);
    const launcher = join(unpacked, "pulumi-resource-webhooks");
    expect(lstatSync(launcher).mode & 0o777).toBe(0o755);
    const withNode = await firstLine(launcher, { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    expect(withNode.line).toBe("4242");
    const withoutNode = await firstLine(launcher, { PATH: "/nonexistent" });
    expect(withoutNode.code).toBe(1);
    expect(withoutNode.stderr).toContain(
      "pulumi-resource-webhooks v1.2.3 (linux-arm64) runs on Node.js 22.19 or newer, and no node is on PATH",
    );
    expect(existsSync(join(unpacked, "pulumi-resource-webhooks.js"))).toBe(true);
  });
});
