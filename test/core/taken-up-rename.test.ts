// An endpoint renamed on the service, which a refresh recorded (docs/lifecycle.md: read follows it by
// id, and a diff then replaces it while the program declares the old name): a program that now
// declares the name the service holds takes the endpoint as it is. That is an update that calls
// nothing, not a replacement (whose create would find the stack's own endpoint under that name and
// refuse it), and later diffs see no change, until the service changes it again.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import type { EndpointCreatedButFailedError } from "../../src/core/errors";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN } from "../support/helpers";

const STACK = "shop/dev";
const URL = "https://example.com/hooks/orders";

describe("declaring the name a refresh saw the service give an endpoint", () => {
  let service: Emulator;
  const cores: ProviderCore[] = [];
  beforeEach(async () => {
    service = await startEmulator({ accessToken: TOKEN });
  });
  afterEach(async () => {
    await Promise.all(cores.splice(0).map((core) => core.close()));
    await service.close();
  });
  /** A provider process of `face` (one per command, as the engine starts them). */
  const process = (face: "dynamic" | "native"): ProviderCore => {
    const core = new ProviderCore({
      face,
      notify: () => {},
      env: { WEBHOOKS_BASE_URL: service.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
    });
    cores.push(core);
    return core;
  };

  for (const face of ["dynamic", "native"] as const) {
    it(`${face}: is an update with no call, and then no change; a later change on the service is drift again`, async () => {
      const made = await process(face).create({ webhookName: "orders", webhookUrl: URL }, NO_TAINT, STACK);
      service.updateRecord(Number(made.id), { webhook_name: "orders-renamed" });
      const refreshed = await process(face).read(made.id, made.state, NO_TAINT, STACK);
      expect(refreshed?.state.webhookName).toBe("orders-renamed");
      const state = refreshed!.state;

      // The old declaration: the service changed it, so a replacement, with the reason.
      const preview = process(face);
      const old = await preview.diff(
        made.id,
        state,
        { webhookName: "orders", webhookUrl: URL },
        NO_TAINT,
        STACK,
      );
      expect(old.replaces).toEqual(["webhookName"]);
      expect(old.drift).toContain("orders-renamed");

      // The service's name declared: an update, nothing to create.
      const news = { webhookName: "orders-renamed", webhookUrl: URL };
      const up = process(face);
      const before = service.counters();
      const taken = await up.diff(made.id, state, news, NO_TAINT, STACK);
      expect(taken).toMatchObject({ changes: true, replaces: [] });
      expect(taken.drift).toBeUndefined();
      const updated = up.update(state, news);
      expect(service.counters().create).toBe(before.create);
      expect(updated).toMatchObject({
        webhookId: Number(made.id),
        webhookName: "orders-renamed",
        webhookUrl: URL,
      });
      expect(updated).not.toHaveProperty("createdAs");
      expect(updated).not.toHaveProperty("declared");
      expect(await process(face).diff(made.id, updated, news, NO_TAINT, STACK)).toMatchObject({
        changes: false,
        replaces: [],
      });

      // Renamed on the service again, and refreshed: drift once more, measured from the name taken up.
      service.updateRecord(Number(made.id), { webhook_name: "orders-3" });
      const again = (await process(face).read(made.id, updated, NO_TAINT, STACK))!.state;
      expect(again.createdAs).toEqual(news);
      const drifted = await process(face).diff(made.id, again, news, NO_TAINT, STACK);
      expect(drifted.replaces).toEqual(["webhookName"]);
      expect(drifted.drift).toContain("orders-3");
    });
  }

  it("on a service that stores names in lower case, the program's own casing of the new name is taken up too", async () => {
    await service.close();
    service = await startEmulator({ accessToken: TOKEN, rewrite: { name: "lowercase" } });
    for (const face of ["dynamic", "native"] as const) {
      // The create is recorded with the service's form, and says so (the engine keeps that state).
      const made = await process(face)
        .create({ webhookName: `Orders-Hook-${face}`, webhookUrl: `${URL}/${face}` }, NO_TAINT, STACK)
        .catch((error: unknown) => {
          const failed = error as EndpointCreatedButFailedError;
          return { id: failed.id, state: failed.properties as unknown as WebhookEndpointOutputs };
        });
      expect(made.state.webhookName).toBe(`orders-hook-${face}`);
      service.updateRecord(Number(made.id), { webhook_name: `orders-hook-${face}-2` });
      const state = (await process(face).read(made.id, made.state, NO_TAINT, STACK))!.state;
      const news = { webhookName: `Orders-Hook-${face}-2`, webhookUrl: `${URL}/${face}` };
      const taken = await process(face).diff(made.id, state, news, NO_TAINT, STACK);
      expect(taken, face).toMatchObject({ changes: true, replaces: [] });
      const updated = process(face).update(state, news);
      expect(await process(face).diff(made.id, updated, news, NO_TAINT, STACK), face).toMatchObject({
        changes: false,
      });
    }
  });
});
