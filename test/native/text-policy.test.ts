// The native plugin over gRPC, judged by the one text policy (docs/operator-cli.md, "What shows a
// secret"; docs/native-provider.md, "Secrets on the native face"): a secret of digits shows where
// it stands as a number, so outputs that show it are secret; a secret shorter than 4 characters is
// recognised only as a whole value, so it never cuts the plugin's own words apart; and a structure
// made secret for one of its values does not make its other, plain values secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { ProviderHost } from "../support/provider-host";

const TOKEN = "tok_native_policy_5d19e3";
const SIG = "4dabf18193072939515e22adb298388d";
const wrap = (value: unknown) => ({ [SIG]: "1b47061264138c4ac30d75fd1eb44270", value });
const isWrapped = (value: unknown) =>
  typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG] !== undefined;
const URN = (name: string) => `urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::${name}`;

describe("the native plugin follows the text policy the CLI follows", () => {
  let service: Emulator;
  const plugins: ProviderHost[] = [];
  async function plugin(config: Record<string, unknown>): Promise<ProviderHost> {
    const started = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
    plugins.push(started);
    const variables = Object.fromEntries(
      Object.entries(config).map(([k, v]) => [k, String(isWrapped(v) ? (v as { value: unknown }).value : v)]),
    );
    await started.configure(config, variables);
    return started;
  }
  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN, creator: { id: 1001, name: "team 1001" } });
  });
  afterAll(async () => {
    await Promise.all(plugins.map((started) => started.stop()));
    await service.close();
  });

  it("a principalId 1001 set with --secret makes the name order-1001 and the creator name team 1001 secret outputs", async () => {
    const secretPrincipal = await plugin({
      baseUrl: service.url,
      accessToken: TOKEN,
      principalId: wrap(1001),
    });
    const made = await secretPrincipal.create(URN("order"), {
      webhookName: "order-1001",
      webhookUrl: "https://policy.example/order",
    });
    expect(isWrapped(made.properties.webhookName), "webhookName order-1001").toBe(true);
    expect(isWrapped(made.properties.creatorName), "creatorName team 1001").toBe(true);
    expect(isWrapped(made.properties.operatorName), "operatorName team 1001").toBe(true);
    // Not where the digits do not stand as the number: the URL holds no 1001.
    expect(made.properties.webhookUrl).toBe("https://policy.example/order");
  });

  it("a state whose createdAs is secret for its URL: its plain name stays plain", async () => {
    const secretUrl = "https://policy.example/in/secret-path-7f3a";
    const made = await (
      await plugin({ baseUrl: service.url, accessToken: TOKEN })
    ).create(URN("e"), {
      webhookName: "e",
      webhookUrl: wrap(secretUrl),
    });
    // The state as a later refresh sends it: createdAs, a secret structure, beside the plain name.
    const state = {
      ...made.properties,
      createdAs: wrap({ webhookName: "e", webhookUrl: secretUrl }),
    };
    const read = await (
      await plugin({ baseUrl: service.url, accessToken: TOKEN })
    ).read(made.id, URN("e"), state);
    expect(read.properties.webhookName, "the plain name e is not made secret").toBe("e");
    expect(isWrapped(read.properties.webhookUrl)).toBe(true);
  });

  it("a state whose createdAs is secret for its URL: a refresh that fails says so in its own words, whole", async () => {
    const secretUrl = "https://policy.example/in/secret-path-2c8e";
    const made = await (
      await plugin({ baseUrl: service.url, accessToken: TOKEN })
    ).create(URN("e2"), {
      webhookName: "e",
      webhookUrl: wrap(secretUrl),
    });
    const state = { ...made.properties, createdAs: wrap({ webhookName: "e", webhookUrl: secretUrl }) };
    // The service gone: the refresh fails, and its message is the plugin's words, whole.
    const gone = await startEmulator({ accessToken: TOKEN });
    const goneUrl = gone.url;
    await gone.close();
    const failing = await plugin({ baseUrl: goneUrl, accessToken: TOKEN });
    const failed = await failing.read(made.id, URN("e2"), state).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failed, "a refresh against a service that is gone fails").toBeInstanceOf(Error);
    const message = String(failed!.message);
    expect(message).toMatch(/fail/);
    expect(message, "no word cut apart by a secret").not.toMatch(/\w\[REDACTED\]|\[REDACTED\]\w/);
    expect(message).not.toContain(secretUrl);
    expect(message).not.toContain(TOKEN);
  });
});
