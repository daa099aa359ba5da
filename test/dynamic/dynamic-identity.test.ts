// The dynamic face: it hands the engine `stackRoot` as a resource reference
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

  it("a refresh learns the endpoint as the stack's fact only once a call of the run named the stack", async () => {
    const setup = await dynamicProvider();
    const created = await setup.provider.create({
      ...BASE,
      webhookName: "refreshed",
      webhookUrl: "https://identity.example/refreshed",
    });
    await setup.close();
    const held = { ...(created.outs as WebhookEndpointOutputs), stackRoot: ROOT };
    const x = { webhookName: "x", webhookUrl: "https://identity.example/x", __stack: STACK };

    // principalId 2010 contradicts base's creator: once base is a fact, a create is refused unsent.
    const before = await dynamicProvider("2010");
    try {
      // A refresh first: the stack is not known yet, nothing is learnt, and the create goes out
      // (its answer, by 1001, is then refused: no fact to check the claim against before it).
      await before.provider.read(created.id, held);
      const sent = service.requests().length;
      await expect(before.provider.create(x)).rejects.toThrow(/records no endpoint this stack created/);
      expect(service.requests().length).toBeGreaterThan(sent);
    } finally {
      await before.close();
    }
    const after = await dynamicProvider("2010");
    try {
      // A check names the stack (as the engine's Check of any resource of the run does): the refresh
      // then learns base, and the next create is refused with nothing sent.
      await after.provider.check({} as never, {
        ...x,
        webhookName: "y",
        webhookUrl: "https://identity.example/y",
      });
      await after.provider.read(created.id, held);
      const sent = service.requests().length;
      await expect(
        after.provider.create({ ...x, webhookName: "y", webhookUrl: "https://identity.example/y" }),
      ).rejects.toThrow(/principalId is 2010, but the state records endpoint/);
      expect(service.requests().length).toBe(sent);
    } finally {
      await after.close();
    }
  });
});
