import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import {
  isSecretValue,
  backendFor,
  createProject,
  leaks,
  readTree,
  transcript,
  webhookResources,
} from "./support";

const TOKEN = "e2e_tok_stacks_3c9e51aa07";

describe("examples through the real Pulumi CLI", () => {
  let emulator: Emulator;
  let backend: ReturnType<typeof backendFor>;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    backend = backendFor("stacks");
    // Connection from the environment this time, as a pipeline would give it.
    env = {
      PULUMI_BACKEND_URL: backend.backendUrl,
      PULUMI_HOME: backend.home,
      WEBHOOKS_BASE_URL: emulator.url,
      WEBHOOKS_ACCESS_TOKEN: TOKEN,
    };
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("multi-stack: the consumer reads signSecret through StackReference, gets the right value, and it stays secret", async () => {
    const producer = createProject("multi-stack/producer", "producer", env);
    await producer.initStack("dev", {
      webhookName: "billing",
      webhookUrl: "https://example.com/hooks/billing",
    });
    await producer.ok(["up", "--yes", "--skip-preview"]);
    const record = emulator.records().find((r) => r.webhook_name === "billing")!;

    const consumer = createProject("multi-stack/consumer", "consumer", env);
    await consumer.initStack("dev", { producerStack: `organization/${producer.name}/dev` });
    await consumer.ok(["up", "--yes", "--skip-preview"]);
    const masked = await consumer.outputs();
    expect(masked.receivedSignSecret).toBe("[secret]");
    expect(masked.secretArrivedAsSecret).toBe(true);
    expect(masked.producerWebhookId).toBe(record.webhook_id);
    expect((await consumer.outputs(true)).receivedSignSecret).toBe(record.sign_secret);
    const state = await consumer.exportState();
    expect(state.text).not.toContain(record.sign_secret);
    const stackResource = state.resources.find((r) => r.type === "pulumi:pulumi:Stack");
    expect(isSecretValue(stackResource?.outputs?.receivedSignSecret)).toBe(true);
  });

  it("adopt: takes over an existing endpoint by id with no create call and recovers its secret", async () => {
    const existing = emulator.addRecord({
      webhook_name: "legacy-orders",
      webhook_url: "https://example.com/hooks/legacy",
    });
    const adopt = createProject("adopt", "adopt", env);
    await adopt.initStack("dev", {
      webhookName: "legacy-orders",
      webhookUrl: "https://example.com/hooks/legacy",
      adoptWebhookId: String(existing.webhook_id),
    });
    const creates = emulator.counters().create;
    await adopt.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.counters().create).toBe(creates);
    const outputs = await adopt.outputs(true);
    expect(outputs.webhookId).toBe(existing.webhook_id);
    expect(outputs.signSecret).toBe(existing.sign_secret);
    await adopt.ok(["preview", "--expect-no-changes"]);
    // A declared URL that differs is refused, with nothing created.
    await adopt.ok(["config", "set", "webhookUrl", "https://example.com/hooks/elsewhere"]);
    const refused = await adopt.run(["up", "--yes", "--skip-preview"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/cannot update an endpoint/);
    expect(emulator.counters().create).toBe(creates);
  });

  it("many: endpoints declared from a config map, one create each, a map of secrets that stays secret", async () => {
    const many = createProject("many", "many", env);
    await many.initStack("dev");
    const names = ["alpha", "beta", "gamma", "delta", "epsilon"];
    for (const name of names)
      await many.ok(["config", "set", "--path", `endpoints.${name}`, `https://example.com/hooks/${name}`]);
    const creates = emulator.counters().create;
    await many.ok(["up", "--yes", "--skip-preview"]);
    expect(emulator.counters().create - creates).toBe(names.length);
    const outputs = await many.outputs();
    expect(outputs.signSecrets).toBe("[secret]");
    const ids = outputs.webhookIds as Record<string, number>;
    expect(Object.keys(ids).sort()).toEqual([...names].sort());
    const state = await many.exportState();
    expect(
      webhookResources(state)
        .map((r) => r.id)
        .sort(),
    ).toEqual(Object.values(ids).map(String).sort());
    await many.ok(["preview", "--expect-no-changes"]);
  });

  it("no token or signing secret appears in plaintext anywhere the runs wrote", () => {
    const secrets = [TOKEN, ...emulator.records().map((r) => r.sign_secret)];
    expect(leaks(secrets, [transcript.join("\n"), readTree(backend.dir)])).toEqual([]);
  });
});
