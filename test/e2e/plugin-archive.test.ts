// The plugin archive as a Pulumi user meets it: the linux-amd64 release archive (npm run release:archives),
// checked with `sha256sum -c` against the checksums file beside it, installed with the command the build
// prints (`pulumi plugin install resource webhooks <version> --file <archive>`), then found by the engine
// in PULUMI_HOME with no plugin and no node on PATH, where the npm-installed plugin is found on PATH with a
// warning on every command. And what the archive must withstand: NODE_OPTIONS (which must not reach the
// process that holds the token) and a copy made
// elsewhere (no path of the build machine, nothing but the bundle in the executable).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../scripts/harness/process.mjs";
import { bundlePlugin } from "../../scripts/plugin-bundle.mjs";
import { blobProblems, inspectExecutable } from "../../scripts/release/inspect.mjs";
import { writeTarGz } from "../../scripts/release/pack.mjs";
import { MAIN_SCRIPT } from "../../scripts/release/sea.mjs";
import { startEmulator, type Emulator } from "../../src/emulator";
import { waitUntil } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";
import { BASE_DIR, E2E_DIR, REPO } from "./paths";
import {
  ARCHIVE_DIR,
  diagnosedPathWarnings,
  installPlugin,
  noNodeBin,
  nodeOn,
  pathWarnings,
  pluginArchive,
} from "./plugin";
import { backendFor, createProject, leaks, readTree, transcript } from "./support";

const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const SCHEMA = JSON.parse(readFileSync(join(REPO, "src", "native", "schema.json"), "utf8")) as {
  pluginDownloadURL: string;
};
const TOKEN = "e2e_archive_tok_51d0c2a8";
/** The npm package's own plugin (node and dist/), as `npm install` puts it on node_modules/.bin. */
const NPM_PLUGIN = join(BASE_DIR, "node_modules", ".bin", "pulumi-resource-webhooks");
const scratch = mkdtempSync(join(tmpdir(), "pwe-e2e-archive-"));

/** The installed executable in a PULUMI_HOME. */
const installed = (home: string) =>
  join(home, "plugins", `resource-webhooks-v${VERSION}`, "pulumi-resource-webhooks");

/** A script that NODE_OPTIONS="--require <it>" would run: it leaves a mark. */
function evilScript(name: string): { script: string; mark: string } {
  const mark = join(scratch, `${name}.ran`);
  const script = join(scratch, `${name}.js`);
  writeFileSync(
    script,
    `require("fs").appendFileSync(${JSON.stringify(mark)}, "ran in " + process.pid + "\\n");\n`,
  );
  return { script, mark };
}

/** A port nothing listens on (asked of the system, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether something accepts a TCP connection on the port now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("the plugin archive, installed the Pulumi way", () => {
  const backend = backendFor("plugin-archive");
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("the release build writes a single executable in Pulumi's layout, and a checksums file sha256sum -c accepts", async () => {
    const archive = pluginArchive();
    console.log(
      `plugin archive: ${archive.path}: ${archive.bytes} bytes, executable ${archive.executableBytes} bytes, sha256 ${archive.sha256}`,
    );
    expect(archive.path).toBe(join(ARCHIVE_DIR, `pulumi-resource-webhooks-v${VERSION}-linux-amd64.tar.gz`));
    const listing = (
      await runProcess("tar", ["--numeric-owner", "--full-time", "-tvzf", archive.path], {
        cwd: E2E_DIR,
        env: { TZ: "UTC" },
      })
    ).stdout
      .trim()
      .split("\n");
    expect(listing.map((line) => line.split(/\s+/).join(" "))).toEqual([
      `-rwxr-xr-x 0/0 ${archive.executableBytes} 1970-01-01 00:00:00 pulumi-resource-webhooks`,
    ]);
    expect(archive.checksums).toBe(join(ARCHIVE_DIR, `pulumi-resource-webhooks-v${VERSION}-checksums.txt`));
    const checked = await runProcess("sha256sum", ["-c", archive.checksums], { cwd: ARCHIVE_DIR });
    expect(checked.stdout).toBe(`pulumi-resource-webhooks-v${VERSION}-linux-amd64.tar.gz: OK\n`);
    expect(archive.install).toBe(`pulumi plugin install resource webhooks ${VERSION} --file ${archive.path}`);
  });

  it("the executable is this checkout's bundle in a Node.js ELF note: no code cache, no snapshot, no path of the build machine", async () => {
    const archive = pluginArchive();
    const unpacked = join(scratch, "unpacked");
    await runProcess("mkdir", ["-p", unpacked], { cwd: scratch });
    await runProcess("tar", ["-xzf", archive.path, "-C", unpacked], { cwd: scratch });
    const executable = join(unpacked, "pulumi-resource-webhooks");
    const found = await inspectExecutable(executable);
    expect([found.format, found.arch, found.fuseFlipped]).toEqual(["elf", "amd64", true]);
    const bundle = join(scratch, "bundle", MAIN_SCRIPT);
    await bundlePlugin({ outfile: bundle, repo: REPO });
    expect(blobProblems(found.blob, readFileSync(bundle), MAIN_SCRIPT)).toEqual([]);
    const bytes = readFileSync(executable);
    // The repository, the output directory, the build's private directory (pwe-release-*): none may show.
    for (const path of [REPO, REPO.slice(1), ARCHIVE_DIR, "pwe-release-"])
      expect(bytes.includes(path), `the executable holds ${path}`).toBe(false);
  });

  it("pulumi plugin install takes --checksum with --file without checking it: a wrong one installs (why the docs say sha256sum -c first)", async () => {
    const archive = pluginArchive();
    const home = join(scratch, "wrong-checksum-home");
    const wrong = `${archive.sha256[0] === "0" ? "1" : "0"}${archive.sha256.slice(1)}`;
    const result = await runProcess(
      "pulumi",
      ["plugin", "install", "resource", "webhooks", VERSION, "--file", archive.path, "--checksum", wrong],
      { cwd: E2E_DIR, env: { PATH: noNodeBin(), PULUMI_HOME: home } },
    );
    // If this starts failing, Pulumi checks --checksum with --file now: say so in docs/native-plugin.md.
    expect(result.code).toBe(0);
    expect(existsSync(installed(home))).toBe(true);
  });

  it("the command it prints installs it, found by `pulumi plugin ls`", async () => {
    await installPlugin(backend.home);
    const plugins = JSON.parse(
      (
        await runProcess("pulumi", ["plugin", "ls", "--json"], {
          cwd: E2E_DIR,
          env: { PATH: noNodeBin(), PULUMI_HOME: backend.home },
        })
      ).stdout,
    ) as { name: string; kind: string; version: string }[];
    expect(plugins.map((p) => [p.kind, p.name, p.version])).toEqual([["resource", "webhooks", VERSION]]);
  });

  it("another archive of the same version: plugin install prints nothing, exits 0 and keeps the installed file; --reinstall replaces it", async () => {
    const archive = pluginArchive();
    const home = join(scratch, "same-version-home");
    const env = { PATH: noNodeBin(), PULUMI_HOME: home };
    const install = (file: string, ...flags: string[]) =>
      runProcess("pulumi", ["plugin", "install", "resource", "webhooks", VERSION, "--file", file, ...flags], {
        cwd: E2E_DIR,
        env,
      });
    expect((await install(archive.path)).code).toBe(0);
    const original = readFileSync(installed(home));
    const other = join(scratch, "other.tar.gz");
    await writeTarGz(
      [{ name: "pulumi-resource-webhooks", mode: 0o755, text: "#!/bin/sh\necho other\n" }],
      other,
    );
    const again = await install(other, "--non-interactive");
    expect([again.code, again.stdout]).toEqual([0, ""]);
    expect(readFileSync(installed(home)).equals(original)).toBe(true);
    expect((await install(other, "--reinstall", "--non-interactive")).code).toBe(0);
    expect(readFileSync(installed(home), "utf8")).toBe("#!/bin/sh\necho other\n");
  });

  it("the installed executable starts with an empty PATH and reports the package version, and the schema names the release host", async () => {
    const host = await ProviderHost.startExecutable(installed(backend.home), { PATH: "" });
    try {
      expect(await host.pluginVersion()).toBe(VERSION);
      const schema = await host.getSchema();
      expect(schema.version).toBe(VERSION);
      expect(schema.pluginDownloadURL).toBe(SCHEMA.pluginDownloadURL);
      expect(SCHEMA.pluginDownloadURL).toMatch(/^github:\/\/api\.github\.com\/[^/]+\/[^/]+$/);
    } finally {
      await host.stop();
    }
  });

  it("NODE_OPTIONS does not reach into it: --require runs nothing and --inspect opens no port, where the npm plugin obeys both", async () => {
    const nodeDir = dirname(process.execPath);
    // The npm plugin (node running dist/) first: what the same NODE_OPTIONS does to a plugin that honours it.
    const npmEvil = evilScript("npm-plugin");
    const npmPort = await freePort();
    const npmPlugin = await ProviderHost.startExecutable(NPM_PLUGIN, {
      PATH: nodeDir,
      NODE_OPTIONS: `--require ${npmEvil.script} --inspect=127.0.0.1:${npmPort}`,
    });
    try {
      expect(await npmPlugin.pluginVersion()).toBe(VERSION);
      await waitUntil("the npm plugin's inspector", () =>
        npmPlugin.output.stderr.includes("Debugger listening"),
      );
      expect(await listening(npmPort)).toBe(true);
      expect(readFileSync(npmEvil.mark, "utf8")).toMatch(/^ran in \d+\n$/);
    } finally {
      await npmPlugin.stop();
    }
    // The single executable, with the very same settings.
    const evil = evilScript("single-executable");
    const port = await freePort();
    const plugin = await ProviderHost.startExecutable(installed(backend.home), {
      PATH: "",
      NODE_OPTIONS: `--require ${evil.script} --inspect=127.0.0.1:${port}`,
    });
    try {
      expect(await plugin.pluginVersion()).toBe(VERSION);
      // The inspector would be listening before the port line: Node.js starts it before any script runs.
      expect(await listening(port)).toBe(false);
      expect(existsSync(evil.mark)).toBe(false);
      expect(plugin.output.stderr).not.toContain("Debugger listening");
    } finally {
      await plugin.stop();
    }
  });

  it("the engine's 'using pulumi-resource-webhooks from $PATH' warning: several per command with the npm plugin on PATH, none with the archive installed (which the engine drives with a hostile NODE_OPTIONS set)", async () => {
    // Before: the plugin of the npm package found on PATH, as after npm install -g (the warning is the
    // engine's, per plugin load).
    const onPath = backendFor("plugin-archive-path");
    const before = createProject("yaml", "plugin-archive-path", {
      ...onPath.env,
      PATH: `${join(BASE_DIR, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    });
    await before.initStack("dev", { "webhooks:baseUrl": emulator.url }, { "webhooks:accessToken": TOKEN });
    const previewBefore = await before.ok(["preview"]);
    const upBefore = await before.ok(["up", "--yes", "--skip-preview"]);
    // After: the archive installed, PATH holding nothing but the Pulumi CLI (no plugin, no node), and a
    // NODE_OPTIONS the engine passes on to the plugin, which must ignore it.
    const evil = evilScript("engine");
    const after = createProject("yaml", "plugin-archive-installed", {
      ...backend.env,
      PATH: noNodeBin(),
      NODE_OPTIONS: `--require ${evil.script}`,
    });
    expect(await nodeOn(after.env.PATH!)).toBeUndefined();
    await after.initStack(
      "dev",
      { "webhooks:baseUrl": emulator.url, webhookUrl: "https://example.com/hooks/installed" },
      { "webhooks:accessToken": TOKEN },
    );
    const previewAfter = await after.ok(["preview"]);
    const upAfter = await after.ok(["up", "--yes", "--skip-preview"]);
    const seen = (run: { output: string }) =>
      `${diagnosedPathWarnings(run.output)} warnings (${pathWarnings(run.output)} lines)`;
    console.log(
      `'using pulumi-resource-webhooks from $PATH': npm plugin on PATH: preview ${seen(previewBefore)}, up ${seen(upBefore)}; installed archive, no node on PATH: preview ${seen(previewAfter)}, up ${seen(upAfter)}`,
    );
    expect(diagnosedPathWarnings(previewBefore.output)).toBeGreaterThanOrEqual(1);
    expect(diagnosedPathWarnings(upBefore.output)).toBeGreaterThanOrEqual(1);
    expect(pathWarnings(previewAfter.output)).toBe(0);
    expect(pathWarnings(upAfter.output)).toBe(0);
    // Both made their endpoint: the installed plugin did the work, not a failure to find one.
    expect(
      emulator
        .records()
        .map((r) => r.webhook_url)
        .sort(),
    ).toEqual(["https://example.com/hooks/installed", "https://example.com/hooks/orders"]);
    await before.ok(["destroy", "--yes", "--skip-preview"]);
    await after.ok(["destroy", "--yes", "--skip-preview"]);
    expect(existsSync(evil.mark)).toBe(false);
    expect(
      leaks(
        [TOKEN, ...emulator.records().map((r) => r.sign_secret)],
        [...transcript, readTree(onPath.dir), readTree(backend.dir)],
      ),
    ).toEqual([]);
  });
});
