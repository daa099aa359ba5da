import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import {
  Project,
  isSecretValue,
  backendFor,
  createProject,
  leaks,
  readTree,
  transcript,
  webhookResources,
} from "./support";

const TOKEN = "e2e_tok_7d1f0c2b9a8e4d6f";

interface PreviewJson {
  steps?: { op: string; urn: string; diffReasons?: string[]; replaceReasons?: string[] }[];
  changeSummary?: Record<string, number>;
  diagnostics?: { message: string; severity: string }[];
}

describe("quickstart through the real Pulumi CLI", () => {
  let emulator: Emulator;
  let project: Project;
  let backend: ReturnType<typeof backendFor>;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    backend = backendFor("lifecycle");
    project = createProject("quickstart", "lifecycle", {
      PULUMI_BACKEND_URL: backend.backendUrl,
      PULUMI_HOME: backend.home,
    });
    await project.initStack(
      "dev",
      { "webhooks:baseUrl": emulator.url, webhookUrl: "https://example.com/hooks/orders" },
      { "webhooks:accessToken": TOKEN },
    );
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("up creates the endpoint with one create call; a second preview sees no changes", async () => {
    const up = await project.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.counters().create).toBe(1);
    expect(emulator.records()).toHaveLength(1);
    const record = emulator.records()[0]!;
    const outputs = await project.outputs();
    expect(outputs.webhookId).toBe(record.webhook_id);
    expect(outputs.signSecret).toBe("[secret]");
    expect(up.stdout).not.toContain(record.sign_secret);
    const revealed = await project.outputs(true);
    expect(revealed.signSecret).toBe(record.sign_secret);
    const listsBefore = emulator.counters().list;
    await project.ok(["preview", "--expect-no-changes"]);
    // diff lists once by name; nothing else calls the API during preview.
    expect(emulator.counters().list - listsBefore).toBe(1);
    expect(emulator.counters().create).toBe(1);
  });

  it("the state holds signSecret encrypted and neither the token nor the secret in plaintext", async () => {
    const state = await project.exportState();
    const [hook] = webhookResources(state);
    expect(hook?.id).toBe(String(emulator.records()[0]!.webhook_id));
    expect(isSecretValue(hook?.outputs?.signSecret)).toBe(true);
    expect(state.text).not.toContain(emulator.records()[0]!.sign_secret);
    expect(state.text).not.toContain(TOKEN);
    const providerText = hook?.outputs?.__provider;
    expect(typeof providerText).toBe("string");
    expect(Buffer.byteLength(providerText as string)).toBeLessThanOrEqual(4096);
  });

  it("drift: an endpoint removed on the service is a replacement in preview, dropped by refresh, recreated by up", async () => {
    const gone = emulator.records()[0]!;
    emulator.removeRecord(gone.webhook_id);
    const preview = await project.ok(["preview", "--json"]);
    const plan = JSON.parse(preview.stdout) as PreviewJson;
    expect(plan.steps?.find((s) => s.urn.endsWith("::orders"))?.op).toBe("replace");
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    expect(webhookResources(await project.exportState())).toHaveLength(0);
    await project.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.records()).toHaveLength(1);
    expect(emulator.records()[0]!.webhook_id).not.toBe(gone.webhook_id);
    await project.ok(["preview", "--expect-no-changes"]);
  });

  it("changing the URL replaces the endpoint; the old one stays on the service and the user is told", async () => {
    const old = emulator.records()[0]!;
    await project.ok(["config", "set", "webhookUrl", "https://example.com/hooks/orders-v2"]);
    const preview = JSON.parse((await project.ok(["preview", "--json"])).stdout) as PreviewJson;
    expect(preview.steps?.find((s) => s.urn.endsWith("::orders"))?.op).toBe("replace");
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

  it("invalid inputs fail preview with a message per property and no API call", async () => {
    await project.ok(["config", "set", "webhookUrl", "ftp://user:pw@example.com/x"]);
    await project.ok(["config", "set", "webhookName", " "]);
    const before = emulator.counters().total;
    const preview = await project.run(["preview"]);
    expect(preview.code).not.toBe(0);
    const printed = preview.stdout + preview.stderr;
    expect(printed).toMatch(/webhookUrl must use https:\/\/ or http:\/\//);
    expect(printed).toMatch(/webhookUrl contains credentials/);
    expect(printed).toMatch(/webhookName is empty/);
    expect(emulator.counters().total).toBe(before);
    await project.ok(["config", "rm", "webhookName"]);
    await project.ok(["config", "set", "webhookUrl", "https://example.com/hooks/orders-v2"]);
  });

  it("destroy succeeds, names every endpoint that remains on the service, and they remain", async () => {
    const before = emulator.records();
    const destroy = await project.ok(["destroy", "--yes", "--skip-preview"]);
    const current = before.find((r) => r.webhook_url.endsWith("orders-v2"))!;
    expect(destroy.stdout + destroy.stderr).toContain(
      `webhook endpoint ${current.webhook_id} ("orders") still exists on the service`,
    );
    expect(emulator.records()).toEqual(before);
    expect(webhookResources(await project.exportState())).toHaveLength(0);
  });

  it("no token or signing secret appears in plaintext in CLI output, provider output or state on disk", () => {
    const secrets = [TOKEN, ...emulator.records().map((r) => r.sign_secret)];
    expect(leaks(secrets, [transcript.join("\n"), readTree(backend.dir)])).toEqual([]);
  });
});
