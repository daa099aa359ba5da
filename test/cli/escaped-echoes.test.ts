// docs/operator-cli.md: what `webhooks` prints never shows the access token, and a field that shows
// it is `[REDACTED]` in a table and the marker {"secret": true} in --json; adopt declares no endpoint
// whose name or URL holds it. "Shows" as a person reads the text: here the token is split by an
// escape of a hidden character (or written in escapes), which a URL's, a page's or a JSON reader
// decodes back into the whole token. The oracle decodes with those readers (../support/as-read).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhooksClient } from "../../src/client/client";
import { runAdopt } from "../../src/cli/commands/adopt";
import { runList } from "../../src/cli/commands/list";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { escapedSplits, readsSecret } from "../support/as-read";
import { TOKEN, cliEmulator, clientFor } from "./helpers";

const secrets = { inText: [TOKEN] };

describe("webhooks list and adopt: a token split by an escaped hidden character", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  const named: number[] = [];
  const addressed: number[] = [];

  beforeAll(async () => {
    emulator = await cliEmulator({ maxNameLength: 1000 });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    for (const [, spelled] of escapedSplits(TOKEN)) {
      named.push(
        emulator.addRecord({ webhook_name: `team ${spelled}`, webhook_url: "https://example.com/a" })
          .webhook_id,
      );
      addressed.push(
        emulator.addRecord({
          webhook_name: "innocent",
          webhook_url: `https://example.com/hooks?t=${spelled}`,
        }).webhook_id,
      );
    }
    client = clientFor(emulator);
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  it("the spellings are the token to their readers (the oracle can see them)", () => {
    for (const [what, spelled] of escapedSplits(TOKEN)) expect(readsSecret(spelled, TOKEN), what).toBe(true);
  });

  it("list: each field is [REDACTED] in the table and the secret marker in --json", async () => {
    const table = memorySink();
    await runList(client, table, {
      match: "exact",
      json: false,
      showSecrets: false,
      progress: false,
      secrets,
    });
    for (const line of table.out.split("\n")) expect(readsSecret(line, TOKEN), line).toBe(false);
    for (const id of [...named, ...addressed])
      expect(table.out.split("\n").find((line) => line.startsWith(`${id} `))).toContain("[REDACTED]");

    const json = memorySink();
    await runList(client, json, { match: "exact", json: true, showSecrets: false, progress: false, secrets });
    const endpoints = (JSON.parse(json.out) as { endpoints: Record<string, unknown>[] }).endpoints;
    const byId = (id: number) => endpoints.find((e) => e.webhookId === id)!;
    for (const id of named) expect(byId(id).webhookName).toEqual({ secret: true });
    for (const id of addressed) expect(byId(id).webhookUrl).toEqual({ secret: true });
    expect(byId(1)).toMatchObject({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" });
  });

  it("adopt: none of them is declared in any format, and nothing printed shows the token", async () => {
    const sink = memorySink();
    const declarations = await runAdopt(client, sink, {
      ids: [1, ...named, ...addressed],
      format: "all",
      json: false,
      progress: false,
      secrets,
    });
    for (const line of `${sink.out}\n${sink.err}`.split("\n"))
      expect(readsSecret(line, TOKEN), line).toBe(false);
    for (const id of [...named, ...addressed]) {
      expect(declarations.find((d) => d.webhookId === id)).toMatchObject({
        typescript: null,
        yaml: null,
        importCommand: null,
      });
      expect(sink.err).toMatch(new RegExp(`endpoint ${id} gets no .*holds the access token`));
    }
    expect(declarations.find((d) => d.webhookId === 1)?.yaml).toEqual(expect.any(String));
  });
});

describe("webhooks list: tokens of unusual shapes", () => {
  // A token the service takes as it is: one holding a quote and a backslash (JSON's escaping of a
  // name `tk_9"Zq` writes `tk_9\"Zq`), one of digits only, as long as a token is (found inside a
  // longer number: docs/operator-cli.md).
  it.each([
    // The table writes the name as it is, which is not the token; --json writes it escaped, which is.
    ['tk_9\\"Zq71aa_secret', 'hook tk_9"Zq71aa_secret', false],
    ["84613907", "order-1846139070", true],
  ])(
    "token %s: the name %s is the marker in --json (and [REDACTED] in the table: %s)",
    async (token, name, inTable) => {
      const emulator = await cliEmulator({ accessToken: token });
      const client = clientFor(emulator, token);
      try {
        emulator.addRecord({ webhook_name: name, webhook_url: "https://example.com/a" });
        const options = {
          match: "exact" as const,
          showSecrets: false,
          progress: false,
          secrets: { inText: [token] },
        };
        const json = memorySink();
        await runList(client, json, { ...options, json: true });
        expect(json.out).not.toContain(token);
        expect(
          (JSON.parse(json.out) as { endpoints: { webhookName: unknown }[] }).endpoints[0]!.webhookName,
        ).toEqual({
          secret: true,
        });
        const table = memorySink();
        await runList(client, table, { ...options, json: false });
        expect(table.out).not.toContain(token);
        expect(table.out.includes("[REDACTED]")).toBe(inTable);
      } finally {
        await client.close();
        await emulator.close();
      }
    },
  );
});
