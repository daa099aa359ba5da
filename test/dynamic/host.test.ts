import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { UNKNOWN } from "../../src/core/wire";
import { TOKEN, waitUntil } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";
import { registerUnderMocks } from "../support/provider-text";

const URN = (name: string) =>
  `urn:pulumi:dev::host-test::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::${name}`;

describe("the real dynamic-provider host, driven over gRPC like the engine drives it", () => {
  let emulator: Emulator;
  let providerText: string;
  let host: ProviderHost;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    providerText = registerUnderMocks({ FIXTURE_TOKEN: TOKEN, FIXTURE_BASE_URL: emulator.url })[0]!.inputs
      .__provider;
    host = await ProviderHost.start();
    await host.configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
  });
  afterAll(async () => {
    await host.stop();
    await emulator.close();
  });

  const withProvider = (props: object) => ({ ...props, __provider: providerText });
  let id = "";
  let state: Record<string, unknown> = {};
  const inputs = { webhookName: "host-orders", webhookUrl: "https://example.com/host-orders" };

  it("Check accepts good inputs and reports bad ones per property, with no API call", async () => {
    const ok = await host.check(URN("a"), {}, withProvider(inputs));
    expect(ok.failures).toEqual([]);
    expect(ok.inputs).toMatchObject(inputs);
    const bad = await host.check(URN("a"), {}, withProvider({ webhookName: "", webhookUrl: "ftp://x" }));
    expect(bad.failures.map((f) => f.property).sort()).toEqual(["webhookName", "webhookUrl"]);
    expect(emulator.counters().total).toBe(0);
  });

  it("Check and Diff handle preview-time unknowns", async () => {
    const check = await host.check(URN("a"), {}, withProvider({ webhookName: "x", webhookUrl: UNKNOWN }));
    expect(check.failures).toEqual([]);
  });

  it("Create makes one create call and returns the record", async () => {
    const created = await host.create(URN("a"), withProvider(inputs));
    id = created.id;
    state = created.properties;
    expect(emulator.counters().create).toBe(1);
    const stored = emulator.records().find((r) => String(r.webhook_id) === id)!;
    expect(state).toMatchObject({
      webhookId: stored.webhook_id,
      signSecret: stored.sign_secret,
      webhookName: "host-orders",
    });
    expect(state.__provider).toBe(providerText);
  });

  it("Diff: no change, a changed URL, an unknown URL, a vanished endpoint", async () => {
    expect(await host.diff(id, URN("a"), state, withProvider(inputs))).toEqual({
      changes: "none",
      replaces: [],
    });
    expect(
      await host.diff(id, URN("a"), state, withProvider({ ...inputs, webhookUrl: "https://example.com/v2" })),
    ).toEqual({ changes: "some", replaces: ["webhookUrl"] });
    expect(await host.diff(id, URN("a"), state, withProvider({ ...inputs, webhookUrl: UNKNOWN }))).toEqual({
      changes: "some",
      replaces: ["webhookUrl"],
    });
  });

  it("Read returns fresh outputs, and inputs only where the service changed them; Update keeps every output", async () => {
    const read = await host.read(id, URN("a"), state);
    expect(read.id).toBe(id);
    expect(read.properties).toEqual(state);
    // Held as the state records it: no inputs, so the engine keeps the state's.
    expect(read.inputs).toBeUndefined();
    // Renamed on the service: the refreshed inputs name it as the service does.
    emulator.updateRecord(Number(id), { webhook_name: "host-orders-renamed" });
    try {
      const renamed = await host.read(id, URN("a"), state);
      expect(renamed.inputs).toMatchObject({ ...inputs, webhookName: "host-orders-renamed" });
    } finally {
      emulator.updateRecord(Number(id), { webhook_name: String(state.webhookName) });
    }
    const updated = await host.update(id, URN("a"), state, withProvider(inputs));
    expect(updated).toEqual(state);
  });

  it("Delete makes no call and tells the user the endpoint still exists", async () => {
    const before = emulator.counters().total;
    await host.delete(id, URN("a"), state);
    expect(emulator.counters().total).toBe(before);
    // The notice reaches the host's stdout after the reply; wait for it rather than for a pause.
    const notice = `webhook endpoint ${id} ("host-orders") still exists on the service`;
    await waitUntil("the delete notice on the host's stdout", () => host.output.stdout.includes(notice));
    expect(host.output.stdout).toContain(notice);
  });

  it("Read of an endpoint removed on the service returns an empty id", async () => {
    emulator.removeRecord(Number(id));
    expect((await host.read(id, URN("a"), state)).id).toBe("");
    expect((await host.diff(id, URN("a"), state, withProvider(inputs))).replaces).toEqual(["webhookId"]);
  });

  it("never prints the token or a signing secret", () => {
    const printed = host.output.stdout + host.output.stderr;
    expect(printed).not.toContain(TOKEN);
    for (const record of emulator.records()) expect(printed).not.toContain(record.sign_secret);
    expect(printed).not.toContain(String(state.signSecret));
  });
});

describe("the host's configure race", () => {
  it("concurrent first calls right after Configure all see the configuration", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, latencyMs: 5 });
    const providerText = registerUnderMocks({ FIXTURE_TOKEN: TOKEN, FIXTURE_BASE_URL: emulator.url })[0]!
      .inputs.__provider;
    const host = await ProviderHost.start({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
    try {
      await host.configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      // No call has loaded the provider yet: these twenty race to be first.
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? host.create(URN(`race-${i}`), {
                webhookName: `race-${i}`,
                webhookUrl: `https://example.com/race/${i}`,
                __provider: providerText,
              })
            : host.check(
                URN(`race-${i}`),
                {},
                {
                  webhookName: `race-${i}`,
                  webhookUrl: `https://example.com/race/${i}`,
                  __provider: providerText,
                },
              ),
        ),
      );
      expect(results).toHaveLength(20);
      expect(emulator.counters().create).toBe(10);
      expect(emulator.records()).toHaveLength(10);
    } finally {
      await host.stop();
      await emulator.close();
    }
  });
});
