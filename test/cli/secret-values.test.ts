// A secret the stack holds that is a short number, a word, or JSON punctuation
// (`pulumi config set --secret webhooks:principalId 1001`, a program exporting a secret
// provenance) must never make `webhooks list --json` print `"creatorId": [REDACTED],`, which is not
// JSON, nor turn table headers into `[REDACTED]`, as redaction over the printed text would. docs/operator-cli.md
// promises: `--json` always parses, a secret value in it is the marker {"secret": true} (a field's
// type otherwise stable), headers and the CLI's own words are never altered, and no secret value is
// shown. Run through the bin, in a project, with a stand-in pulumi answering the stack's config
// and state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { rawServer } from "../support/helpers";
import { binProject, revealedSecret, type BinProject } from "./bin";
import { TOKEN, cliEmulator } from "./helpers";

const MARKER = { secret: true };
const HIDDEN_KEY = "hidden-key-5d0c9a";
/** What the stack's config holds secret: hostile values of every kind, besides the token. */
const SECRET_CONFIG: Record<string, string> = {
  "webhooks:principalId": "1001",
  "shop:one": "1",
  "shop:zero": "0",
  "shop:id": "id",
  "shop:word": "name",
  "shop:who": "creator",
  "shop:yes": "true",
  "shop:nil": "null",
  "shop:punct": '"},{"',
  "shop:comma": '",',
  "shop:key": HIDDEN_KEY,
  // A substring of other values: the URL of endpoint 1, and a prefix of endpoint 6's.
  "shop:path": "hooks/orders",
};
const SECRETS = [TOKEN, ...Object.values(SECRET_CONFIG), "created"];
/** The secrets long enough to be looked for inside any text (docs/operator-cli.md: four characters). */
const LONG = SECRETS.filter((secret) => secret.trim().length >= 4);

/** Every leaf of a parsed JSON value with its key, but the keys whose values are the CLI's own verdicts or counts. */
function leaves(value: unknown, key = ""): { key: string; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((item) => leaves(item, key));
  if (typeof value === "object" && value !== null) {
    if (JSON.stringify(value) === JSON.stringify(MARKER)) return [];
    return Object.entries(value).flatMap(([k, v]) => leaves(v, k));
  }
  return [{ key, value }];
}
const OURS = new Set([
  "relation",
  "ours",
  "provenance",
  "disputed",
  "held",
  "endpoints",
  "historyCheckpoints",
]);

/** No value from the service or the state shows a secret: none equals one, no text holds a long one. */
function expectNoSecretValue(parsed: unknown, label: string): void {
  for (const leaf of leaves(parsed)) {
    if (OURS.has(leaf.key)) continue;
    const text = String(leaf.value).toLowerCase();
    // An endpoint's id is always shown (docs/operator-cli.md): a secret "1" does not hide endpoint 1.
    if (leaf.key !== "webhookId")
      for (const secret of SECRETS)
        expect(text, `${label}: ${leaf.key} equals the secret ${secret}`).not.toBe(secret.toLowerCase());
    if (typeof leaf.value === "string")
      for (const secret of LONG)
        expect(text, `${label}: ${leaf.key} holds the secret ${secret}`).not.toContain(secret.toLowerCase());
  }
}

describe("webhooks with hostile secrets in the stack: JSON stays JSON, our words stay ours, no secret shows", () => {
  let emulator: Emulator;
  let project: BinProject;
  const byTeam = "team-t-token-81c4";

  beforeAll(async () => {
    emulator = await cliEmulator({
      creator: { id: 1001, name: "creator" },
      principals: [{ token: byTeam, creator: { id: 7, name: "team-t" } }],
    });
    const one = emulator.addRecord({
      webhook_name: "orders",
      webhook_url: "https://example.com/hooks/orders",
    });
    emulator.addRecord({ webhook_name: "id", webhook_url: `https://example.com/x?key=${HIDDEN_KEY}` });
    emulator.addRecord({ webhook_name: 'he said "},{" twice', webhook_url: "https://example.com/q" });
    emulator.addRecord({ webhook_name: "true", webhook_url: "https://example.com/t" });
    emulator.addRecord({ webhook_name: "null", webhook_url: "https://example.com/n" });
    const other = await fetch(`${emulator.url}/open-api/v1/webhooks/create`, {
      method: "POST",
      headers: { authorization: byTeam, "content-type": "application/json" },
      body: JSON.stringify({ webhook_name: "orders-eu", webhook_url: "https://example.com/hooks/orders-eu" }),
    });
    expect(((await other.json()) as { code: string }).code).toBe("200");
    const config: Record<string, { value: unknown; secret: boolean }> = {
      "webhooks:baseUrl": { value: emulator.url, secret: false },
      "webhooks:accessToken": { value: TOKEN, secret: true },
      ...Object.fromEntries(
        Object.entries(SECRET_CONFIG).map(([key, value]) => [key, { value, secret: true }]),
      ),
    };
    const provenance = { how: "created", service: emulator.url, stack: "dev" };
    const state = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev",
            type: "pulumi:pulumi:Stack",
            custom: false,
            // The program exports its endpoint's provenance as a secret.
            outputs: { ordersProvenance: revealedSecret(provenance) },
          },
          {
            urn: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::orders",
            type: "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
            custom: true,
            id: "1",
            inputs: { webhookName: "orders", webhookUrl: one.webhook_url },
            outputs: {
              webhookId: 1,
              webhookName: "orders",
              webhookUrl: one.webhook_url,
              creatorId: one.creator_id,
              createTime: one.create_time,
              provenance,
            },
          },
        ],
      },
    };
    project = binProject({ dev: { config, state } });
  });
  afterAll(async () => {
    project?.cleanup();
    await emulator?.close();
  });

  it("list --json parses; each field showing a secret is the marker, the rest exact", async () => {
    for (const args of [
      ["list", "--json"],
      ["list", "--json", "--show-secrets"],
    ]) {
      const { code, stdout, stderr } = await project.webhooks(args);
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: "" });
      const parsed = JSON.parse(stdout) as { endpoints: Record<string, unknown>[] };
      expectNoSecretValue(parsed, args.join(" "));
      const byId = new Map(parsed.endpoints.map((e) => [e.webhookId, e]));
      expect(byId.get(1)).toMatchObject({
        webhookName: "orders",
        webhookUrl: MARKER, // holds "hooks/orders"
        creatorId: MARKER, // the secret principalId 1001
        creatorName: MARKER, // the secret word "creator"
        operatorId: MARKER,
        createTime: emulator.records()[0]!.create_time,
      });
      expect(byId.get(2)).toMatchObject({ webhookName: MARKER, webhookUrl: MARKER });
      expect(byId.get(3)).toMatchObject({ webhookName: MARKER, webhookUrl: "https://example.com/q" });
      expect(byId.get(4)).toMatchObject({ webhookName: MARKER });
      expect(byId.get(5)).toMatchObject({ webhookName: MARKER });
      // Another principal's endpoint: nothing of it is secret but the URL that holds "hooks/orders".
      expect(byId.get(6)).toMatchObject({
        webhookName: "orders-eu",
        webhookUrl: MARKER,
        creatorId: 7,
        creatorName: "team-t",
      });
      // Every field keeps its type, or is the marker.
      for (const endpoint of parsed.endpoints)
        for (const [key, value] of Object.entries(endpoint)) {
          const type = /Id$|Time$/.test(key) ? "number" : "string";
          if (typeof value !== type) expect({ key, value }).toEqual({ key, value: MARKER });
        }
      if (args.includes("--show-secrets"))
        for (const record of emulator.records())
          expect(byId.get(record.webhook_id)!.signSecret).toBe(record.sign_secret);
    }
  });

  it("list: the headers, the counts and the words are the CLI's own; the secret cells are [secret]", async () => {
    const { code, stdout, stderr } = await project.webhooks(["list"]);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]!.split(/\s+/)).toEqual(["ID", "NAME", "URL", "CREATOR", "CREATED", "OPERATED"]);
    expect(stderr).toBe("6 endpoints\n");
    const row = (id: number) => lines.find((line) => line.startsWith(`${id} `))!;
    // A cell that is a secret as a whole is [secret]; one that holds a secret shows the rest.
    expect(row(1)).toMatch(
      /^1 +orders +https:\/\/example\.com\/\[REDACTED\] +\[secret\] \(\[secret\]\) +2026-/,
    );
    expect(row(2)).toMatch(/^2 +\[secret\] +https:\/\/example\.com\/x\?key=\[REDACTED\]/);
    expect(row(6)).toMatch(/^6 +orders-eu +https:\/\/example\.com\/\[REDACTED\]-eu +team-t \(7\)/);
    for (const secret of [TOKEN, HIDDEN_KEY, "hooks/orders"])
      expect((stdout + stderr).toLowerCase()).not.toContain(secret.toLowerCase());
  });

  it("orphans --json parses, keeps its verdicts, and shows no secret; the table keeps its headers and sentences", async () => {
    const json = await project.webhooks(["orphans", "--stack", "dev", "--json"]);
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: "" });
    const parsed = JSON.parse(json.stdout) as { held: number; orphans: Record<string, unknown>[] };
    expectNoSecretValue(parsed, "orphans --json");
    expect(parsed.held).toBe(1);
    expect(parsed.orphans.map((o) => [o.webhookId, o.relation])).toEqual([
      [2, "unrelated"],
      [3, "unrelated"],
      [4, "unrelated"],
      [5, "unrelated"],
      [6, "unrelated"],
    ]);
    const table = await project.webhooks(["orphans", "--stack", "dev"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^6 endpoint\(s\) on the service; 1 held by stack dev; 5 held by none of them\.\n/,
    );
    expect(table.stdout).toContain("one recorded as created by a creator other than the stack's one creator");
    const header = table.stdout.split("\n").find((line) => line.startsWith("ID "))!;
    expect(header.split(/\s+/)).toEqual(["ID", "NAME", "URL", "CREATOR", "CREATED", "RELATION", "RESOURCE"]);
    for (const secret of [TOKEN, HIDDEN_KEY, "hooks/orders"])
      expect((table.stdout + table.stderr).toLowerCase()).not.toContain(secret.toLowerCase());
  });

  it("adopt --json parses; an endpoint whose name is a secret value is refused, saying so in the CLI's words", async () => {
    const { code, stdout, stderr } = await project.webhooks(["adopt", "--id", "1", "--id", "2", "--json"]);
    // Neither can be declared: exit 5, after the JSON that says why.
    expect(code).toBe(5);
    const parsed = JSON.parse(stdout) as { declarations: Record<string, unknown>[] };
    expectNoSecretValue(
      parsed.declarations.map(
        ({ typescript: _ts, yaml: _yaml, importCommand: _import, refused: _r, ...rest }) => rest,
      ),
      "adopt --json",
    );
    expect(parsed.declarations[0]).toMatchObject({ webhookId: 1, webhookName: "orders", webhookUrl: MARKER });
    expect(parsed.declarations[1]).toMatchObject({
      webhookId: 2,
      webhookName: MARKER,
      webhookUrl: MARKER,
      resourceName: "webhook-2",
      typescript: null,
    });
    expect(stderr).toMatch(
      /^warning: endpoint 1 gets no TypeScript, Pulumi YAML, pulumi import declaration: its URL holds a value this stack holds secret/m,
    );
    expect(stderr).toMatch(/^warning: endpoint 2 gets no .* declaration: its name and URL hold a value/m);
    expect(stderr).toMatch(/^webhooks: no declaration printed: none of the 2 endpoints can be declared/m);
  });

  it("an error quoting the service's text keeps the stack's secrets out of it, and the CLI's words in", async () => {
    const echo = await rawServer((_req, _body, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          code: "50000",
          msg: `cannot list for key ${HIDDEN_KEY}, creator 1001`,
          trace_id: "0".repeat(32),
          data: {},
        }),
      );
    });
    try {
      const { code, stdout, stderr } = await project.webhooks(["list", "--base-url", echo.url], {
        WEBHOOKS_MAX_RETRIES: "0",
      });
      expect(code).toBe(4);
      expect(stdout).toBe("");
      expect(stderr).toMatch(
        /^webhooks: list failed on the service \(HTTP 500, code 50000, "cannot list for key /,
      );
      expect(stderr).toContain("cannot list for key [REDACTED], [REDACTED] [REDACTED]");
      expect(stderr.toLowerCase()).not.toContain(HIDDEN_KEY);
    } finally {
      await echo.close();
    }
  });
});
