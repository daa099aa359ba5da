// The native plugin over gRPC: which principalId speaks for an explicit
// provider's own token (its own, never WEBHOOKS_PRINCIPAL_ID: docs/configuration.md), a principalId
// that the facts the state records contradict refused before anything is sent (docs/reliability.md,
// "Facts before claims"), and the stack's identity recorded as a reference to its root resource,
// which a rename rewrites and a move does not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { ProviderHost } from "../support/provider-host";

const TOKEN = "tok_native_claims_6b02f1";
const OURS = 1001;
const URN = (stack: string, name: string) =>
  `urn:pulumi:${stack}::shop::webhooks:index:WebhookEndpoint::${name}`;
const ROOT = (stack: string) => `urn:pulumi:${stack}::shop::pulumi:pulumi:Stack::shop-${stack}`;
/** A resource reference in the engine's wire form (sdk/go/common/resource/properties.go). */
const reference = (urn: string) => ({
  "4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e",
  urn,
});
const BASE = { webhookName: "base", webhookUrl: "https://claims.example/base" };

describe("the native plugin: principalId, the facts the state records, and the stack's identity", () => {
  let service: Emulator;
  const plugins: ProviderHost[] = [];
  /** A plugin process (one per provider resource, as the engine runs them), configured with `args`. */
  async function plugin(
    args: Record<string, unknown>,
    env: Record<string, string> = {},
  ): Promise<ProviderHost> {
    const started = await ProviderHost.startNative({
      WEBHOOKS_BASE_URL: "",
      WEBHOOKS_ACCESS_TOKEN: "",
      ...env,
    });
    plugins.push(started);
    const config = { baseUrl: service.url, ...args };
    // Arguments as their types are (principalId a number); the variables of older engines as text.
    await started.configure(
      config,
      Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)])),
    );
    return started;
  }
  let base: { id: string; properties: Record<string, unknown> };
  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN, creator: { id: OURS, name: "team-a" } });
    base = await (await plugin({ accessToken: TOKEN })).create(URN("dev", "base"), BASE);
  });
  afterAll(async () => {
    await Promise.all(plugins.map((started) => started.stop()));
    await service.close();
  });

  it("records the stack it entered as a reference to its root resource, never secret", () => {
    expect(base.properties.stackRoot).toEqual(reference(ROOT("dev")));
    expect(base.properties.provenance).toMatchObject({ how: "created", stack: "shop/dev" });
  });

  it("a principalId the program holds secret: the creator and operator ids that equal it are secret outputs", async () => {
    // A secret is a taint (docs/native-provider.md): creatorId of the stack's own endpoints is the
    // principal's id itself. The endpoint's id is never secret (Pulumi never holds a resource's ID so).
    const secretWrap = (value: unknown) => ({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      value,
    });
    const started = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
    plugins.push(started);
    await started.configure(
      { baseUrl: service.url, accessToken: TOKEN, principalId: secretWrap(OURS) },
      { baseUrl: service.url, accessToken: TOKEN, principalId: String(OURS) },
    );
    const made = await started.create(URN("dev", "hidden"), {
      webhookName: "hidden",
      webhookUrl: "https://claims.example/hidden",
    });
    expect(made.properties.creatorId).toEqual(secretWrap(OURS));
    expect(made.properties.operatorId).toEqual(secretWrap(OURS));
    expect(typeof made.properties.webhookId).toBe("number");
  });

  it("WEBHOOKS_PRINCIPAL_ID does not speak for an explicit provider's own token", async () => {
    const explicit = await plugin({ accessToken: TOKEN }, { WEBHOOKS_PRINCIPAL_ID: "2010" });
    expect(await explicit.diff(base.id, URN("dev", "base"), base.properties, BASE)).toEqual({
      changes: "none",
      replaces: [],
    });
    const made = await explicit.create(URN("dev", "own"), {
      webhookName: "own",
      webhookUrl: "https://claims.example/own",
    });
    expect(made.properties.creatorId).toBe(OURS);
  });

  it("but does for the environment's token, which the provider takes when it sets none", async () => {
    const fromEnvironment = await plugin({}, { WEBHOOKS_ACCESS_TOKEN: TOKEN, WEBHOOKS_PRINCIPAL_ID: "2010" });
    await expect(fromEnvironment.diff(base.id, URN("dev", "base"), base.properties, BASE)).rejects.toThrow(
      /environment variable WEBHOOKS_PRINCIPAL_ID is 2010, but the state records endpoint \d+ \(named "base"\)/,
    );
  });

  it("an explicit provider's principalId that the facts contradict: Diff refuses it naming both, Create sends nothing", async () => {
    const wrong = await plugin({ accessToken: TOKEN, principalId: 2010 });
    const before = service.requests().length;
    const refused = await wrong
      .diff(base.id, URN("dev", "base"), base.properties, BASE)
      .catch((error: unknown) => error);
    const message = String((refused as Error).message);
    expect(message).toContain(
      "provider config webhooks:principalId (or an explicit provider's principalId) is 2010, but the state records endpoint",
    );
    expect(message).toContain(`as created by creator ${OURS}`);
    expect(message).toContain("nothing was sent to the service");
    await expect(
      wrong.create(URN("dev", "x"), { webhookName: "x", webhookUrl: "https://claims.example/x" }),
    ).rejects.toThrow(/principalId\) is 2010/);
    expect(service.requests().length).toBe(before);
  });

  it("after `pulumi stack rename` (the reference rewritten) the endpoint is still the stack's fact; one `pulumi state move` brought in is not", async () => {
    const renamed = { ...base.properties, stackRoot: reference(ROOT("prod")) };
    const wrong = await plugin({ accessToken: TOKEN, principalId: 2010 });
    await expect(wrong.diff(base.id, URN("prod", "base"), renamed, BASE)).rejects.toThrow(
      /principalId\) is 2010, but the state records endpoint/,
    );
    // Moved from dev into prod: its URN names prod, its reference still dev.
    const moved = await plugin({ accessToken: TOKEN, principalId: 2010 });
    expect(await moved.diff(base.id, URN("prod", "base"), base.properties, BASE)).toEqual({
      changes: "none",
      replaces: [],
    });
  });
});
