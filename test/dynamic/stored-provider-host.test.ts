import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { REPO } from "../support/global-setup";
import { TOKEN } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";
import { builtProviderText, registerUnderMocks } from "../support/provider-text";

const URN = "urn:pulumi:dev::host-test::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::contract";

/**
 * The contract between the build and Pulumi: the text the build makes of stored-provider.js is what
 * a program stores, and Pulumi's own dynamic-provider host, evaluating it from `__provider`, creates
 * an endpoint and reads it back from the service. Stacks keep the text of the release that made
 * them (refresh and destroy run it), so the text 0.2.0 stored, written by hand before
 * stored-provider.js existed, must reach today's package the same way.
 */
describe("the built stored text in Pulumi's dynamic-provider host", () => {
  let emulator: Emulator;
  let host: ProviderHost;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    host = await ProviderHost.start();
    await host.configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
  });
  afterAll(async () => {
    await host.stop();
    await emulator.close();
  });

  it("is the text a program stores, and round-trips a create and a read against the service", async () => {
    // The fixture's program runs under the mocks as project "serialize-test", stack "dev".
    const text = builtProviderText(REPO, "serialize-test/dev");
    expect(
      registerUnderMocks({ FIXTURE_TOKEN: TOKEN, FIXTURE_BASE_URL: emulator.url })[0]!.inputs.__provider,
    ).toBe(text);

    const inputs = { webhookName: "contract", webhookUrl: "https://example.com/contract" };
    const created = await host.create(URN, { ...inputs, __provider: text });
    expect(emulator.counters().create).toBe(1);
    const [record] = emulator.records();
    expect(created.id).toBe(String(record!.webhook_id));
    expect(created.properties).toMatchObject({
      webhookId: record!.webhook_id,
      webhookName: "contract",
      webhookUrl: "https://example.com/contract",
      signSecret: record!.sign_secret,
      __provider: text,
      // The stack the text names, which the host does not tell the provider.
      provenance: { how: "created", stack: "serialize-test/dev" },
    });

    const read = await host.read(created.id, URN, created.properties);
    expect(read.id).toBe(created.id);
    expect(read.properties).toEqual(created.properties);
    // Unchanged on the service: no inputs, so the engine keeps the state's.
    expect(read.inputs).toBeUndefined();
    expect(emulator.counters().create).toBe(1);
  });

  it("the hand-written text of 0.2.0, in a fresh host, reaches today's package for a create and a read", async () => {
    // Written by 0.2.0's providerText for an install that is gone since: the host finds today's
    // package in its working directory's node_modules.
    const text = readFileSync(join(REPO, "test/dynamic/fixtures/handwritten-provider-0.2.0.txt"), "utf8");
    expect(text).toContain('"/gone/node_modules/pulumi-webhook-endpoints/dist/dynamic/provider.js"');
    const fresh = await ProviderHost.start();
    try {
      await fresh.configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      const created = await fresh.create(URN, {
        webhookName: "older",
        webhookUrl: "https://example.com/older",
        __provider: text,
      });
      const record = emulator.records().find((r) => String(r.webhook_id) === created.id);
      expect(created.properties).toMatchObject({
        webhookName: "older",
        signSecret: record!.sign_secret,
        __provider: text,
      });
      const read = await fresh.read(created.id, URN, created.properties);
      expect(read.id).toBe(created.id);
      expect(read.properties).toEqual(created.properties);
    } finally {
      await fresh.stop();
    }
  });
});
