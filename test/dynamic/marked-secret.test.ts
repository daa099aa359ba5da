// The dynamic face learns what a program holds secret from the list its inputs carry
// (`__secretInputs`, docs/dynamic-resource.md); refresh and destroy have only the list the outputs
// keep. A config key set with `--secret` after the endpoint was created must reach that list: the
// diff asks for an update (no replacement), and the update writes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import { stackConfig } from "../../src/core/settings";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { createDynamicProvider } from "../../src/dynamic/provider";
import { startEmulator, type Emulator } from "../../src/emulator";

const TOKEN = "tok_marked_secret_5d1f";
const STACK = "shop/dev";
const INPUTS = { webhookName: "orders", webhookUrl: "https://example.com/orders", __stack: STACK };
/** A base URL a stack holds secret: a private gateway's name, which no message may show. */
const PRIVATE = "https://gw-private-7f3e.invalid:8443/";

/** A dynamic provider over its own core, as one provider host runs it, with these `webhooks:*` settings. */
async function dynamicProvider(values: Record<string, string | undefined>) {
  const core = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
  const provider = createDynamicProvider(core);
  core.configure(stackConfig((key) => values[key]));
  await provider.configure({
    config: { get: (key: string) => values[key], require: (key: string) => values[key] ?? "" },
  });
  return { provider, close: () => core.close() };
}

describe("a config key set with --secret after the endpoint was created", () => {
  let service: Emulator;
  let created: { id: string; outs: WebhookEndpointOutputs };
  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN });
    const setup = await dynamicProvider({ "webhooks:baseUrl": service.url, "webhooks:accessToken": TOKEN });
    try {
      const made = await setup.provider.create(INPUTS);
      created = { id: made.id, outs: made.outs as WebhookEndpointOutputs };
    } finally {
      await setup.close();
    }
  });
  afterAll(async () => {
    await service.close();
  });

  it("is an update, not a replacement, and the update's outputs list it", async () => {
    // Nothing was marked when it was created.
    expect(created.outs).not.toHaveProperty("__secretInputs");
    const setup = await dynamicProvider({ "webhooks:baseUrl": service.url, "webhooks:accessToken": TOKEN });
    try {
      const news = { ...INPUTS, __secretInputs: ["webhooks:baseUrl"] };
      expect(await setup.provider.diff(created.id, created.outs, news)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
      const updated = await setup.provider.update(created.id, created.outs, news);
      expect(updated.outs?.__secretInputs).toEqual(["webhooks:baseUrl"]);
      // Another key marked instead, as many as before: an update too.
      const swapped = { ...INPUTS, __secretInputs: ["webhookUrl"] };
      expect(
        (await setup.provider.diff(created.id, updated.outs as WebhookEndpointOutputs, swapped)).changes,
      ).toBe(true);
      // Marked no longer: an update again, which drops the list.
      const unmarked = await setup.provider.diff(created.id, updated.outs as WebhookEndpointOutputs, INPUTS);
      expect(unmarked.changes).toBe(true);
      expect(
        (await setup.provider.update(created.id, updated.outs as WebhookEndpointOutputs, INPUTS)).outs,
      ).not.toHaveProperty("__secretInputs");
    } finally {
      await setup.close();
    }
  });

  it("so a refresh after that update keeps the secret base URL out of its error", async () => {
    const setup = await dynamicProvider({ "webhooks:baseUrl": service.url, "webhooks:accessToken": TOKEN });
    let outs: WebhookEndpointOutputs;
    try {
      const news = { ...INPUTS, __secretInputs: ["webhooks:baseUrl"] };
      outs = (await setup.provider.update(created.id, created.outs, news)).outs as WebhookEndpointOutputs;
    } finally {
      await setup.close();
    }
    // `pulumi refresh` in a new provider host: no program, the base URL now a private gateway's.
    const refresh = await dynamicProvider({
      "webhooks:baseUrl": PRIVATE,
      "webhooks:accessToken": TOKEN,
      "webhooks:maxRetries": "0",
    });
    try {
      const error = await refresh.provider.read(created.id, outs).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).not.toContain("gw-private-7f3e");
      expect(error!.message).toContain("[REDACTED]");
    } finally {
      await refresh.close();
    }
  });

  it("changes nothing for the lists of earlier releases, which named the access token (always kept out)", async () => {
    const setup = await dynamicProvider({ "webhooks:baseUrl": service.url, "webhooks:accessToken": TOKEN });
    try {
      const earlier = { ...created.outs, __secretInputs: ["webhooks:accessToken"] };
      expect((await setup.provider.diff(created.id, earlier, INPUTS)).changes).toBe(false);
      // 0.2.0 recorded no list (nor a provenance): what it held secret is not known, and it previews unchanged.
      const { provenance: _none, ...of020 } = created.outs;
      const marked = { ...INPUTS, __secretInputs: ["webhookName"] };
      expect((await setup.provider.diff(created.id, of020 as WebhookEndpointOutputs, marked)).changes).toBe(
        false,
      );
      const both = { ...created.outs, __secretInputs: ["webhooks:accessToken", "webhookName"] };
      const news = { ...INPUTS, __secretInputs: ["webhookName"] };
      expect((await setup.provider.diff(created.id, both, news)).changes).toBe(false);
    } finally {
      await setup.close();
    }
  });
});

describe("another resource's secret the service echoes in an endpoint's operator name", () => {
  let service: Emulator;
  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN });
  });
  afterAll(async () => {
    await service.close();
  });

  it("is stored redacted by a refresh that was shown it, as the endpoint's own secrets are", async () => {
    const settings = { "webhooks:baseUrl": service.url, "webhooks:accessToken": TOKEN };
    const SECRET_NAME = "hush-name-gamma-0042";
    const setup = await dynamicProvider(settings);
    let a: { id: string; outs: WebhookEndpointOutputs };
    let c: { id: string; outs: WebhookEndpointOutputs };
    try {
      const made = await setup.provider.create({
        webhookName: SECRET_NAME,
        webhookUrl: "https://example.com/a",
        __secretInputs: ["webhookName"],
        __stack: STACK,
      });
      a = { id: made.id, outs: made.outs as WebhookEndpointOutputs };
      const other = await setup.provider.create({ ...INPUTS, webhookName: "c" });
      c = { id: other.id, outs: other.outs as WebhookEndpointOutputs };
    } finally {
      await setup.close();
    }
    service.updateRecord(Number(c.id), { operator_name: `ops ${SECRET_NAME} ${a.outs.signSecret}` });
    // `pulumi refresh`: one provider host, a's read first.
    const refresh = await dynamicProvider(settings);
    try {
      await refresh.provider.read(a.id, a.outs);
      const read = await refresh.provider.read(c.id, c.outs);
      const operatorName = (read.props as WebhookEndpointOutputs).operatorName;
      expect(operatorName).toContain("[REDACTED]");
      expect(operatorName).not.toContain(SECRET_NAME);
      expect(operatorName).not.toContain(a.outs.signSecret);
    } finally {
      await refresh.close();
    }
  });
});
