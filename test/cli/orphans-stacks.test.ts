// `webhooks orphans --stack a --stack b` must read each stack's own secrets and `principalId`, so
// none of b's secret values is printed in plain text and the order of the flags never changes a
// verdict. docs/operator-cli.md: each stack's endpoints are judged with that stack's
// own settings (its principal), and nothing any of the stacks holds secret is shown. Run through the
// bin, in a project, with a stand-in pulumi answering each stack's config and state, on a file://
// backend whose history says what each stack created.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { binProject, revealedSecret, type BinProject } from "./bin";
import { TOKEN, cliEmulator } from "./helpers";

const TEAM_TOKEN = "team-b-token-61d2e0";
const KEY_A = "a-secret-key-40c1e9";
const KEY_B = "b-secret-key-93f7a2";
const DYNAMIC = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";

describe("webhooks orphans over several stacks reads each stack's own secrets and settings", () => {
  let emulator: Emulator;
  let project: BinProject;
  const root = mkdtempSync(join(tmpdir(), "webhooks-orphans-stacks-"));
  const backend = join(root, "state");

  beforeAll(async () => {
    emulator = await cliEmulator({ principals: [{ token: TEAM_TOKEN, creator: { id: 7, name: "team-b" } }] });
    const create = async (token: string, name: string, url: string) => {
      const response = await fetch(`${emulator.url}/open-api/v1/webhooks/create`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify({ webhook_name: name, webhook_url: url }),
      });
      const body = (await response.json()) as { code: string; data: Record<string, unknown> };
      expect(body.code).toBe("200");
      return body.data as {
        webhook_id: number;
        creator_id: number;
        create_time: number;
        webhook_url: string;
      };
    };
    // 1: stack a created it (principal 1001) and replaced it. 2: stack b created it (principal 7)
    // and replaced it. 3: b holds it, its URL secret. 4: b's state says it created it, but its
    // creator is 1001, not b's principal 7. 5: someone's endpoint whose URL shows b's secret key.
    const one = await create(TOKEN, "a-orders", "https://example.com/a/orders");
    const two = await create(TEAM_TOKEN, "b-orders", "https://example.com/b/orders");
    const three = await create(TEAM_TOKEN, "b-held", `https://example.com/b/held?key=${KEY_B}`);
    const four = await create(TOKEN, "b-odd", "https://example.com/b/odd");
    await create(TOKEN, "copy", `https://example.com/copy?key=${KEY_B}`);
    const service = emulator.url;
    const endpoint = (
      stack: string,
      name: string,
      record: typeof one,
      url: unknown = record.webhook_url,
    ) => ({
      urn: `urn:pulumi:${stack}::shop::${DYNAMIC}::${name}`,
      type: DYNAMIC,
      custom: true,
      id: String(record.webhook_id),
      inputs: { webhookName: name, webhookUrl: url },
      outputs: {
        webhookId: record.webhook_id,
        webhookName: name,
        webhookUrl: url,
        creatorId: record.creator_id,
        createTime: record.create_time,
        provenance: { how: "created", service, stack: `shop/${stack}` },
      },
    });
    const history = (stack: string, resources: unknown[]) => {
      const dir = join(backend, ".pulumi", "history", "shop", stack);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `${stack}-1700000000000000000.checkpoint.json`),
        JSON.stringify({ version: 3, checkpoint: { stack, latest: { resources } } }),
      );
    };
    history("a", [endpoint("a", "a-orders", one)]);
    history("b", [endpoint("b", "b-orders", two), endpoint("b", "b-odd", four)]);
    const config = (principalId: string, key: string) => ({
      "webhooks:baseUrl": { value: service, secret: false },
      "webhooks:accessToken": { value: TOKEN, secret: true },
      "webhooks:principalId": { value: principalId, secret: true },
      "shop:key": { value: key, secret: true },
    });
    const state = (resources: unknown[]) => ({ version: 3, deployment: { resources } });
    project = binProject(
      {
        a: { config: config("1001", KEY_A), state: state([]) },
        b: {
          config: config("7", KEY_B),
          state: state([endpoint("b", "b-held", three, revealedSecret(three.webhook_url))]),
        },
      },
      `file://${backend}`,
    );
  });
  afterAll(async () => {
    project?.cleanup();
    await emulator?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** The verdicts of `orphans --json` for these stacks, by endpoint id. */
  async function verdicts(stacks: string[]) {
    const { code, stdout, stderr } = await project.webhooks([
      "orphans",
      ...stacks.flatMap((s) => ["--stack", s]),
      "--json",
    ]);
    expect({ stacks, code, stderr }).toEqual({ stacks, code: 0, stderr: "" });
    for (const key of [KEY_A, KEY_B]) expect(stdout).not.toContain(key);
    const parsed = JSON.parse(stdout) as {
      held: number;
      orphans: { webhookId: number; webhookUrl: unknown; relation: string; ours: boolean; disputed?: true }[];
    };
    return {
      held: parsed.held,
      byId: Object.fromEntries(
        parsed.orphans.map((o) => [
          o.webhookId,
          { relation: o.relation, ours: o.ours, disputed: o.disputed },
        ]),
      ),
      urls: Object.fromEntries(parsed.orphans.map((o) => [o.webhookId, o.webhookUrl])),
    };
  }

  it("judges each stack's endpoints with its own principal, in either order of the flags", async () => {
    const ab = await verdicts(["a", "b"]);
    const ba = await verdicts(["b", "a"]);
    expect(ba).toEqual(ab);
    expect(ab.held).toBe(1);
    expect(ab.byId).toEqual({
      1: { relation: "left-behind", ours: true },
      2: { relation: "left-behind", ours: true },
      4: { relation: "formerly-held", ours: false, disputed: true },
      5: { relation: "unrelated", ours: false },
    });
    // b's secret value, in another endpoint's URL, is the secret marker (docs/operator-cli.md).
    expect(ab.urls[5]).toEqual({ secret: true });
  });

  it("the table keeps every stack's secrets out too, in either order", async () => {
    for (const stacks of [
      ["a", "b"],
      ["b", "a"],
    ]) {
      const { code, stdout, stderr } = await project.webhooks([
        "orphans",
        ...stacks.flatMap((s) => ["--stack", s]),
      ]);
      expect(code).toBe(0);
      for (const key of [KEY_A, KEY_B, TOKEN]) expect(stdout + stderr).not.toContain(key);
      expect(stdout).toMatch(/^5 +copy +https:\/\/example\.com\/copy\?key=\[REDACTED\] /m);
    }
    // Each stack's own config was read.
    const configReads = project.calls().filter((call) => call.startsWith("config --json"));
    expect(configReads.some((call) => call.includes("--stack a "))).toBe(true);
    expect(configReads.some((call) => call.includes("--stack b "))).toBe(true);
  });
});
