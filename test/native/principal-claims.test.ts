// The native plugin over gRPC (issue 25, case 3): which principalId speaks for an explicit
// provider's own token (its own, never WEBHOOKS_PRINCIPAL_ID: docs/configuration.md). An outside
// team found WEBHOOKS_PRINCIPAL_ID applied to it: the provider's own creates were refused after
// they were made.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { ProviderHost } from "../support/provider-host";

const TOKEN = "tok_native_claims_6b02f1";
const OURS = 1001;
const URN = (stack: string, name: string) =>
  `urn:pulumi:${stack}::shop::webhooks:index:WebhookEndpoint::${name}`;
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
});
