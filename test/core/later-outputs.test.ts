// Downgrades (docs/lifecycle.md, "State written by a later release"): released code cannot be changed, but from
// 0.3.0 on a provider that meets outputs it does not know, written by a later release, keeps them as they are.
// Refresh (read) and update are the two operations that write an endpoint's outputs anew from old ones; each is
// run here against the emulator with the state a later release could write, on both faces' core.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { ProviderCore } from "../../src/core/provider-core";
import { createDynamicProvider } from "../../src/dynamic/provider";
import { provenanceOf } from "../../src/core/state";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN } from "../support/helpers";

/** Outputs no release so far writes: a plain value, a nested object, and a provenance of a kind not known yet. */
const LATER = {
  labels: { team: "payments", tier: "gold" },
  deliveryPolicy: "at-least-once",
  retries: 5,
};
const LATER_PROVENANCE = { how: "migrated", service: "https://old.example.com", stack: "p/dev", from: 7 };

describe.each(["dynamic", "native"] as const)(
  "the %s face's core keeps outputs a later release wrote",
  (face) => {
    let emulator: Emulator;
    let core: ProviderCore;
    let held: { id: string; state: WebhookEndpointOutputs };

    beforeAll(async () => {
      emulator = await startEmulator({ accessToken: TOKEN });
      core = new ProviderCore({ face, env: {}, notify: () => {} });
      core.configure({
        values: { baseUrl: emulator.url, accessToken: TOKEN },
        describe: (name) => name,
        howToSet: (name) => name,
      });
      held = await core.create({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" });
    });
    afterAll(async () => {
      await core.close();
      await emulator.close();
    });

    it("refresh (read) keeps every unknown output, and reads the service's record afresh", async () => {
      const old = { ...held.state, ...LATER };
      const found = await core.read(held.id, old);
      expect(found?.state).toMatchObject(LATER);
      // What this release knows is still read from the service, not copied from the old state.
      expect(found?.state.signSecret).toBe(emulator.records()[0]!.sign_secret);
      expect(found?.state.provenance).toEqual(held.state.provenance);
    });

    it("refresh keeps a provenance this release cannot read, as it was (and judges it unknown)", async () => {
      const old = { ...held.state, provenance: LATER_PROVENANCE } as unknown as WebhookEndpointOutputs;
      const found = await core.read(held.id, old);
      expect(found?.state.provenance).toEqual(LATER_PROVENANCE);
      expect(provenanceOf(found?.state)).toBeUndefined();
    });

    it("update keeps every unknown output", () => {
      const old = { ...held.state, ...LATER, adoptWebhookId: Number(held.id) };
      const updated = core.update(old, {
        webhookName: "orders",
        webhookUrl: "https://example.com/hooks/orders",
      });
      expect(updated).toMatchObject(LATER);
      expect(updated.adoptWebhookId).toBeUndefined();
    });

    it("outputs this release writes are not taken for a later release's: a stale declared address is dropped", async () => {
      const old = {
        ...held.state,
        declared: { webhookName: held.state.webhookName, webhookUrl: held.state.webhookUrl },
      };
      const found = await core.read(held.id, old);
      expect(found?.state).not.toHaveProperty("declared");
    });
  },
);

describe("the dynamic face's update", () => {
  it("returns a later release's outputs secret: the host strips their secret marks, which the engine restores only for inputs", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN });
    const core = new ProviderCore({ face: "dynamic", env: {}, notify: () => {} });
    core.configure({
      values: { baseUrl: emulator.url, accessToken: TOKEN },
      describe: (name) => name,
      howToSet: (name) => name,
    });
    try {
      const { state } = await core.create({ webhookName: "o", webhookUrl: "https://example.com/o" });
      const { outs } = await createDynamicProvider(core).update(
        "1",
        { ...state, ...LATER },
        {
          webhookName: "o",
          webhookUrl: "https://example.com/o",
        },
      );
      const secret = (value: unknown) => ({
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        value,
      });
      expect(outs).toMatchObject({
        labels: secret(LATER.labels),
        deliveryPolicy: secret(LATER.deliveryPolicy),
        retries: secret(LATER.retries),
      });
      // What this release writes is returned as it is (signSecret is made secret by the resource's options).
      expect(outs?.webhookName).toBe("o");
      expect(outs?.provenance).toEqual(state.provenance);
    } finally {
      await core.close();
      await emulator.close();
    }
  });
});
