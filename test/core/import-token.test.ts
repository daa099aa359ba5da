// At the provider core both faces share: an import (a read with no outputs
// recorded: `pulumi import` and the native import option send none; a dynamic host that passes
// the declared inputs instead, as @pulumi/pulumi 3.268+ does, sends inputs only) of an endpoint
// whose name or URL holds the access token is refused, saying what to do, as `webhooks adopt`
// refuses to declare it (docs/adopting-and-importing.md). A refresh of an endpoint already held is
// not an import. Against the emulator over HTTP; the real engine's runs are test/e2e/import-token.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";

const TOKEN = "core_import_tok_2c4e6a8b0d";

describe("an import of an endpoint whose name or URL holds the access token", () => {
  let service: Emulator;
  let core: ProviderCore;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    service = await startEmulator({ accessToken: TOKEN });
    ids.name = service.addRecord({
      webhook_name: `k ${TOKEN}`,
      webhook_url: "https://example.com/a",
    }).webhook_id;
    // Split by a zero-width space and upper-cased: still the token to whoever reads it.
    ids.url = service.addRecord({
      webhook_name: "b",
      webhook_url: `https://example.com/b?t=${TOKEN.slice(0, 6)}\u200b${TOKEN.slice(6).toUpperCase()}`,
    }).webhook_id;
    ids.plain = service.addRecord({ webhook_name: "c", webhook_url: "https://example.com/c" }).webhook_id;
    core = new ProviderCore({
      face: "native",
      notify: () => {},
      env: { WEBHOOKS_BASE_URL: service.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
    });
  });
  afterAll(async () => {
    await core?.close();
    await service?.close();
  });

  it("is refused with no state (pulumi import) and with inputs only (a dynamic import), saying what to do", async () => {
    for (const [field, id] of [
      ["name", ids.name!],
      ["URL", ids.url!],
    ] as const) {
      for (const old of [
        undefined,
        { webhookName: "declared", webhookUrl: "https://example.com/declared" },
      ]) {
        const error = await core.read(String(id), old, NO_TAINT, "shop/dev").then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(error?.message).toMatch(
          new RegExp(
            `endpoint ${id} cannot be imported: its ${field} holds the access token this provider connects with`,
          ),
        );
        expect(error?.message).toMatch(/have the endpoint renamed on the service/);
        expect(error?.message.toLowerCase()).not.toContain(TOKEN.slice(6).toLowerCase());
      }
    }
  });

  it("an endpoint without the token is imported; a refresh of one held whose name now holds it is refused, and records nothing", async () => {
    const imported = await core.read(String(ids.plain), undefined, NO_TAINT, "shop/dev");
    expect(imported?.state).toMatchObject({ webhookName: "c", provenance: { how: "imported" } });
    // The state already holds it (its outputs), and its name on the service now holds the token (a
    // person renamed it so): the state would hold the token in plain text, so nothing is recorded.
    const record = service.records().find((r) => r.webhook_id === ids.name)!;
    const error = await core
      .read(
        String(ids.name),
        {
          webhookId: record.webhook_id,
          webhookName: "k",
          webhookUrl: record.webhook_url,
          creatorId: record.creator_id,
          createTime: record.create_time,
        },
        NO_TAINT,
        "shop/dev",
      )
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toMatch(
      new RegExp(`endpoint ${ids.name} cannot be refreshed: its name holds the access token`),
    );
    expect(error?.message).toMatch(/The state keeps what it held/);
    expect(error?.message.toLowerCase()).not.toContain(TOKEN.toLowerCase());
  });

  it("a refresh of an endpoint renamed to its own signing secret is refused, and the secret is never shown", async () => {
    const held = service.addRecord({ webhook_name: "d", webhook_url: "https://example.com/d" });
    const old = {
      webhookId: held.webhook_id,
      webhookName: "d",
      webhookUrl: held.webhook_url,
      creatorId: held.creator_id,
      createTime: held.create_time,
    };
    service.updateRecord(held.webhook_id, { webhook_name: held.sign_secret });
    const error = await core.read(String(held.webhook_id), old, NO_TAINT, "shop/dev").then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/cannot be refreshed: its name holds .*the endpoint's own signing secret/);
    expect(error?.message).not.toContain(held.sign_secret);
  });
});
