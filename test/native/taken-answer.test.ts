// The native face of the final outside attack's F1 (see test/provider/taken-answer.test.ts): the
// plugin learns the stack's principal from a Diff of an endpoint the stack created (its URN names
// the stack), and refuses a create the service answered with another team's endpoint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { waitUntil } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";

const OURS = "tok_native_ours_4e7a9c21";
const THEIRS = "tok_native_theirs_b03d58e6";
const URN = (name: string) => `urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::${name}`;

describe("the native plugin: a create answered with another principal's endpoint", () => {
  let service: Emulator;
  let plugin: ProviderHost;
  beforeAll(async () => {
    service = await startEmulator({
      accessToken: OURS,
      uniqueNames: true,
      takenName: "existing",
      principals: [{ token: THEIRS, creator: { id: 200, name: "other-team" } }],
      faults: { create: { rate: 0, slowMs: 2_000 } },
    });
    plugin = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
    await plugin.configure({ baseUrl: service.url, accessToken: OURS });
  });
  afterAll(async () => {
    await plugin.stop();
    await service.close();
  });

  it("after a Diff of an endpoint the stack created, the other team's answer is refused and nothing is recorded", async () => {
    const base = await plugin.create(URN("base"), { webhookName: "base", webhookUrl: "https://victim.example/base" });
    expect(base.properties.provenance).toMatchObject({ how: "created", stack: "shop/dev" });
    expect(await plugin.diff(base.id, URN("base"), base.properties, { webhookName: "base", webhookUrl: "https://victim.example/base" })).toEqual({ changes: "none", replaces: [] });

    service.injectNext("create", "latency");
    const pending = plugin.create(URN("x"), { webhookName: "x", webhookUrl: "https://victim.example/x" }).catch((error: unknown) => error);
    await waitUntil("the plugin's create reaches the service", () => service.requests().some((r) => r.route === "create" && JSON.stringify(r.body).includes('"x"')));
    await fetch(`${service.url}/open-api/v1/webhooks/create`, {
      method: "POST",
      headers: { Authorization: THEIRS, "Content-Type": "application/json" },
      body: JSON.stringify({ webhook_name: "x", webhook_url: "https://victim.example/x" }),
    });
    const outcome = await pending;
    expect(outcome).toBeInstanceOf(Error);
    expect(String((outcome as Error).message)).toMatch(/created by creator 200/);
    expect(String((outcome as Error).message)).toMatch(/pulumi import webhooks:index:WebhookEndpoint <resource name> \d+/);
    // No ErrorResourceInitFailed: the engine records nothing of theirs.
    expect((outcome as { metadata?: { get(key: string): unknown[] } }).metadata?.get("grpc-status-details-bin") ?? []).toEqual([]);
    expect(
      service
        .records()
        .filter((r) => r.webhook_name === "x")
        .map((r) => r.creator_id),
    ).toEqual([200]);
  });
});
