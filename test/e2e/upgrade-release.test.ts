// Upgrades from the previous release, the providertest way (a stack recorded with the baseline release must
// preview under the new one with no changes, no replacements and no deletes), on both faces, through the real
// engine. The stack is written by the previous release itself: its packed package (test/e2e/fixtures/releases/,
// the npm pack of its commit; scripts/release-package.mjs rebuilds it from git history), installed as its users
// installed it. The dynamic face: the package in the program's node_modules. The native face: the package's
// plugin `pulumi-resource-webhooks` on PATH (that release had no archives), a YAML program. Each stack holds an
// endpoint created, one adopted (`adoptWebhookId`) and, on the native face, one imported (the `import` option).
// Then the package of this checkout (dynamic) or its plugin archive installed the Pulumi way (native) takes
// over: preview shows no change; refresh, a replacement, `webhooks orphans` and `webhooks recover` work on the
// stack; and state a later release would write (outputs this one does not know, one of them secret) survives
// `pulumi refresh` and `pulumi up` (docs/lifecycle.md, "State written by a later release"); destroy ends it.
// Expectations come from the README and docs: preview of an unchanged program shows no changes, a URL change is
// a replacement that leaves the old endpoint on the service, orphans lists an endpoint whose state recorded no
// provenance as not ours to remove (docs/operator-cli.md), secrets stay encrypted.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSPHRASE } from "../../scripts/harness/pulumi.mjs";
import { runProcess } from "../../scripts/harness/process.mjs";
import { startEmulator, type Emulator } from "../../src/emulator";
import { BASE_DIR, E2E_DIR, PACK_DIR, REPO } from "./paths";
import { installPlugin, noNodeBin } from "./plugin";
import { SECRET_SIG, SIG_KEY } from "../../src/core/wire";
import { Project, backendFor, createProject, isSecretValue, leaks, readTree, transcript } from "./support";

const TOKEN = "e2e_tok_release_upgrade_8c2e";
const FIXTURES = join(REPO, "test", "e2e", "fixtures", "releases");
const PREVIOUS = (
  JSON.parse(readFileSync(join(FIXTURES, "releases.json"), "utf8")) as {
    previous: { version: string; tarball: string };
  }
).previous;
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const WEBHOOKS_CLI = join(BASE_DIR, "node_modules", "pulumi-webhook-endpoints", "dist", "cli", "main.js");
const DYNAMIC_TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";
const NATIVE_TYPE = "webhooks:index:WebhookEndpoint";
/** Outputs no release writes yet, as a later release might: a plain one and a secret one. */
const LATER_PLAIN = { laterLabels: { team: "payments" } };
const LATER_SECRET_VALUE = "later-secret-5d1c0e";

interface Resource {
  type: string;
  urn: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}
interface PreviewJson {
  steps?: { op: string; urn: string }[];
  changeSummary?: Record<string, number>;
}

/** Unpacks a packed package into `<dir>/node_modules/pulumi-webhook-endpoints`, over what is there. */
function installPackage(dir: string, tarball: string): string {
  const target = join(dir, "node_modules", "pulumi-webhook-endpoints");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
  return target;
}

const currentTarball = () =>
  join(
    PACK_DIR,
    readdirSync(PACK_DIR).find((f) => f.endsWith(".tgz"))!,
  );
const installedVersion = (dir: string) =>
  (
    JSON.parse(
      readFileSync(join(dir, "node_modules", "pulumi-webhook-endpoints", "package.json"), "utf8"),
    ) as {
      version: string;
    }
  ).version;

/** Runs the preview; every step must be `same` (providertest's HasNoChanges), with the text kept for the report. */
async function previewNoChanges(project: Project, label: string): Promise<PreviewJson> {
  const text = await project.ok(["preview", "--diff"]);
  console.log(`[upgrade ${label}] pulumi preview --diff:\n${text.stdout}`);
  const plan = JSON.parse((await project.ok(["preview", "--json"])).stdout) as PreviewJson;
  const changed = (plan.steps ?? []).filter((s) => s.op !== "same");
  expect(changed, JSON.stringify(plan.steps)).toEqual([]);
  expect(Object.keys(plan.changeSummary ?? {})).toEqual(["same"]);
  return plan;
}

/** `webhooks <args>` of this checkout's installed package, in the project's directory. */
async function webhooksCli(project: Project, args: string[]) {
  const result = await runProcess(process.execPath, [WEBHOOKS_CLI, ...args], {
    cwd: project.dir,
    env: { ...project.env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NO_COLOR: "1" },
  });
  transcript.push(`$ webhooks ${args.join(" ")} (exit ${result.code})\n${result.output}`);
  return result;
}

/** A value of a `stack export --show-secrets`, secrets unwrapped. */
function revealed(value: unknown): unknown {
  if (isSecretValue(value)) return JSON.parse((value as { plaintext: string }).plaintext) as unknown;
  return value;
}

/**
 * State a later release would write: every endpoint gets outputs this release does not know, one of them
 * secret (imported with `pulumi stack import`, in the plaintext form that the engine encrypts). Then refresh and
 * `up` must keep both with their values, the secret one still encrypted. `plainStaysPlain` false: the face may
 * return the plain one secret after an update (the dynamic face cannot see which were secret).
 */
async function laterOutputsSurvive(
  project: Project,
  type: string,
  up: () => Promise<void>,
  plainStaysPlain: boolean,
): Promise<void> {
  // No transcript for what shows secrets: the file's sweep reads the transcript.
  const quiet = new Project(project.dir, { env: project.env });
  const showSecrets = async () =>
    (
      JSON.parse((await quiet.ok(["stack", "export", "--show-secrets"])).stdout) as {
        deployment: { resources: Resource[] };
      }
    ).deployment.resources.filter((r) => r.type === type);
  const exported = JSON.parse((await quiet.ok(["stack", "export", "--show-secrets"])).stdout) as {
    deployment: { resources: Resource[] };
  };
  const endpoints = exported.deployment.resources.filter((r) => r.type === type);
  expect(endpoints.length).toBeGreaterThan(0);
  for (const r of endpoints)
    Object.assign(r.outputs!, LATER_PLAIN, {
      laterSecret: {
        [SIG_KEY]: SECRET_SIG,
        plaintext: JSON.stringify(LATER_SECRET_VALUE),
      },
    });
  const file = join(E2E_DIR, `later-${project.name}.json`);
  writeFileSync(file, JSON.stringify(exported));
  await quiet.ok(["stack", "import", "--file", file]);
  rmSync(file);
  const check = async (after: string, plain: boolean) => {
    const state = await project.exportState();
    const held = state.resources.filter((r) => r.type === type) as Resource[];
    expect(held.length, after).toBe(endpoints.length);
    for (const r of held) {
      expect(isSecretValue(r.outputs?.laterSecret), after).toBe(true);
      if (plain) expect(r.outputs, after).toMatchObject(LATER_PLAIN);
    }
    expect(state.text, after).not.toContain(LATER_SECRET_VALUE);
    for (const r of await showSecrets()) {
      expect(revealed(r.outputs?.laterLabels), after).toEqual(LATER_PLAIN.laterLabels);
      expect(revealed(r.outputs?.laterSecret), after).toBe(LATER_SECRET_VALUE);
    }
  };
  await check("after stack import", true);
  await project.ok(["refresh", "--yes", "--skip-preview"]);
  await check("after refresh", true);
  await up();
  await check("after up", plainStaysPlain);
}

describe(`a dynamic-resource stack written by ${PREVIOUS.version}, upgraded to this checkout's package`, () => {
  let emulator: Emulator;
  let project: Project;
  let legacyId: number;
  const backend = backendFor("upgrade-release-dynamic");

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    project = createProject(
      "quickstart",
      "upgrade-release-dynamic",
      { PULUMI_BACKEND_URL: backend.backendUrl, PULUMI_HOME: backend.home },
      {
        "index.ts": `import * as pulumi from "@pulumi/pulumi";
import { WebhookEndpoint } from "pulumi-webhook-endpoints";
const config = new pulumi.Config();
const orders = new WebhookEndpoint("orders", {
  webhookUrl: config.get("ordersUrl") ?? "https://example.com/hooks/orders",
  adoptWebhookId: config.getNumber("ordersAdopt"),
});
const legacy = new WebhookEndpoint("legacy", {
  webhookName: "legacy",
  webhookUrl: "https://example.com/hooks/legacy",
  adoptWebhookId: config.requireNumber("legacyId"),
});
export const ordersId = orders.webhookId;
export const legacyId = legacy.webhookId;
export const legacySecret = legacy.signSecret;
`,
      },
    );
    legacyId = emulator.addRecord({
      webhook_name: "legacy",
      webhook_url: "https://example.com/hooks/legacy",
    }).webhook_id;
    installPackage(project.dir, join(FIXTURES, PREVIOUS.tarball));
    expect(installedVersion(project.dir)).toBe(PREVIOUS.version);
    await project.initStack(
      "dev",
      { "webhooks:baseUrl": emulator.url, legacyId: String(legacyId) },
      { "webhooks:accessToken": TOKEN },
    );
    await project.ok(["up", "--yes", "--skip-preview"]);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it(`${PREVIOUS.version} created one endpoint and adopted one; this package then previews no change`, async () => {
    expect(emulator.counters().create).toBe(1);
    const outputs = await project.outputs();
    expect(outputs.legacyId).toBe(legacyId);
    installPackage(project.dir, currentTarball());
    expect(installedVersion(project.dir)).toBe(VERSION);
    await previewNoChanges(project, "dynamic");
    expect(emulator.counters().create).toBe(1);
  });

  it("refresh reads both from the service; a changed URL replaces the created one, leaving it on the service", async () => {
    await project.ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    const old = emulator.records().find((r) => r.webhook_name === "orders")!;
    await project.ok(["config", "set", "ordersUrl", "https://example.com/hooks/orders-v2"]);
    const up = await project.ok(["up", "--yes", "--skip-preview"]);
    expect(up.stdout + up.stderr).toContain(
      `webhook endpoint ${old.webhook_id} ("orders") still exists on the service`,
    );
    expect(emulator.counters().create).toBe(2);
    expect((await project.outputs()).ordersId).not.toBe(old.webhook_id);
  });

  it("webhooks orphans and recover read its state: the replaced endpoint, of no recorded provenance, is not advised for removal", async () => {
    const replaced = emulator.records().find((r) => r.webhook_url === "https://example.com/hooks/orders")!;
    const orphans = await webhooksCli(project, ["orphans", "--stack", "dev", "--json"]);
    expect(orphans.code, orphans.output).toBe(0);
    const parsed = JSON.parse(orphans.stdout) as {
      held: number;
      orphans: { webhookId: number; relation: string; ours: boolean }[];
    };
    expect(parsed.held).toBe(2);
    expect(parsed.orphans.map((o) => [o.webhookId, o.relation, o.ours])).toEqual([
      [replaced.webhook_id, "formerly-held", false],
    ]);
    const recover = await webhooksCli(project, ["recover", "--dry-run", "--stack", "dev"]);
    expect(recover.code, recover.output).toBe(0);
    expect(recover.stdout).toMatch(/0 pending create/);
  });

  it("outputs a later release wrote survive refresh and an update", async () => {
    const ordersId = (await project.outputs()).ordersId as number;
    await laterOutputsSurvive(
      project,
      DYNAMIC_TYPE,
      async () => {
        // adoptWebhookId set to the endpoint already held: an update that calls nothing (docs/lifecycle.md).
        await project.ok(["config", "set", "ordersAdopt", String(ordersId)]);
        const up = await project.ok(["up", "--yes", "--skip-preview"]);
        expect(up.stdout).toMatch(/~ 1 updated/);
      },
      false,
    );
  });

  it("destroy empties the state and leaves every endpoint on the service", async () => {
    const before = emulator.records().length;
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(emulator.records()).toHaveLength(before);
    expect(leaks([TOKEN, ...emulator.records().map((r) => r.sign_secret)], [readTree(backend.dir)])).toEqual(
      [],
    );
  });
});

describe(`a native-provider (YAML) stack written by ${PREVIOUS.version}'s plugin, upgraded to this checkout's archive`, () => {
  let emulator: Emulator;
  let project: Project;
  let ids: { legacy: number; imported: number };
  const backend = backendFor("upgrade-release-native");
  const home = () => backend.home;
  const yaml = (importedId: number) => `name: webhooks-upgrade-native
runtime: yaml
config:
  legacyId:
    type: integer
resources:
  orders:
    type: webhooks:index:WebhookEndpoint
    properties:
      webhookUrl: https://example.com/hooks/orders
  legacy:
    type: webhooks:index:WebhookEndpoint
    properties:
      webhookName: legacy
      webhookUrl: https://example.com/hooks/legacy
      adoptWebhookId: \${legacyId}
  imported:
    type: webhooks:index:WebhookEndpoint
    properties:
      webhookName: imported
      webhookUrl: https://example.com/hooks/imported
    options:
      import: "${importedId}"
outputs:
  ordersId: \${orders.webhookId}
  importedSecret: \${imported.signSecret}
`;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    ids = {
      legacy: emulator.addRecord({ webhook_name: "legacy", webhook_url: "https://example.com/hooks/legacy" })
        .webhook_id,
      imported: emulator.addRecord({
        webhook_name: "imported",
        webhook_url: "https://example.com/hooks/imported",
      }).webhook_id,
    };
    // The previous release's plugin where its users had it: a bin of the npm package, on PATH, run by node.
    const oldBin = join(BASE_DIR, "projects", "upgrade-release-native-bin");
    const oldPackage = installPackage(oldBin, join(FIXTURES, PREVIOUS.tarball));
    rmSync(join(oldBin, "pulumi-resource-webhooks"), { force: true });
    chmodSync(join(oldPackage, "dist", "native", "bin.js"), 0o755);
    symlinkSync(join(oldPackage, "dist", "native", "bin.js"), join(oldBin, "pulumi-resource-webhooks"));
    project = createProject(
      "yaml",
      "upgrade-release-native",
      {
        PULUMI_BACKEND_URL: backend.backendUrl,
        PULUMI_HOME: backend.home,
        PATH: `${oldBin}:${noNodeBin()}:${dirname(process.execPath)}`,
      },
      { "Pulumi.yaml": yaml(ids.imported) },
    );
    await project.initStack(
      "dev",
      { "webhooks:baseUrl": emulator.url, legacyId: String(ids.legacy) },
      { "webhooks:accessToken": TOKEN },
    );
    await project.ok(["up", "--yes", "--skip-preview"]);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it(`${PREVIOUS.version}'s plugin created, adopted and imported; its state records no plugin version; this archive then previews no change`, async () => {
    expect(emulator.counters().create).toBe(1);
    const state = await project.exportState();
    expect(
      state.resources
        .filter((r) => r.type === NATIVE_TYPE)
        .map((r) => r.id)
        .sort(),
    ).toEqual([String(ids.legacy), String(ids.imported), String(emulator.records()[2]!.webhook_id)].sort());
    const providers = state.resources.filter((r) => r.type === "pulumi:providers:webhooks") as Resource[];
    expect(providers.map((p) => p.inputs?.version)).toEqual([undefined]);
    // The upgrade: the old plugin off PATH, this checkout's archive installed the Pulumi way; no node on PATH.
    await installPlugin(home());
    (project.env as Record<string, string>).PATH = noNodeBin();
    await previewNoChanges(project, "native");
  });

  it("pulumi package add webhooks: the engine then records the plugin's version in state, still with no change to an endpoint", async () => {
    const add = await project.ok(["package", "add", "webhooks"]);
    expect(add.stdout + add.stderr).toContain("webhooks");
    expect(readFileSync(join(project.dir, "Pulumi.yaml"), "utf8")).toContain(`webhooks: webhooks@${VERSION}`);
    await previewNoChanges(project, "native, after pulumi package add");
    await project.ok(["up", "--yes", "--skip-preview"]);
    const providers = (await project.exportState()).resources.filter(
      (r) => r.type === "pulumi:providers:webhooks",
    ) as Resource[];
    expect(providers.map((p) => p.inputs?.version)).toEqual([VERSION]);
    expect(emulator.counters().create).toBe(1);
  });

  it("refresh reads all three; a changed URL replaces the created one, leaving it on the service", async () => {
    await project.ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    const old = emulator.records()[2]!;
    const file = join(project.dir, "Pulumi.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        "webhookUrl: https://example.com/hooks/orders\n",
        "webhookUrl: https://example.com/hooks/orders-v2\n",
      ),
    );
    const up = await project.ok(["up", "--yes", "--skip-preview"]);
    expect(up.stdout + up.stderr).toContain(
      `webhook endpoint ${old.webhook_id} ("orders") still exists on the service`,
    );
    expect(emulator.counters().create).toBe(2);
  });

  it("webhooks orphans and recover read its state", async () => {
    const replaced = emulator.records()[2]!;
    const orphans = await webhooksCli(project, ["orphans", "--stack", "dev", "--json"]);
    expect(orphans.code, orphans.output).toBe(0);
    const parsed = JSON.parse(orphans.stdout) as {
      held: number;
      orphans: { webhookId: number; relation: string; ours: boolean }[];
    };
    expect(parsed.held).toBe(3);
    expect(parsed.orphans.map((o) => [o.webhookId, o.relation, o.ours])).toEqual([
      [replaced.webhook_id, "formerly-held", false],
    ]);
    const recover = await webhooksCli(project, ["recover", "--dry-run", "--stack", "dev"]);
    expect(recover.code, recover.output).toBe(0);
    expect(recover.stdout).toMatch(/0 pending create/);
  });

  it("outputs a later release wrote survive refresh and up", async () => {
    await laterOutputsSurvive(
      project,
      NATIVE_TYPE,
      async () => {
        await project.ok(["up", "--yes", "--skip-preview"]);
      },
      true,
    );
  });

  it("destroy empties the state and leaves every endpoint on the service; nothing secret in plaintext", async () => {
    const before = emulator.records().length;
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(emulator.records()).toHaveLength(before);
    expect(
      leaks(
        [TOKEN, LATER_SECRET_VALUE, ...emulator.records().map((r) => r.sign_secret)],
        [readTree(backend.dir), transcript.join("\n")],
      ),
    ).toEqual([]);
  });
});
