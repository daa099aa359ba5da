import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { UNKNOWN } from "../../src/core/wire";
import { SETTING_NAMES } from "../../src/core/settings";
import { REPO } from "../support/global-setup";
import { TOKEN, waitUntil } from "../support/helpers";
import { ProviderHost } from "../support/provider-host";

/**
 * The native plugin `pulumi-resource-webhooks`, started from the compiled package the way the
 * engine starts a plugin, and driven over gRPC like the engine drives it.
 */
const URN = (name: string) => `urn:pulumi:dev::native-test::webhooks:index:WebhookEndpoint::${name}`;
const SIG = "4dabf18193072939515e22adb298388d";

describe("the native provider plugin over gRPC", () => {
  let emulator: Emulator;
  let plugin: ProviderHost;
  const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string })
    .version;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    plugin = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
  });
  afterAll(async () => {
    await plugin.stop();
    await emulator.close();
  });

  it("serves the schema of package webhooks with the package's version and a secret signSecret", async () => {
    // GetPluginInfo: the version the engine records for the plugin and compares with what a program asks for.
    expect(await plugin.pluginVersion()).toBe(version);
    const schema = await plugin.getSchema();
    expect(schema.name).toBe("webhooks");
    expect(schema.version).toBe(version);
    const resource = (
      schema.resources as Record<string, { properties: Record<string, { secret?: boolean }> }>
    )["webhooks:index:WebhookEndpoint"];
    expect(resource?.properties.signSecret?.secret).toBe(true);
    expect(
      (schema.config as { variables: Record<string, { secret?: boolean }> }).variables.accessToken?.secret,
    ).toBe(true);
  });

  it("CheckConfig reports a bad base URL and a bad number, per key, before any call", async () => {
    const failures = await plugin.checkConfig({ baseUrl: "ftp://x", timeoutMs: "soon" });
    expect(failures.map((f) => f.property).sort()).toEqual(["baseUrl", "timeoutMs"]);
    expect(failures.find((f) => f.property === "baseUrl")?.reason).toMatch(/https:\/\//);
    expect(emulator.counters().total).toBe(0);
  });

  it("CheckConfig refuses a setting outside the range the client accepts, naming it (pageSize 0 would pass preview and fail at up)", async () => {
    const failures = await plugin.checkConfig({
      baseUrl: "https://api.example.com",
      pageSize: 0,
      maxRetries: 2.5,
      timeoutMs: 0,
      createSettleMs: -1,
    });
    expect(failures.map((f) => f.property).sort()).toEqual([
      "createSettleMs",
      "maxRetries",
      "pageSize",
      "timeoutMs",
    ]);
    expect(failures.find((f) => f.property === "pageSize")?.reason).toMatch(
      /pageSize must be a whole number of records per page from 1 to 10000$/,
    );
    expect(
      await plugin.checkConfig({
        baseUrl: "https://api.example.com",
        pageSize: 1,
        maxRetries: 0,
        timeoutMs: 1,
        createSettleMs: 0,
      }),
    ).toEqual([]);
  });

  it("CheckConfig returns the token as a secret even when it was set without --secret (the engine stores the provider's checked inputs)", async () => {
    const { provproto, structproto } = plugin.protocol;
    const request = new provproto.CheckRequest();
    request.setUrn("urn:pulumi:dev::native-test::pulumi:providers:webhooks::default_0_3_0");
    request.setOlds(structproto.Struct.fromJavaScript({}));
    request.setNews(
      structproto.Struct.fromJavaScript({
        baseUrl: "https://api.example.com",
        accessToken: "plain-token-value-1234",
      }),
    );
    const { response } = await plugin.callRaw("checkConfig", request);
    expect(response.getInputs().toJavaScript()).toEqual({
      baseUrl: "https://api.example.com",
      accessToken: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", value: "plain-token-value-1234" },
    });
  });

  it("Configure takes an explicit provider's arguments, secrets wrapped, and accepts secrets", async () => {
    const answer = await plugin.configure(
      { baseUrl: emulator.url, accessToken: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", value: TOKEN } },
      {},
    );
    expect(answer.acceptSecrets).toBe(true);
  });

  let id = "";
  let state: Record<string, unknown> = {};

  it("Check defaults webhookName to the resource name and refuses bad input per property", async () => {
    const ok = await plugin.check(URN("orders"), {}, { webhookUrl: "https://example.com/native/orders" });
    expect(ok.failures).toEqual([]);
    expect(ok.inputs).toMatchObject({
      webhookName: "orders",
      webhookUrl: "https://example.com/native/orders",
    });
    const bad = await plugin.check(
      URN("orders"),
      {},
      { webhookName: " x", webhookUrl: "https://example.com/a#frag" },
    );
    expect(bad.failures.map((f) => f.property).sort()).toEqual(["webhookName", "webhookUrl"]);
    expect(bad.failures.some((f) => f.property === "webhookUrl" && /fragment/.test(f.reason))).toBe(true);
    expect(emulator.counters().total).toBe(0);
  });

  it("Create during a preview calls nothing and returns the outputs as unknown", async () => {
    const { provproto, structproto } = plugin.protocol;
    const request = new provproto.CreateRequest();
    request.setUrn(URN("previewed"));
    request.setProperties(
      structproto.Struct.fromJavaScript({
        webhookName: "previewed",
        webhookUrl: "https://example.com/previewed",
      }),
    );
    request.setPreview(true);
    const before = emulator.counters().total;
    const { response, error } = await plugin.callRaw("create", request);
    expect(error).toBeUndefined();
    expect(emulator.counters().total).toBe(before);
    expect(response.getProperties().toJavaScript()).toMatchObject({
      webhookName: "previewed",
      webhookId: UNKNOWN,
      signSecret: UNKNOWN,
    });
  });

  it("Create makes one create call and returns signSecret wrapped as a secret", async () => {
    const created = await plugin.create(URN("orders"), {
      webhookName: "orders",
      webhookUrl: "https://example.com/native/orders",
    });
    id = created.id;
    state = created.properties;
    expect(emulator.counters().create).toBe(1);
    const stored = emulator.records().find((r) => String(r.webhook_id) === id)!;
    expect(state.signSecret).toEqual({
      [SIG]: "1b47061264138c4ac30d75fd1eb44270",
      value: stored.sign_secret,
    });
    expect(state).toMatchObject({
      webhookId: stored.webhook_id,
      webhookName: "orders",
      creatorName: stored.creator_name,
    });
  });

  it("the schema and the provider's real outputs and settings agree", async () => {
    const schema = await plugin.getSchema();
    type Property = { type: string; secret?: boolean; $ref?: string };
    const resource = (
      schema.resources as Record<
        string,
        {
          properties: Record<string, Property>;
          required: string[];
          inputProperties: Record<string, Property>;
        }
      >
    )["webhooks:index:WebhookEndpoint"]!;
    // Every output the provider returns is in the schema with its type, and every required one is returned.
    const hidden = new Set(["declared", "createdAs"]);
    for (const [key, value] of Object.entries(state)) {
      if (hidden.has(key)) continue;
      const declared = resource.properties[key];
      expect(declared, `output ${key} is not in the schema`).toBeDefined();
      const plainValue = key === "signSecret" ? (value as { value: unknown }).value : value;
      if ((declared as { $ref?: string }).$ref !== undefined) expect(typeof plainValue, key).toBe("object");
      else if (declared!.type === "integer") expect(Number.isInteger(plainValue), key).toBe(true);
      else expect(typeof plainValue, key).toBe(declared!.type === "number" ? "number" : declared!.type);
      expect(declared!.secret === true, `${key} secret`).toBe(key === "signSecret");
    }
    for (const key of resource.required) expect(state, key).toHaveProperty(key);
    // Every input the provider reads is a schema input, and the schema has no input it ignores.
    expect(Object.keys(resource.inputProperties).sort()).toEqual([
      "adoptWebhookId",
      "webhookName",
      "webhookUrl",
    ]);
    // Every provider setting is configurable through the schema, and nothing else is.
    const variables = (schema.config as { variables: Record<string, unknown> }).variables;
    const inputs = (schema.provider as { inputProperties: Record<string, unknown> }).inputProperties;
    expect(Object.keys(variables).sort()).toEqual([...SETTING_NAMES].sort());
    expect(Object.keys(inputs).sort()).toEqual([...SETTING_NAMES].sort());
  });

  it("Diff: no change, a changed URL, an unknown name, a vanished endpoint", async () => {
    const inputs = { webhookName: "orders", webhookUrl: "https://example.com/native/orders" };
    expect(await plugin.diff(id, URN("orders"), state, inputs)).toEqual({ changes: "none", replaces: [] });
    expect(
      await plugin.diff(id, URN("orders"), state, { ...inputs, webhookUrl: "https://example.com/v2" }),
    ).toEqual({ changes: "some", replaces: ["webhookUrl"] });
    expect(await plugin.diff(id, URN("orders"), state, { ...inputs, webhookName: UNKNOWN })).toEqual({
      changes: "some",
      replaces: ["webhookName"],
    });
  });

  it("Read with the id alone (pulumi import) finds the endpoint, recovers its secret, and returns its inputs", async () => {
    const handMade = emulator.addRecord({
      webhook_name: "legacy",
      webhook_url: "https://example.com/legacy",
    });
    const read = await plugin.read(String(handMade.webhook_id), URN("legacy"), {});
    expect(read.id).toBe(String(handMade.webhook_id));
    expect(read.properties.signSecret).toEqual({
      [SIG]: "1b47061264138c4ac30d75fd1eb44270",
      value: handMade.sign_secret,
    });
    expect(read.inputs).toEqual({ webhookName: "legacy", webhookUrl: "https://example.com/legacy" });
    // Recorded as the fact it is: imported, on this service.
    expect(read.properties.provenance).toEqual({
      how: "imported",
      service: emulator.url,
      stack: "native-test/dev",
    });
  });

  it("an import id written otherwise than a webhook_id is (08 for 8) is refused, naming the id to use: one endpoint, one ID", async () => {
    const handMade = emulator.addRecord({
      webhook_name: "zero-padded",
      webhook_url: "https://example.com/zero-padded",
    });
    const { provproto } = plugin.protocol;
    const request = new provproto.ReadRequest();
    request.setId(`0${handMade.webhook_id}`);
    request.setUrn(URN("zero-padded"));
    const { error, response } = await plugin.callRaw("read", request);
    expect(response).toBeUndefined();
    expect(String(error?.details ?? error)).toContain(`use ${handMade.webhook_id}`);
  });

  it("Read with an unknown id alone is a clear error naming the id", async () => {
    const { provproto } = plugin.protocol;
    const request = new provproto.ReadRequest();
    request.setId("987654");
    request.setUrn(URN("ghost"));
    const { error } = await plugin.callRaw("read", request);
    expect(String(error?.details ?? error)).toMatch(/no webhook endpoint with webhook_id 987654 exists/);
  });

  it("Read of a vanished endpoint with state is gone (empty id)", async () => {
    const created = await plugin.create(URN("gone"), {
      webhookName: "gone",
      webhookUrl: "https://example.com/gone",
    });
    emulator.removeRecord(Number(created.id));
    const read = await plugin.read(created.id, URN("gone"), created.properties);
    expect(read.id).toBe("");
  });

  it("Update keeps every output with no call; Delete makes no call", async () => {
    const before = emulator.counters().total;
    const updated = await plugin.update(id, URN("orders"), state, {
      webhookName: "orders",
      webhookUrl: "https://example.com/native/orders",
    });
    expect(updated).toEqual(state);
    await plugin.delete(id, URN("orders"), state);
    expect(emulator.counters().total).toBe(before);
    // Sent to the engine's log; with no engine listening here it falls back to stderr.
    const notice = `webhook endpoint ${id} ("orders") still exists on the service`;
    await waitUntil("the delete notice on the plugin's stderr", () => plugin.output.stderr.includes(notice));
    expect(plugin.output.stderr).toContain(notice);
  });

  it("an existing endpoint with the declared name and URL is refused, with pulumi import in the advice", async () => {
    const { provproto, structproto } = plugin.protocol;
    const request = new provproto.CreateRequest();
    request.setUrn(URN("dup"));
    request.setProperties(
      structproto.Struct.fromJavaScript({ webhookName: "legacy", webhookUrl: "https://example.com/legacy" }),
    );
    const { error } = await plugin.callRaw("create", request);
    const message = String(error?.details ?? error);
    expect(message).toMatch(/already exists/);
    expect(message).toMatch(/pulumi import webhooks:index:WebhookEndpoint/);
  });
});
