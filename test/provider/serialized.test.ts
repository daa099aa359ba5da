import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN } from "../support/helpers";
import { loadProviderText, registerUnderMocks, type Registered } from "../support/provider-text";

/**
 * What the engine stores in `__provider` is captured under Pulumi's mocks, then loaded from its
 * text the way the dynamic-provider host loads it, and driven against the emulator.
 */
describe("the serialized provider", () => {
  let emulator: Emulator;
  let registered: Registered[];
  const SECRET_MARKER = "4dabf18193072939515e22adb298388d";

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    registered = registerUnderMocks({ FIXTURE_TOKEN: TOKEN, FIXTURE_BASE_URL: emulator.url });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("uses the product's type token and a fresh props object per resource", () => {
    expect(registered.map((r) => r.type)).toEqual([
      "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
      "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
    ]);
    const byName = Object.fromEntries(registered.map((r) => [r.name, r.inputs]));
    expect(byName["caller-options"]).toMatchObject({ webhookName: "named-b", webhookUrl: "https://example.com/b" });
    // webhookName defaults to the resource name.
    expect(byName["with-connection"]).toMatchObject({ webhookName: "with-connection" });
  });

  it("is small, identical for every resource, holds no token and only requires the package", () => {
    const texts = new Set(registered.map((r) => r.inputs.__provider));
    expect(texts.size).toBe(1);
    const text = [...texts][0]!;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(emulator.url);
    // It loads the installed package by name (require.resolve from the program's directory and
    // pnpm's hoisted store), so a package upgrade reaches resources created by older versions.
    expect(text).toContain('"pulumi-webhook-endpoints/provider"');
    expect(text).toContain("require.resolve(");
    // Nothing of the package's own code is inlined.
    expect(text).not.toMatch(/WebhooksClient|undici|zod/);
  });

  it("stores a resource's connection input as a secret", () => {
    const connection = registered.find((r) => r.name === "with-connection")!.inputs.connection as Record<string, unknown>;
    expect(connection[SECRET_MARKER]).toBeDefined();
  });

  it("loaded from its text, drives the whole lifecycle against the emulator", async () => {
    const provider = loadProviderText(registered[0]!.inputs.__provider);
    await provider.configure!({ config: { get: (k: string) => ({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN })[k], require: () => "" } });
    const inputs = { webhookName: "from-text", webhookUrl: "https://example.com/from-text" };
    expect((await provider.check!({}, inputs)).failures).toBeUndefined();
    const created = await provider.create(inputs);
    expect(emulator.counters().create).toBe(1);
    const read = await provider.read!(created.id, created.outs);
    expect(read.props).toEqual(created.outs);
    expect(await provider.diff!(created.id, created.outs, inputs)).toMatchObject({ changes: false });
    expect((await provider.update!(created.id, created.outs, inputs)).outs).toEqual(created.outs);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await provider.delete!(created.id, created.outs);
    expect(log).toHaveBeenCalledWith(expect.stringContaining(`webhook endpoint ${created.id} ("from-text") still exists on the service`));
    log.mockRestore();
    expect(emulator.records()).toHaveLength(1);
  });
});
