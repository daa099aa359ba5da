import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { packTarball } from "../../scripts/harness/pack.mjs";
import { E2E_DIR, PACK_DIR } from "./paths";
import { Project, backendFor, createProject, webhookResources } from "./support";

const TOKEN = "e2e_tok_upgrade_5a7c9e1f3b";

/**
 * Refresh and destroy run the provider code stored in state (pulumi/pulumi#6285). Ours stores a
 * shim that requires the installed package, so a newer version must reach resources created by
 * an older one. The "newer version" here is the packed build with a marker added to read and
 * delete, repacked under a higher version, and installed over the old one.
 */
function installInto(projectDir: string, tarball: string): void {
  const target = join(projectDir, "node_modules", "pulumi-webhook-endpoints");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
}

function newerVersion(oldTarball: string): string {
  const work = join(E2E_DIR, "upgrade-pack");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, "package"), { recursive: true });
  execFileSync("tar", ["-xzf", oldTarball, "-C", join(work, "package"), "--strip-components=1"]);
  const providerFile = join(work, "package", "dist", "dynamic", "provider.js");
  let code = readFileSync(providerFile, "utf8");
  for (const method of ["read", "delete"]) {
    const signature = `async ${method}(id, props) {`;
    if (!code.includes(signature)) throw new Error(`compiled provider has no "${signature}"`);
    code = code.replace(
      signature,
      `${signature} require("node:fs").appendFileSync(process.env.PWE_UPGRADE_MARKER, "${method} " + id + "\\n");`,
    );
  }
  writeFileSync(providerFile, code);
  const manifestFile = join(work, "package", "package.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { version: string };
  manifest.version = `${manifest.version}-upgrade.1`;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  return packTarball(work, { packageDir: join(work, "package") });
}

describe("a package upgrade reaches resources created by the older version", () => {
  let emulator: Emulator;
  let project: Project;
  const marker = join(E2E_DIR, "upgrade-marker.log");

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    const backend = backendFor("upgrade");
    project = createProject("quickstart", "upgrade", {
      PULUMI_BACKEND_URL: backend.backendUrl,
      PULUMI_HOME: backend.home,
      WEBHOOKS_BASE_URL: emulator.url,
      WEBHOOKS_ACCESS_TOKEN: TOKEN,
      PWE_UPGRADE_MARKER: marker,
    });
    rmSync(marker, { force: true });
    writeFileSync(marker, "");
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("created by the old version, refreshed and destroyed by the new one", async () => {
    const oldTarball = join(
      PACK_DIR,
      readdirSync(PACK_DIR).find((f) => f.endsWith(".tgz"))!,
    );
    installInto(project.dir, oldTarball);
    await project.initStack("dev");
    await project.ok(["up", "--yes", "--skip-preview"]);
    const id = String(emulator.records()[0]!.webhook_id);
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    expect(readFileSync(marker, "utf8")).toBe("");

    installInto(project.dir, newerVersion(oldTarball));
    expect(
      JSON.parse(
        readFileSync(join(project.dir, "node_modules/pulumi-webhook-endpoints/package.json"), "utf8"),
      ).version,
    ).toMatch(/-upgrade\.1$/);
    // The upgrade itself shows no diff.
    await project.ok(["preview", "--expect-no-changes"]);
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    expect(readFileSync(marker, "utf8")).toContain(`read ${id}\n`);
    const destroy = await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(readFileSync(marker, "utf8")).toContain(`delete ${id}\n`);
    expect(destroy.stdout + destroy.stderr).toContain(
      `webhook endpoint ${id} ("orders") still exists on the service`,
    );
    expect(webhookResources(await project.exportState())).toHaveLength(0);
    expect(existsSync(marker)).toBe(true);
  });

  /**
   * Earlier releases declared WebhookEndpoint through pulumi.dynamic.Resource, so their stacks hold
   * Pulumi's closure-serialized shim (fixtures/closure-provider.txt: that shim as the serializer
   * wrote it, the directory it captured replaced by one that does not exist). The engine keeps it
   * for resources that show no diff, so it must go on working with the package installed now.
   */
  it("created by a release that stored Pulumi's serialized provider: no diff, refreshed and destroyed by today's package", async () => {
    const oldText = readFileSync(join(__dirname, "fixtures", "closure-provider.txt"), "utf8");
    expect(oldText).toContain("function __loadProvider()");
    const tarball = join(
      PACK_DIR,
      readdirSync(PACK_DIR).find((f) => f.endsWith(".tgz"))!,
    );
    installInto(project.dir, newerVersion(tarball));
    // The first case's endpoint stays on the service (nothing deletes one): a fresh service.
    emulator.reset();
    await project.ok(["stack", "init", "old-text"]);
    await project.ok(["up", "--yes", "--skip-preview"]);
    const created = webhookResources(await project.exportState());
    expect(created).toHaveLength(1);
    const id = created[0]!.id!;

    // The stack as an earlier release left it: the serialized shim in inputs and outputs.
    const exported = JSON.parse((await project.ok(["stack", "export"])).stdout) as {
      deployment: {
        resources: { type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[];
      };
    };
    for (const resource of exported.deployment.resources) {
      if (resource.type !== "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint") continue;
      resource.inputs!.__provider = oldText;
      resource.outputs!.__provider = oldText;
    }
    const file = join(E2E_DIR, "upgrade-old-text.json");
    writeFileSync(file, JSON.stringify(exported));
    await project.ok(["stack", "import", "--file", file]);
    writeFileSync(marker, "");

    await project.ok(["preview", "--expect-no-changes"]);
    await project.ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(readFileSync(marker, "utf8")).toContain(`read ${id}\n`);
    // What the engine kept: the old text stays in outputs (no diff was shown for it).
    expect(webhookResources(await project.exportState())[0]!.outputs?.__provider).toBe(oldText);
    const destroy = await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(readFileSync(marker, "utf8")).toContain(`delete ${id}\n`);
    expect(destroy.stdout + destroy.stderr).toContain(
      `webhook endpoint ${id} ("orders") still exists on the service`,
    );
    expect(webhookResources(await project.exportState())).toHaveLength(0);
  });
});
