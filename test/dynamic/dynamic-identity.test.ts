// The dynamic face's part of issue 25: it hands the engine `stackRoot` as a resource reference
// (which `pulumi stack rename` rewrites; a URN in a plain string it would not), and, since the
// dynamic-provider host tells `read` neither the resource's URN nor its inputs, a refresh judges the
// stack an endpoint entered against the stack the run's other calls named (`__stack`), and learns
// nothing before any did.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import { stackConfig } from "../../src/core/settings";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { createDynamicProvider } from "../../src/dynamic/provider";
import { startEmulator, type Emulator } from "../../src/emulator";

const TOKEN = "tok_dynamic_identity_2c8e";
const STACK = "shop/dev";
const ROOT = "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev";
const BASE = { webhookName: "base", webhookUrl: "https://identity.example/base", __stack: STACK };

describe("the dynamic face and the stack an endpoint entered", () => {
  let service: Emulator;
  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN, creator: { id: 1001, name: "team-a" } });
  });
  afterAll(async () => {
    await service.close();
  });

  /** A dynamic provider over its own core, configured with the stack config's token and `principalId`. */
  async function dynamicProvider(principalId?: string) {
    const core = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
    const provider = createDynamicProvider(core);
    const values: Record<string, string | undefined> = {
      "webhooks:baseUrl": service.url,
      "webhooks:accessToken": TOKEN,
      "webhooks:principalId": principalId,
    };
    core.configure(stackConfig((key) => values[key]));
    await provider.configure({
      config: { get: (key: string) => values[key], require: (key: string) => values[key] ?? "" },
    });
    return { provider, close: () => core.close() };
  }

  it("create, read and update hand the engine stackRoot as a resource reference", async () => {
    const { provider, close } = await dynamicProvider();
    try {
      const created = await provider.create(BASE);
      const reference = { "4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e", urn: ROOT };
      expect(created.outs?.stackRoot).toEqual(reference);
      // The engine hands the dynamic host the URN alone (it accepts no references).
      const held = { ...(created.outs as WebhookEndpointOutputs), stackRoot: ROOT };
      expect((await provider.read(created.id, held)).props?.stackRoot).toEqual(reference);
      expect((await provider.update(created.id, held, BASE)).outs?.stackRoot).toEqual(reference);
    } finally {
      await close();
    }
  });
});
