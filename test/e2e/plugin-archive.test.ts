// The plugin archive as a Pulumi user meets it: the linux-amd64 release archive (npm run release:archives),
// installed with the command the build prints (`pulumi plugin install resource webhooks <version> --file
// <archive> --checksum <sha256>`), then found by the engine in PULUMI_HOME with no plugin and no node on
// PATH, where the npm-installed plugin is found on PATH with a warning on every command.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../scripts/harness/process.mjs";
import { startEmulator, type Emulator } from "../../src/emulator";
import { ProviderHost } from "../support/provider-host";
import { BASE_DIR, E2E_DIR, REPO } from "./paths";
import {
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

describe("the plugin archive, installed the Pulumi way", () => {
  const backend = backendFor("plugin-archive");
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("the release build writes a single executable in Pulumi's layout; the command it prints installs it", async () => {
    const archive = pluginArchive();
    console.log(
      `plugin archive: ${archive.path}: ${archive.bytes} bytes, executable ${archive.executableBytes} bytes`,
    );
    expect(archive.path).toBe(
      join(E2E_DIR, "plugin-archive", `pulumi-resource-webhooks-v${VERSION}-linux-amd64.tar.gz`),
    );
    const listing = (await runProcess("tar", ["-tvzf", archive.path], { cwd: E2E_DIR })).stdout
      .trim()
      .split("\n");
    expect(listing).toHaveLength(1);
    expect(listing[0]).toMatch(/^-rwxr-xr-x .* pulumi-resource-webhooks$/);
    expect(archive.install).toBe(
      `pulumi plugin install resource webhooks ${VERSION} --file ${archive.path} --checksum ${archive.sha256}`,
    );
    await installPlugin(backend.home);
    const plugins = JSON.parse(
      (
        await runProcess("pulumi", ["plugin", "ls", "--json"], {
          cwd: E2E_DIR,
          env: { PATH: noNodeBin(), PULUMI_HOME: backend.home },
        })
      ).stdout,
    ) as {
      name: string;
      kind: string;
      version: string;
    }[];
    expect(plugins.map((p) => [p.kind, p.name, p.version])).toEqual([["resource", "webhooks", VERSION]]);
  });

  it("the installed executable starts with an empty PATH and reports the package version, and the schema names the release host", async () => {
    const executable = join(
      backend.home,
      "plugins",
      `resource-webhooks-v${VERSION}`,
      "pulumi-resource-webhooks",
    );
    const host = await ProviderHost.startExecutable(executable, { PATH: "" });
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

  it("the engine's 'using pulumi-resource-webhooks from $PATH' warning: several per command with the npm plugin on PATH, none with the archive installed", async () => {
    // Before: the plugin of the npm package found on PATH, as after npm install -g (the warning is the engine's, per plugin load).
    const onPath = backendFor("plugin-archive-path");
    const before = createProject("yaml", "plugin-archive-path", {
      ...onPath.env,
      PATH: `${join(BASE_DIR, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    });
    await before.initStack("dev", { "webhooks:baseUrl": emulator.url }, { "webhooks:accessToken": TOKEN });
    const previewBefore = await before.ok(["preview"]);
    const upBefore = await before.ok(["up", "--yes", "--skip-preview"]);
    // After: the archive installed, and PATH holding nothing but the Pulumi CLI (no plugin, no node).
    const after = createProject("yaml", "plugin-archive-installed", { ...backend.env, PATH: noNodeBin() });
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
    expect(
      leaks(
        [TOKEN, ...emulator.records().map((r) => r.sign_secret)],
        [...transcript, readTree(onPath.dir), readTree(backend.dir)],
      ),
    ).toEqual([]);
  });
});
