// The native face of a create answered with another team's endpoint (see test/core/taken-answer.test.ts): the
// plugin learns the stack's principal from a Diff of an endpoint the stack created (its URN names
// the stack), and refuses a create the service answered with another team's endpoint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { OTHER_TEAM, createAs, takenNameService, waitUntil } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";

const OURS = "tok_native_ours_4e7a9c21";
const URN = (name: string) => `urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::${name}`;

describe("the native plugin: a create answered with another principal's endpoint", () => {
  let service: Emulator;
  let plugin: ProviderHost;
  beforeAll(async () => {
    service = await startEmulator(takenNameService(OURS));
    plugin = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
    await plugin.configure({ baseUrl: service.url, accessToken: OURS });
  });
  afterAll(async () => {
    await plugin.stop();
    await service.close();
  });

  it("after a Diff of an endpoint the stack created, the other team's answer is refused and nothing is recorded", async () => {
    const base = await plugin.create(URN("base"), {
      webhookName: "base",
      webhookUrl: "https://victim.example/base",
    });
    expect(base.properties.provenance).toMatchObject({ how: "created", stack: "shop/dev" });
    expect(
      await plugin.diff(base.id, URN("base"), base.properties, {
        webhookName: "base",
        webhookUrl: "https://victim.example/base",
      }),
    ).toEqual({ changes: "none", replaces: [] });

    service.injectNext("create", "latency");
    const pending = plugin
      .create(URN("x"), { webhookName: "x", webhookUrl: "https://victim.example/x" })
      .catch((error: unknown) => error);
    await waitUntil("the plugin's create reaches the service", () =>
      service.requests().some((r) => r.route === "create" && JSON.stringify(r.body).includes('"x"')),
    );
    await createAs(service.url, OTHER_TEAM.token, {
      webhookName: "x",
      webhookUrl: "https://victim.example/x",
    });
    const outcome = await pending;
    expect(outcome).toBeInstanceOf(Error);
    expect(String((outcome as Error).message)).toMatch(/created by creator 200/);
    expect(String((outcome as Error).message)).toMatch(
      /pulumi import webhooks:index:WebhookEndpoint <resource name> \d+/,
    );
    // No ErrorResourceInitFailed: the engine records nothing of theirs.
    expect(
      (outcome as { metadata?: { get(key: string): unknown[] } }).metadata?.get("grpc-status-details-bin") ??
        [],
    ).toEqual([]);
    expect(
      service
        .records()
        .filter((r) => r.webhook_name === "x")
        .map((r) => r.creator_id),
    ).toEqual([200]);
  });
});
