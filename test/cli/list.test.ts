import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhooksClient } from "../../src/client/client";
import { WebhookRequestRefusedError } from "../../src/client/errors";
import { runList } from "../../src/cli/commands/list";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { apiRecord, captureError } from "../support/helpers";
import { scriptedService } from "../support/scripted-service";
import { TOKEN, allSecrets, cliEmulator, clientFor, expectGolden, normalise } from "./helpers";

describe("webhooks list against the emulator", () => {
  let emulator: Emulator;
  let client: WebhooksClient;

  beforeAll(async () => {
    emulator = await cliEmulator({
      maxNameLength: 1000,
      principals: [{ token: "other-team-token-1234", creator: { id: 2002, name: "billing-team" } }],
    });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    emulator.addRecord({ webhook_name: "payments", webhook_url: "https://example.com/hooks/payments" });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders-v2" });
    emulator.addRecord({ webhook_name: "orders-archive", webhook_url: "https://example.com/hooks/orders" });
    // A name a hostile or careless actor chose: an escape sequence, a newline, a bidi override, and length.
    const hostile = emulator.addRecord({
      webhook_name: "evil\u001b[31mred\nline\u202eesrever",
      webhook_url: "https://example.com/hooks/evil",
    });
    emulator.updateRecord(hostile.webhook_id, { operator_id: 7, operator_name: "console-user" });
    emulator.addRecord({
      webhook_name: `long-${"x".repeat(200)}`,
      webhook_url: `https://example.com/${"p".repeat(300)}`,
    });
    client = clientFor(emulator);
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  const base = { match: "exact" as const, json: false, showSecrets: false, progress: false };

  it("prints a table sorted by id with id, name, URL, creator, created, operated, and no secret", async () => {
    const sink = memorySink();
    const records = await runList(client, sink, base);
    expect(records.map((r) => r.webhookId)).toEqual([1, 2, 3, 4, 5, 6]);
    expectGolden("list-all.txt", normalise(sink.out, emulator));
    for (const secret of allSecrets(emulator)) expect(sink.out + sink.err).not.toContain(secret);
    expect(sink.err).toBe("6 endpoints\n");
  });

  it("shows control and invisible characters of service text as escapes (harmless to the terminal) and truncates it", async () => {
    const sink = memorySink();
    await runList(client, sink, base);
    // eslint-disable-next-line no-control-regex
    expect(sink.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(sink.out).toContain("evil\\u001b[31mred\\nline\\u202eesrever");
    // Cut within the column's 48 characters, the cut marked.
    expect(sink.out).toMatch(/ long-x{40,43}… /);
    expect(sink.out).not.toContain("x".repeat(44));
  });

  it("filters exactly by default, and by the service's own matching with --match service", async () => {
    const exact = memorySink();
    const found = await runList(client, exact, { ...base, name: "orders" });
    expect(found.map((r) => r.webhookId)).toEqual([1, 3]);
    expect(exact.err).toBe('2 endpoints with name "orders" (exact match)\n');
    const both = await runList(client, memorySink(), {
      ...base,
      name: "orders",
      url: "https://example.com/hooks/orders",
    });
    expect(both.map((r) => r.webhookId)).toEqual([1]);

    emulator.configure({ filterMatch: "partial" });
    try {
      const partial = await runList(client, memorySink(), { ...base, name: "orders", match: "service" });
      expect(partial.map((r) => r.webhookId)).toEqual([1, 3, 4]);
      const stillExact = await runList(client, memorySink(), { ...base, name: "orders" });
      expect(stillExact.map((r) => r.webhookId)).toEqual([1, 3]);
    } finally {
      emulator.configure({ filterMatch: "exact" });
    }
  });

  it("--json: {endpoints: [...]} with the camelCase record fields, signSecret only with --show-secrets", async () => {
    const sink = memorySink();
    await runList(client, sink, { ...base, json: true, name: "orders" });
    const parsed = JSON.parse(sink.out) as { endpoints: Record<string, unknown>[] };
    expect(parsed.endpoints).toHaveLength(2);
    expect(Object.keys(parsed.endpoints[0]!).sort()).toEqual(
      [
        "createTime",
        "creatorId",
        "creatorName",
        "operateTime",
        "operatorId",
        "operatorName",
        "webhookId",
        "webhookName",
        "webhookUrl",
      ].sort(),
    );
    expectGolden("list-orders.json", normalise(sink.out, emulator));
    for (const secret of allSecrets(emulator)) expect(sink.out).not.toContain(secret);

    const shown = memorySink();
    await runList(client, shown, { ...base, json: true, name: "orders", showSecrets: true });
    const withSecrets = JSON.parse(shown.out) as { endpoints: { webhookId: number; signSecret: string }[] };
    expect(withSecrets.endpoints.map((e) => e.signSecret)).toEqual(
      emulator
        .records()
        .filter((r) => r.webhook_name === "orders")
        .map((r) => r.sign_secret),
    );
  });

  it("--json keeps the exact service text, with every character a terminal would hide escaped", async () => {
    const sink = memorySink();
    await runList(client, sink, { ...base, json: true });
    const parsed = JSON.parse(sink.out) as { endpoints: { webhookId: number; webhookName: string }[] };
    expect(parsed.endpoints.find((e) => e.webhookId === 5)!.webhookName).toBe(
      "evil\u001b[31mred\nline\u202eesrever",
    );
    expect(sink.out).toContain("evil\\u001b[31mred\\nline\\u202eesrever");
    // eslint-disable-next-line no-control-regex
    expect(sink.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });

  it("--show-secrets adds the SIGN SECRET column", async () => {
    const sink = memorySink();
    await runList(client, sink, { ...base, name: "payments", showSecrets: true });
    expect(sink.out).toContain(emulator.records()[1]!.sign_secret);
    expectGolden("list-payments-secrets.txt", normalise(sink.out, emulator));
  });

  it("shows progress on stderr only when it is a terminal or with --progress", async () => {
    emulator.configure({ defaultPageSize: 2, maxPageSize: 2 });
    const small = clientFor(emulator);
    try {
      const quiet = memorySink();
      await runList(small, quiet, { ...base });
      expect(quiet.err).toBe("6 endpoints\n");
      const forced = memorySink();
      await runList(small, forced, { ...base, progress: true });
      expect(forced.err).toContain("listed 2 endpoints…\nlisted 4 endpoints…\nlisted 6 endpoints…\n");
      const tty = memorySink({ stderrIsTTY: true });
      await runList(small, tty, { ...base, json: true });
      expect(tty.err).toContain("\r\u001b[2Klisted 6 endpoints…");
      expect(tty.err.endsWith("\r\u001b[2K")).toBe(true);
      expect(JSON.parse(tty.out)).toHaveProperty("endpoints");
    } finally {
      emulator.configure({ defaultPageSize: 20, maxPageSize: 100 });
      await small.close();
    }
  });
});

describe("webhooks list: names and URLs another team chose", () => {
  let emulator: Emulator;
  let client: WebhooksClient;

  beforeAll(async () => {
    emulator = await cliEmulator();
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    emulator.addRecord({ webhook_name: "orders\u200b", webhook_url: "https://example.com/hooks/orders" });
    emulator.addRecord({
      webhook_name: "orders\u2060\ufeff",
      webhook_url: "https://example.com/hooks/orders\u202e",
    });
    emulator.addRecord({
      webhook_name: `team ${TOKEN}`,
      webhook_url: `https://example.com/hooks/x?t=${TOKEN.toUpperCase()}`,
    });
    emulator.addRecord({
      webhook_name: `${TOKEN.slice(0, 12)}\u200b${TOKEN.slice(12)}`,
      webhook_url: "https://example.com/hooks/y",
    });
    client = clientFor(emulator);
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  const base = {
    match: "exact" as const,
    json: false,
    showSecrets: false,
    progress: false,
    secrets: { inText: [TOKEN] },
  };
  const rowOf = (table: string, id: number) => table.split("\n").find((line) => line.startsWith(`${id} `))!;

  it("`orders` and `orders` + U+200B do not look alike: invisible characters are shown as escapes", async () => {
    const sink = memorySink();
    await runList(client, sink, base);
    const [plain, zeroWidth, joined] = [rowOf(sink.out, 1), rowOf(sink.out, 2), rowOf(sink.out, 3)];
    expect(plain.slice(2)).not.toBe(zeroWidth.slice(2));
    expect(zeroWidth).toMatch(/^2 +orders\\u200b +https:\/\/example\.com\/hooks\/orders /);
    expect(joined).toMatch(/^3 +orders\\u2060\\ufeff +https:\/\/example\.com\/hooks\/orders\\u202e /);
    // Nothing a terminal hides or reorders reaches it.
    expect(sink.out).not.toMatch(/[\u200b\u2060\ufeff\u202e]/);
  });

  it("--json redacts the token from names and URLs (any case), as the table does", async () => {
    const json = memorySink();
    await runList(client, json, { ...base, json: true });
    const table = memorySink();
    await runList(client, table, base);
    for (const out of [json.out, table.out]) {
      expect(out.toLowerCase()).not.toContain(TOKEN.toLowerCase());
      expect(out.toLowerCase()).not.toContain(TOKEN.slice(12).toLowerCase());
    }
    const parsed = JSON.parse(json.out) as {
      endpoints: { webhookId: number; webhookName: unknown; webhookUrl: unknown }[];
    };
    // docs/operator-cli.md: a field that shows a secret is the marker {"secret": true} in --json.
    expect(parsed.endpoints.slice(3).map((e) => [e.webhookName, e.webhookUrl])).toEqual([
      [{ secret: true }, { secret: true }],
      [{ secret: true }, "https://example.com/hooks/y"],
    ]);
    // Text without the token stays exact, to the character.
    expect(parsed.endpoints[1]!.webhookName).toBe("orders\u200b");
    expect(rowOf(table.out, 4)).toMatch(
      /^4 +team \[REDACTED\] +https:\/\/example\.com\/hooks\/x\?t=\[REDACTED\] /,
    );
  });
});

describe("webhooks list on a service that lists its newest endpoints first", () => {
  it("still prints them sorted by id (docs/operator-cli.md: the endpoints on the service, sorted by id)", async () => {
    const service = await scriptedService({
      records: [30, 10, 20].map((id) =>
        apiRecord({ webhook_id: id, webhook_name: `hook-${id}`, webhook_url: `https://example.com/${id}` }),
      ),
    });
    const client = new WebhooksClient({ baseUrl: service.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const sink = memorySink();
      const records = await runList(client, sink, {
        match: "exact",
        json: true,
        showSecrets: false,
        progress: false,
      });
      expect(records.map((r) => r.webhookId)).toEqual([10, 20, 30]);
      const printed = (JSON.parse(sink.out) as { endpoints: { webhookId: number }[] }).endpoints;
      expect(printed.map((endpoint) => endpoint.webhookId)).toEqual([10, 20, 30]);
    } finally {
      await client.close();
      await service.close();
    }
  });
});

describe("webhooks list --stack: a listing the service refuses, quoting what it was asked", () => {
  // docs/operator-cli.md: what webhooks prints is scrubbed of every value the stack holds secret
  // of at least 4 characters (a shorter one is not searched for: it would cut every word apart);
  // the error of a refused listing quotes the service's own message.
  it("keeps the stack's secret name out of the error, and leaves words holding a short secret whole", async () => {
    const service = await scriptedService({
      onList: (body) => ({
        status: 400,
        body: { code: "40001", msg: `about ${String(body.webhook_name)}: not allowed`, trace_id: "" },
      }),
    });
    const client = new WebhooksClient({ baseUrl: service.url, accessToken: TOKEN, maxRetries: 0 });
    try {
      const error = await captureError(
        runList(client, memorySink(), {
          match: "exact",
          json: false,
          showSecrets: false,
          progress: false,
          name: "payroll-hook",
          secrets: { inText: ["payroll-hook", "ab"] },
        }),
      );
      expect(error).toBeInstanceOf(WebhookRequestRefusedError);
      const message = (error as Error).message;
      expect(message).not.toContain("payroll-hook");
      expect(message).toContain("about");
      expect(message).toContain("not allowed");
    } finally {
      await client.close();
      await service.close();
    }
  });
});
