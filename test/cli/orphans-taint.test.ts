// The operators' model-based test's invariant 4 (test/e2e/model-operators.test.ts), in one process.
// The service stores endpoint URLs in plain text; run in a project, `webhooks orphans` and `list`
// still keep secret a URL the stack holds secret (the program built it from a secret config value),
// and a URL the program marked secret once the stack no longer holds it (replaced, removed,
// destroyed), while the stack's config holds the secret value it was built from or its history
// holds the URL as a secret. The README promises that secrets stay secret in everything `webhooks`
// prints ("What happens on each command").
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { TOKEN, cliEmulator, clientFor, fakePulumi } from "./helpers";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
/** The secret config value the program builds its URL from. */
const KEY = "hidden-key-5d0c9a";
const revealed = (value: unknown) => ({ [SIG]: SECRET, plaintext: JSON.stringify(value) });
/** How a history checkpoint holds a secret: ciphertext only. */
const encrypted = { [SIG]: SECRET, ciphertext: "v1:AAAAAAAAAAAAAAAA:bm90LWRlY3J5cHRhYmxlLWhlcmU=" };

describe("webhooks in a project never prints a value the stack's program marked secret", () => {
  let emulator: Emulator;
  const root = mkdtempSync(join(tmpdir(), "webhooks-orphans-taint-"));
  const project = join(root, "project");
  const backend = join(root, "state");
  let pulumi: ReturnType<typeof fakePulumi>;

  beforeAll(async () => {
    emulator = await cliEmulator({
      principals: [{ token: "team-t-token-81c4", creator: { id: 1500, name: "team-t" } }],
    });
    const held = `https://example.com/hook?key=${KEY}`;
    const old = `https://example.com/old-hook?key=${KEY}`;
    emulator.addRecord({ webhook_name: "orders", webhook_url: old }); // 1: the stack created it, then replaced it
    emulator.addRecord({ webhook_name: "orders", webhook_url: held }); // 2: the stack holds it, its URL secret
    // 3: another team created exactly the stack's name and URL (it can read the URL on the service).
    const team = clientFor(emulator, "team-t-token-81c4");
    await team.create({ webhookName: "orders", webhookUrl: held }, { allowDuplicate: true });
    await team.close();
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: yaml\n");
    const here = emulator.url;
    const record = (id: number) => {
      const r = emulator.records().find((x) => x.webhook_id === id)!;
      return {
        webhookId: r.webhook_id,
        webhookName: r.webhook_name,
        creatorId: r.creator_id,
        createTime: r.create_time,
      };
    };
    const endpoint = (id: number, url: unknown) => ({
      urn: "urn:pulumi:prod::shop::webhooks:index:WebhookEndpoint::orders",
      type: "webhooks:index:WebhookEndpoint",
      custom: true,
      id: String(id),
      inputs: { webhookName: "orders", webhookUrl: url },
      outputs: {
        ...record(id),
        webhookUrl: url,
        signSecret: encrypted,
        provenance: { how: "created", service: here },
      },
    });
    // The history: the update that held endpoint 1, before the replacement (secrets as ciphertext).
    const history = join(backend, ".pulumi", "history", "shop", "prod");
    mkdirSync(history, { recursive: true });
    writeFileSync(
      join(history, "prod-1700000000000000000.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: { stack: "prod", latest: { resources: [endpoint(1, encrypted)] } },
      }),
    );
    const state = { version: 3, deployment: { resources: [endpoint(2, revealed(held))] } };
    pulumi = fakePulumi({
      "whoami --json": () => ({ stdout: JSON.stringify({ url: `file://${backend}` }) }),
      "config --json --show-secrets": () => ({
        stdout: JSON.stringify({ "shop:key": { value: KEY, secret: true } }),
      }),
      "stack export": () => ({ stdout: JSON.stringify(state) }),
    });
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function run(args: string[]): Promise<string> {
    const sink = memorySink();
    const code = await main(args, {
      sink,
      env: { WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
      cwd: project,
      pulumi,
    });
    expect(code, sink.err).toBe(0);
    return `${sink.out}\n${sink.err}`;
  }

  it("orphans: another team's endpoint with exactly the URL the stack holds secret is listed without it", async () => {
    for (const args of [
      ["orphans", "--stack", "prod"],
      ["orphans", "--stack", "prod", "--json"],
    ]) {
      const printed = await run(args);
      expect(printed).toMatch(/\b3\b/); // the endpoint is listed
      expect(printed, `webhooks ${args.join(" ")}`).not.toContain(KEY);
    }
  });

  it("orphans and list: the endpoint the stack left behind is listed without the secret its URL was built from", async () => {
    for (const args of [
      ["orphans", "--stack", "prod", "--json"],
      ["list", "--stack", "prod"],
    ]) {
      const printed = await run(args);
      expect(printed, `webhooks ${args.join(" ")}`).not.toContain(KEY);
    }
  });
});
