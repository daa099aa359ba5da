import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhooksClient } from "../../src/client/client";
import { identifierFor, resourceNameFor, runAdopt, type AdoptOptions } from "../../src/cli/adopt";
import { CliError, EXIT } from "../../src/cli/exit";
import { memorySink } from "../../src/cli/output";
import type { Emulator } from "../../src/emulator";
import { allSecrets, cliEmulator, clientFor, expectGolden, normalise } from "./helpers";

describe("webhooks adopt against the emulator", () => {
  let emulator: Emulator;
  let client: WebhooksClient;

  beforeAll(async () => {
    emulator = await cliEmulator();
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    emulator.addRecord({ webhook_name: "Billing Events (EU)", webhook_url: "https://example.com/hooks/billing?region=eu&v=2" });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    // Quotes, a backslash, a newline and a JavaScript line terminator: none may break out of a literal or a comment.
    emulator.addRecord({ webhook_name: 'say "hi"\\\n\u2028});process.exit(1);//', webhook_url: "https://example.com/hooks/x" });
    client = clientFor(emulator);
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  const base: AdoptOptions = { ids: [], format: "all", json: false, progress: false };

  it("--id: TypeScript, Pulumi YAML and the import command for one endpoint (golden), no secret", async () => {
    const sink = memorySink();
    await runAdopt(client, sink, { ...base, ids: [2] });
    expectGolden("adopt-id-2-all.txt", normalise(sink.out, emulator));
    for (const secret of allSecrets(emulator)) expect(sink.out + sink.err).not.toContain(secret);
    expect(sink.out).toContain('const billingEventsEUWebhook = new WebhookEndpoint("Billing-Events-EU", {');
    expect(sink.out).toContain("pulumi import webhooks:index:WebhookEndpoint Billing-Events-EU 2");
  });

  it("--name selecting duplicates: one declaration each, resource names made unique by id (golden)", async () => {
    const sink = memorySink();
    const declarations = await runAdopt(client, sink, { ...base, name: "orders", format: "ts" });
    expect(declarations.map((d) => d.resourceName)).toEqual(["orders-1", "orders-3"]);
    expect(sink.err).toContain("2 endpoints match");
    expectGolden("adopt-name-orders-ts.txt", sink.out);
  });

  it("--resource-name names the resource (R-<id> for several)", async () => {
    const one = await runAdopt(client, memorySink(), { ...base, ids: [1], resourceName: "legacy", format: "import" });
    expect(one[0]!.importCommand).toBe("pulumi import webhooks:index:WebhookEndpoint legacy 1");
    const two = await runAdopt(client, memorySink(), { ...base, ids: [3, 1], resourceName: "legacy", format: "import" });
    expect(two.map((d) => d.resourceName)).toEqual(["legacy-1", "legacy-3"]);
  });

  it("quotes hostile names safely: the TypeScript evaluates to the exact values, the YAML parses to them", async () => {
    const record = emulator.records()[3]!;
    const sink = memorySink();
    const [declaration] = await runAdopt(client, sink, { ...base, ids: [record.webhook_id] });
    expect(sink.err).toMatch(/cannot be declared exactly as the service stores it/);
    // The TypeScript declaration, evaluated with a stand-in class, yields exactly the service's values.
    const seen: unknown[] = [];
    const stub = class {
      constructor(name: string, args: unknown) {
        seen.push(name, args);
      }
    };
    runInNewContext(declaration!.typescript, { WebhookEndpoint: stub });
    expect(seen).toEqual([declaration!.resourceName, { webhookName: record.webhook_name, webhookUrl: record.webhook_url, adoptWebhookId: record.webhook_id }]);
    // The YAML: every value a double-quoted scalar, which YAML reads with JSON's escapes, one per line.
    const lines = declaration!.yaml.split("\n");
    expect(lines).toHaveLength(7);
    const scalar = (prefix: string) => JSON.parse(lines.find((l) => l.startsWith(prefix))!.slice(prefix.length)) as unknown;
    expect(scalar("      webhookName: ")).toBe(record.webhook_name);
    expect(scalar("      webhookUrl: ")).toBe(record.webhook_url);
    expect(scalar("      import: ")).toBe(String(record.webhook_id));
    expect(lines[1]).toBe("    type: webhooks:index:WebhookEndpoint");
    expect(sink.out).not.toMatch(/[\n]\}\);process/);
    expect(sink.out).not.toContain("\u2028");
  });

  it("--json: the declarations for scripts", async () => {
    const sink = memorySink();
    await runAdopt(client, sink, { ...base, ids: [1], json: true });
    const parsed = JSON.parse(sink.out) as { declarations: Record<string, unknown>[] };
    expect(Object.keys(parsed.declarations[0]!).sort()).toEqual(["importCommand", "resourceName", "typescript", "webhookId", "webhookName", "webhookUrl", "yaml"]);
  });

  it("an id or a name that does not exist is a usage error (exit 2)", async () => {
    const missingId = await runAdopt(client, memorySink(), { ...base, ids: [1, 99] }).catch((e: unknown) => e);
    expect(missingId).toBeInstanceOf(CliError);
    expect((missingId as CliError).exitCode).toBe(EXIT.usage);
    expect((missingId as CliError).message).toMatch(/no endpoint with webhook_id 99/);
    const missingName = await runAdopt(client, memorySink(), { ...base, name: "nope" }).catch((e: unknown) => e);
    expect((missingName as CliError).exitCode).toBe(EXIT.usage);
  });

  it("derives resource names and identifiers that Pulumi and TypeScript accept", () => {
    expect(resourceNameFor("orders", 1)).toBe("orders");
    expect(resourceNameFor("  Ünïcode / spaces  ", 2)).toBe("Unicode-spaces");
    expect(resourceNameFor("Billing Events (EU)", 3)).toBe("Billing-Events-EU");
    expect(resourceNameFor("\u0000\u202e", 4)).toBe("webhook-4");
    expect(resourceNameFor("x".repeat(100), 5)).toHaveLength(64);
    expect(identifierFor("orders")).toBe("ordersWebhook");
    expect(identifierFor("9-lives")).toBe("webhook9LivesWebhook");
    expect(identifierFor("delete")).toBe("deleteWebhook");
  });
});
