// The native face through the real engine: YAML programs (the YAML language host built from the Go
// proxy) and a TypeScript program using the generated SDK, with the plugin `pulumi-resource-webhooks`
// installed the Pulumi way: the linux-amd64 single-executable release archive (npm run release:archives),
// installed with `pulumi plugin install ... --file ... --checksum ...` into the test's PULUMI_HOME. The YAML
// programs run with no `node` on
// the PATH the engine and the plugin see; nothing named pulumi-resource-webhooks is on PATH either.
import { dirname, join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../scripts/harness/process.mjs";
import { startEmulator, type Emulator } from "../../src/emulator";
import { REPO } from "./paths";
import { installPlugin, noNodeBin, nodeOn, ownLanguageHosts, pathWarnings, sdkgenPath } from "./plugin";
import {
  isSecretValue,
  backendFor,
  createProject,
  leaks,
  readTree,
  transcript,
  type Project,
} from "./support";

const TOKEN = "e2e_native_tok_3c9d1f27";
const NATIVE_TYPE = "webhooks:index:WebhookEndpoint";
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;

interface PreviewJson {
  steps?: { op: string; urn: string }[];
}

/**
 * The plugin installed into the backend's PULUMI_HOME, and a PATH with the Pulumi CLI and no node (a
 * TypeScript program's language host needs node: `withNode` adds its directory, which holds no plugin).
 */
async function withInstalledPlugin(
  backend: ReturnType<typeof backendFor>,
  withNode = false,
): Promise<Record<string, string>> {
  await installPlugin(backend.home);
  return { ...backend.env, PATH: withNode ? `${noNodeBin()}:${dirname(process.execPath)}` : noNodeBin() };
}

function nativeResources(state: {
  resources: { type: string; id?: string; outputs?: Record<string, unknown> }[];
}) {
  return state.resources.filter((r) => r.type === NATIVE_TYPE);
}

describe("a YAML program through the native provider", () => {
  let emulator: Emulator;
  let project: Project;
  let backend: ReturnType<typeof backendFor>;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    backend = backendFor("native-yaml");
    project = createProject("yaml", "native-yaml", await withInstalledPlugin(backend));
    await project.initStack("dev", { "webhooks:baseUrl": emulator.url }, { "webhooks:accessToken": TOKEN });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("up creates the endpoint with one create call, no node on the engine's PATH; preview then sees no changes", async () => {
    expect(await nodeOn(project.env.PATH!)).toBeUndefined();
    await project.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.counters().create).toBe(1);
    const record = emulator.records()[0]!;
    const outputs = await project.outputs();
    expect(outputs.ordersWebhookId).toBe(record.webhook_id);
    expect(outputs.ordersSignSecret).toBe("[secret]");
    expect((await project.outputs(true)).ordersSignSecret).toBe(record.sign_secret);
    await project.ok(["preview", "--expect-no-changes"]);
  });

  it("state holds signSecret encrypted, no serialized code, and no token", async () => {
    const state = await project.exportState();
    const [hook] = nativeResources(state);
    expect(hook?.id).toBe(String(emulator.records()[0]!.webhook_id));
    expect(isSecretValue(hook?.outputs?.signSecret)).toBe(true);
    expect(hook?.outputs?.__provider).toBeUndefined();
    expect(state.text).not.toContain(emulator.records()[0]!.sign_secret);
    expect(state.text).not.toContain(TOKEN);
  });

  it("refresh keeps it; drift (removed on the service) is a replacement in preview, dropped by refresh, recreated by up", async () => {
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    expect(nativeResources(await project.exportState())).toHaveLength(1);
    const gone = emulator.records()[0]!;
    emulator.removeRecord(gone.webhook_id);
    const plan = JSON.parse((await project.ok(["preview", "--json"])).stdout) as PreviewJson;
    expect(plan.steps?.find((s) => s.urn.endsWith("::orders"))?.op).toBe("replace");
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    expect(nativeResources(await project.exportState())).toHaveLength(0);
    await project.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.records()).toHaveLength(1);
    await project.ok(["preview", "--expect-no-changes"]);
  });

  it("a changed URL replaces the endpoint; the old one stays on the service and the user is told", async () => {
    const old = emulator.records()[0]!;
    await project.ok(["config", "set", "webhookUrl", "https://example.com/hooks/orders-v2"]);
    const up = await project.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.records().map((r) => r.webhook_url)).toEqual([
      "https://example.com/hooks/orders",
      "https://example.com/hooks/orders-v2",
    ]);
    expect(up.stdout + up.stderr).toContain(
      `webhook endpoint ${old.webhook_id} ("orders") still exists on the service`,
    );
    await project.ok(["preview", "--expect-no-changes"]);
  });

  it("pulumi import brings an existing endpoint in with its secret; the declared program then has no changes", async () => {
    const legacy = emulator.addRecord({
      webhook_name: "legacy",
      webhook_url: "https://example.com/hooks/legacy",
    });
    const creates = emulator.counters().create;
    // --protect=false: `pulumi import` protects what it imports by default, and this stack is destroyed below.
    await project.ok([
      "import",
      NATIVE_TYPE,
      "legacy",
      String(legacy.webhook_id),
      "--yes",
      "--protect=false",
    ]);
    expect(emulator.counters().create).toBe(creates);
    const state = await project.exportState();
    const imported = nativeResources(state).find((r) => r.id === String(legacy.webhook_id));
    expect(isSecretValue(imported?.outputs?.signSecret)).toBe(true);
    expect(state.text).not.toContain(legacy.sign_secret);
    // The program now declares it, exactly as pulumi import generated it.
    const program = readFileSync(join(project.dir, "Pulumi.yaml"), "utf8").replace(
      "resources:\n",
      "resources:\n  legacy:\n    type: webhooks:index:WebhookEndpoint\n    properties:\n      webhookName: legacy\n      webhookUrl: https://example.com/hooks/legacy\n",
    );
    writeFileSync(join(project.dir, "Pulumi.yaml"), program);
    await project.ok(["preview", "--expect-no-changes"]);
    const revealed = JSON.parse((await project.ok(["stack", "export", "--show-secrets"])).stdout) as {
      deployment: { resources: { id?: string; outputs?: Record<string, unknown> }[] };
    };
    const secret = revealed.deployment.resources.find((r) => r.id === String(legacy.webhook_id))?.outputs
      ?.signSecret as { plaintext?: string };
    expect(JSON.parse(secret.plaintext ?? "null")).toBe(legacy.sign_secret);
  });

  it("importing an id that does not exist is a clear error", async () => {
    const result = await project.run(["import", NATIVE_TYPE, "ghost", "987654", "--yes"]);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/no webhook endpoint with webhook_id 987654 exists/);
    // The hint names the CLI as any user runs it; a YAML project has no package.json for npx.
    expect(result.stdout + result.stderr).toContain("(`webhooks list` shows them)");
  });

  it("destroy succeeds and names each endpoint that remains on the service", async () => {
    const up = await project.ok(["destroy", "--yes", "--skip-preview"]);
    for (const record of emulator
      .records()
      .filter((r) => r.webhook_url !== "https://example.com/hooks/orders")) {
      expect(up.stdout + up.stderr).toContain(`webhook endpoint ${record.webhook_id}`);
    }
    expect(emulator.records().length).toBeGreaterThanOrEqual(3);
  });

  it("no command took a plugin from PATH: the engine never warned 'using pulumi-resource-webhooks from $PATH'", () => {
    expect(transcript.length).toBeGreaterThan(10);
    expect(pathWarnings(transcript.join("\n"))).toBe(0);
  });

  it("nothing secret appears anywhere the runs left", () => {
    const secrets = [TOKEN, ...emulator.records().map((r) => r.sign_secret)];
    expect(leaks(secrets, [...transcript, readTree(backend.dir)])).toEqual([]);
  });
});

describe("two explicit providers, two services, one YAML program", () => {
  it("each endpoint goes to its own service, and the provider keeps them apart though their ids are equal", async () => {
    const eu = await startEmulator({ accessToken: "eu_token_0a1b2c3d4e" });
    const us = await startEmulator({ accessToken: "us_token_5f6a7b8c9d" });
    try {
      const backend = backendFor("native-two");
      const project = createProject("yaml-two-services", "native-two", await withInstalledPlugin(backend));
      await project.initStack(
        "dev",
        { euBaseUrl: eu.url, usBaseUrl: us.url },
        { euToken: "eu_token_0a1b2c3d4e", usToken: "us_token_5f6a7b8c9d" },
      );
      await project.ok(["up", "--yes", "--skip-preview"]);
      expect(eu.records().map((r) => r.webhook_url)).toEqual(["https://example.com/hooks/eu"]);
      expect(us.records().map((r) => r.webhook_url)).toEqual(["https://example.com/hooks/us"]);
      const outputs = await project.outputs();
      expect(outputs.euId).toBe(outputs.usId);
      await project.ok(["preview", "--expect-no-changes"]);
      // Drift on one service only: only its endpoint is replaced.
      us.removeRecord(us.records()[0]!.webhook_id);
      const plan = JSON.parse((await project.ok(["preview", "--json"])).stdout) as PreviewJson;
      expect(plan.steps?.find((s) => s.urn.endsWith("::ordersUs"))?.op).toBe("replace");
      // The other service's endpoint is untouched (a preview's JSON lists no step for what stays the same).
      expect(plan.steps?.find((s) => s.urn.endsWith("::ordersEu"))?.op ?? "same").toBe("same");
      await project.ok(["refresh", "--yes", "--skip-preview"]);
      await project.ok(["destroy", "--yes", "--skip-preview"]);
      expect(
        leaks(
          ["eu_token_0a1b2c3d4e", "us_token_5f6a7b8c9d", eu.records()[0]!.sign_secret],
          [readTree(backend.dir), ...transcript],
        ),
      ).toEqual([]);
    } finally {
      await eu.close();
      await us.close();
    }
  });
});

/**
 * `pulumi import --file ... --out` in a TypeScript project writes a program that imports the SDK from the package
 * that holds it (`pulumi-webhook-endpoints/native`, the schema's language.nodejs.packageName) and compiles against
 * the installed package. The CLI has the project's language host generate the code (GenerateProgram): here the
 * repository's stand-in, which runs the codegen the official host links (scripts/sdkgen -program).
 */
async function importWritesCodeThatCompiles(project: Project, emulator: Emulator): Promise<void> {
  const legacy = emulator.addRecord({
    webhook_name: "legacy",
    webhook_url: "https://example.com/hooks/legacy",
  });
  const resources = [{ type: NATIVE_TYPE, name: "legacy", id: String(legacy.webhook_id) }];
  writeFileSync(join(project.dir, "import.json"), JSON.stringify({ resources }));
  // The CLI copy beside this checkout's stand-in host, which generates the code (GenerateProgram).
  await project.ok(["import", "--file", "import.json", "--out", "imported.ts", "--yes", "--protect=false"], {
    PWE_SDKGEN: sdkgenPath(),
    PATH: `${ownLanguageHosts()}:${project.env.PATH ?? ""}`,
  });
  const code = readFileSync(join(project.dir, "imported.ts"), "utf8");
  expect(code).toContain('import * as webhooks from "pulumi-webhook-endpoints/native";');
  expect(code).toContain('new webhooks.WebhookEndpoint("legacy"');
  // Type-checked as the project compiles (its tsconfig), against the package installed for it.
  const tsconfig = JSON.parse(readFileSync(join(project.dir, "tsconfig.json"), "utf8")) as Record<
    string,
    unknown
  >;
  writeFileSync(
    join(project.dir, "tsconfig.imported.json"),
    JSON.stringify({ ...tsconfig, files: ["imported.ts"] }),
  );
  const tsc = await runProcess(
    process.execPath,
    [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.imported.json", "--noEmit"],
    { cwd: project.dir },
  );
  expect(tsc.code, `${code}\n${tsc.output}`).toBe(0);
  // The same with the name pulumi import wrote before: a package that does not exist.
  writeFileSync(
    join(project.dir, "imported.ts"),
    code.replace('"pulumi-webhook-endpoints/native"', '"pulumi-webhook-endpoints-native"'),
  );
  const before = await runProcess(
    process.execPath,
    [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.imported.json", "--noEmit"],
    { cwd: project.dir },
  );
  expect(before.output).toContain("Cannot find module 'pulumi-webhook-endpoints-native'");
}

describe("a TypeScript program using the generated SDK (pulumi-webhook-endpoints/native)", () => {
  it("up, no-change preview, secret output, refresh, destroy", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN });
    try {
      const backend = backendFor("native-ts");
      const project = createProject("native-ts", "native-ts", await withInstalledPlugin(backend, true));
      await project.initStack("dev", { "webhooks:baseUrl": emulator.url }, { "webhooks:accessToken": TOKEN });
      await project.ok(["up", "--yes", "--skip-preview"]);
      expect(emulator.counters().create).toBe(1);
      expect((await project.outputs()).ordersSignSecret).toBe("[secret]");
      const state = await project.exportState();
      expect(nativeResources(state)).toHaveLength(1);
      expect(state.text).not.toContain(emulator.records()[0]!.sign_secret);
      await project.ok(["preview", "--expect-no-changes"]);
      // The engine records the plugin version the SDK asks for, in the default provider's state (package.json's).
      const providers = state.resources.filter((r) => r.type === "pulumi:providers:webhooks") as {
        inputs?: Record<string, unknown>;
      }[];
      expect(providers.map((p) => p.inputs?.version)).toEqual([VERSION]);
      await importWritesCodeThatCompiles(project, emulator);
      await project.ok(["refresh", "--yes", "--skip-preview"]);
      await project.ok(["destroy", "--yes", "--skip-preview"]);
      // Every run of this file, this TypeScript program's included, used the installed plugin.
      expect(pathWarnings(transcript.join("\n"))).toBe(0);
    } finally {
      await emulator.close();
    }
  });
});
