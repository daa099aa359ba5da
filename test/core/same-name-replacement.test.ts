// `pulumi up --target-replace` of an endpoint whose name and URL did not change: the
// engine tells a provider nothing of a replacement it forces (a Check without the old inputs, no
// Diff, then Create; docs/reliability.md, "When the provider sees the facts"), so the create finds
// the stack's own endpoint with that name and URL and refuses. It said "This stack's state does
// not hold it (id 3)", though it does. The refusal now says why a replacement that keeps the name
// and URL cannot be made on this API, and what to do, and no longer claims what it cannot know.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhooksClient } from "../../src/client";
import { ProviderCore } from "../../src/core/provider-core";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";

const TOKEN = "tok_same_name_replace_3f7a";
const ORDERS = { webhookName: "orders", webhookUrl: "https://replace.example/orders" };

describe("a create that finds an endpoint with its name and URL (a replacement that keeps them, or not)", () => {
  let service: Emulator;
  const cores: ProviderCore[] = [];
  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN });
  });
  afterAll(async () => {
    await Promise.all(cores.map((core) => core.close()));
    await service.close();
  });

  for (const face of ["dynamic", "native"] as const) {
    it(`says why a same-name, same-URL replacement cannot be made, what to do, and how to adopt it otherwise (${face})`, async () => {
      const core = new ProviderCore({
        face,
        notify: () => {},
        env: { WEBHOOKS_BASE_URL: service.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
      });
      cores.push(core);
      const held =
        service.records().find((r) => r.webhook_name === "orders")?.webhook_id ??
        Number((await core.create(ORDERS, NO_TAINT, "shop/dev")).id);
      const refused = await core.create(ORDERS, NO_TAINT, "shop/dev").catch((error: unknown) => error);
      const message = String((refused as Error).message);
      expect(message).toContain(`already exists (id ${held}`);
      expect(message).not.toContain("does not hold it");
      expect(message).toContain(
        `If this stack's state holds endpoint ${held}, this create is a replacement that keeps its name and URL`,
      );
      expect(message).toContain("`pulumi up --target-replace`");
      expect(message).toMatch(
        /would be a second endpoint with the same name and URL, which this check refuses/,
      );
      expect(message).toMatch(/the old one can never be deleted/);
      expect(message).toContain("change webhookName or webhookUrl to replace it");
      expect(message).toContain("run `pulumi refresh` instead");
      expect(message).toContain(
        `Otherwise: to manage endpoint ${held} from this stack, set \`adoptWebhookId: ${held}\``,
      );
      expect(service.records().filter((r) => r.webhook_name === "orders")).toHaveLength(1);
    });
  }

  it("with several endpoints of that name and URL, says it of any of them", async () => {
    const core = new ProviderCore({
      face: "native",
      notify: () => {},
      env: { WEBHOOKS_BASE_URL: service.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
    });
    cores.push(core);
    const twice = { webhookName: "twice", webhookUrl: "https://replace.example/twice" };
    const client = new WebhooksClient({ baseUrl: service.url, accessToken: TOKEN });
    try {
      for (let i = 0; i < 2; i++) await client.create(twice, { allowDuplicate: true });
    } finally {
      await client.close();
    }
    const message = String(
      ((await core.create(twice, NO_TAINT, "shop/dev").catch((e: unknown) => e)) as Error).message,
    );
    expect(message).toContain("If this stack's state holds one of them, this create is a replacement");
  });
});
