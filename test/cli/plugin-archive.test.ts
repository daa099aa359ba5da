import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main";
import { memorySink } from "../../src/cli/output/output";
import { installCommand, selectPlatforms } from "../../src/cli/commands/plugin-archive";
import { archiveFileName, buildPluginArchive, hostPlatform } from "../../src/native/archive";
import { fakePulumi } from "./helpers";

/**
 * `webhooks plugin-archive` run as a user runs it (the built bin), its archives read back by the system's tar
 * (the format's real consumer besides Pulumi, which the end-to-end tests install them with), and the
 * launcher kind run from where tar put it. The single executable is built and installed end to end
 * (test/e2e/plugin-archive.test.ts): it takes a copy of node and tens of seconds.
 */
const REPO = join(__dirname, "..", "..");
const BIN = join(REPO, "dist", "cli", "main.js");
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "webhooks-plugin-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts an executable the way the engine starts a plugin and resolves to the first line it prints, or to its failure. */
function firstLine(
  executable: string,
  env: NodeJS.ProcessEnv,
): Promise<{ line?: string | undefined; code?: number | null; stderr: string }> {
  const child = spawn(executable, ["127.0.0.1:1"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("\n")) {
        child.kill("SIGKILL");
        resolve({ line: stdout.split("\n")[0], stderr });
      }
    });
    // "close", not "exit": only then has all of stderr been read.
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("webhooks plugin-archive", () => {
  it("--platform is checked before anything is built: a wrong one is a usage error naming every platform (exit 2)", async () => {
    const sink = memorySink();
    const code = await main(["plugin-archive", "--platform", "linux-x64", "--out", join(dir, "never")], {
      sink,
      env: {},
      cwd: dir,
      pulumi: fakePulumi({}, { missing: true }),
    });
    expect(code).toBe(2);
    expect(sink.err).toContain(
      '--platform must be one of linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64, windows-arm64 or all, got "linux-x64"',
    );
    expect(() => statSync(join(dir, "never"))).toThrow();
  });

  it("refuses, before building, to make a single executable of a node older than the plugin needs", async () => {
    // A stand-in for an old node: all the builder asks of it first is its version.
    const oldNode = join(dir, "old-node");
    writeFileSync(oldNode, "#!/bin/sh\necho 22.18.0\n", { mode: 0o755 });
    const bundle = join(REPO, "dist", "plugin", "pulumi-resource-webhooks.js");
    const host = hostPlatform()!;
    await expect(
      buildPluginArchive({
        platform: host,
        outDir: join(dir, "old"),
        bundle,
        version: VERSION,
        node: oldNode,
      }),
    ).rejects.toThrow(
      `the single executable would be this node (${oldNode}, v22.18.0), and the plugin needs Node.js 22.19 or newer: run \`webhooks plugin-archive\` with a newer node, or add --launcher`,
    );
    expect(() => statSync(join(dir, "old", archiveFileName(VERSION, host)))).toThrow();
  });

  it("selects this machine's platform by default, every platform with all, each once", () => {
    expect(selectPlatforms([], "linux-amd64")).toEqual(["linux-amd64"]);
    expect(selectPlatforms(["all", "linux-arm64"], "linux-amd64")).toHaveLength(6);
    expect(() => selectPlatforms([], undefined)).toThrow(/name the platforms with --platform/);
    expect(hostPlatform("linux", "x64")).toBe("linux-amd64");
    expect(hostPlatform("win32", "arm64")).toBe("windows-arm64");
    expect(hostPlatform("aix", "ppc64")).toBeUndefined();
  });

  it("the install command it prints is one a POSIX shell reads back as the path written, spaces and quotes included", async () => {
    const path = join(dir, "it's a dir", archiveFileName(VERSION, "linux-amd64"));
    const command = installCommand(VERSION, path);
    const { stdout } = await run("/bin/sh", [
      "-c",
      `set -- ${command.replace(/^pulumi /, "")}; printf '%s\\n' "$@"`,
    ]);
    expect(stdout.split("\n").slice(0, -1)).toEqual([
      "plugin",
      "install",
      "resource",
      "webhooks",
      VERSION,
      "--file",
      path,
    ]);
  });

  it("writes launcher archives in Pulumi's layout for other platforms: the launcher and the bundle at the root", async () => {
    const out = join(dir, "archives");
    const { stdout } = await run(
      process.execPath,
      [
        BIN,
        "plugin-archive",
        "--platform",
        "linux-arm64",
        "--platform",
        "windows-amd64",
        "--platform",
        "darwin-arm64",
        "--out",
        out,
        "--json",
      ],
      {
        cwd: dir,
      },
    );
    const report = JSON.parse(stdout) as {
      archives: {
        platform: string;
        kind: string;
        path: string;
        bytes: number;
        executableBytes: number;
        sha256: string;
      }[];
      install: string | null;
    };
    expect(report.archives.map((a) => [a.platform, a.kind])).toEqual([
      ["linux-arm64", "launcher"],
      ["windows-amd64", "launcher"],
      ["darwin-arm64", "launcher"],
    ]);
    // None of them is this machine's (linux-amd64 here): nothing to install here.
    if (hostPlatform() === "linux-amd64") expect(report.install).toBeNull();
    const bundleBytes = statSync(join(REPO, "dist", "plugin", "pulumi-resource-webhooks.js")).size;
    for (const archive of report.archives) {
      expect(archive.path).toBe(join(out, `pulumi-resource-webhooks-v${VERSION}-${archive.platform}.tar.gz`));
      expect(archive.bytes).toBe(statSync(archive.path).size);
      expect(archive.executableBytes).toBe(bundleBytes);
      expect((await run("sha256sum", [archive.path])).stdout.split(" ")[0]).toBe(archive.sha256);
      const listing = (await run("tar", ["-tvzf", archive.path])).stdout.trim().split("\n");
      const launcher = archive.platform.startsWith("windows-")
        ? "pulumi-resource-webhooks.cmd"
        : "pulumi-resource-webhooks";
      expect(listing.map((line) => line.split(/\s+/).pop())).toEqual([
        launcher,
        "pulumi-resource-webhooks.js",
      ]);
      expect(listing[0]).toMatch(/^-rwxr-xr-x /);
      expect(listing[1]).toMatch(new RegExp(`^-rw-r--r-- .* ${bundleBytes} `));
    }
  });

  it("the Windows launcher runs the bundle beside it with the node on PATH, and says what it needs without one (read, not run: no Windows here)", async () => {
    const unpacked = join(dir, "unpacked-windows");
    mkdirSync(unpacked);
    await run("tar", [
      "-xzf",
      join(dir, "archives", archiveFileName(VERSION, "windows-amd64")),
      "-C",
      unpacked,
    ]);
    const cmd = readFileSync(join(unpacked, "pulumi-resource-webhooks.cmd"), "utf8");
    expect(cmd.split("\r\n")).toEqual([
      "@echo off",
      `rem pulumi-resource-webhooks v${VERSION} (windows-amd64) runs on Node.js 22.19 or newer: this launcher starts pulumi-resource-webhooks.js, beside it, with the node on PATH.`,
      "where node >nul 2>nul",
      "if errorlevel 1 goto nonode",
      'node "%~dp0pulumi-resource-webhooks.js" %*',
      "exit /b %errorlevel%",
      ":nonode",
      `echo pulumi-resource-webhooks v${VERSION} (windows-amd64) runs on Node.js 22.19 or newer, and no node is on PATH: install Node.js 22.19 or newer 1>&2`,
      "exit /b 1",
      "",
    ]);
  });

  it("the unpacked launcher starts the plugin with the node on PATH, and says what it needs when there is none", async () => {
    const unpacked = join(dir, "unpacked");
    mkdirSync(unpacked);
    await run("tar", [
      "-xzf",
      join(dir, "archives", archiveFileName(VERSION, "linux-arm64")),
      "-C",
      unpacked,
    ]);
    const launcher = join(unpacked, "pulumi-resource-webhooks");
    const withNode = await firstLine(launcher, { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    expect(withNode.line).toMatch(/^\d+$/);
    const withoutNode = await firstLine(launcher, { PATH: "/nonexistent" });
    expect(withoutNode.code).toBe(1);
    expect(withoutNode.stderr).toContain(
      `pulumi-resource-webhooks v${VERSION} (linux-arm64) runs on Node.js 22.19 or newer, and no node is on PATH`,
    );
  });
});
