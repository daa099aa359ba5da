// `webhooks list` and `webhooks adopt` run as a user runs them (the built CLI, in a process of its
// own) against a service that caps its pages without saying so and ignores the paging position:
// the emulator's page-cap profile, 80 endpoints, 50 a page. docs/operator-cli.md: list says it shows
// the first N (in the count line, and as "complete" in --json); adopt never says an endpoint the
// listing could not show does not exist, and --name or --url narrow it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { runWebhooks } from "./bin";
import { TOKEN, cliEmulator } from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "webhooks-cli-capped-"));

let emulator: Emulator;
beforeAll(async () => {
  emulator = await cliEmulator({ profile: "page-cap" });
  for (let i = 1; i <= 80; i++)
    emulator.addRecord({ webhook_name: `team-${i}`, webhook_url: `https://example.com/team/${i}` });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

const webhooks = (...args: string[]) =>
  runWebhooks(args, dir, {
    PATH: process.env.PATH,
    WEBHOOKS_BASE_URL: emulator.url,
    WEBHOOKS_ACCESS_TOKEN: TOKEN,
  });

const idOf = (name: string) => emulator.records().find((r) => r.webhook_name === name)!.webhook_id;

describe("webhooks on a service whose listing stops at its first page", () => {
  it("list shows the first 50 and says it is not necessarily all, in the count line and in --json", async () => {
    const table = await webhooks("list");
    expect(table.code).toBe(0);
    expect(table.stdout.trim().split("\n")).toHaveLength(1 + 50);
    expect(table.stderr).toMatch(/^the first 50 endpoints the service lists, not necessarily all: /m);
    expect(table.stderr).toMatch(/narrow it with --name or --url/);
    expect(table.stderr).not.toMatch(/^50 endpoints$/m);

    const json = await webhooks("list", "--json");
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      endpoints: unknown[];
      complete: boolean;
      incompleteReason?: string;
    };
    expect(parsed.endpoints).toHaveLength(50);
    expect(parsed.complete).toBe(false);
    expect(parsed.incompleteReason).toMatch(/ignores the paging position/);
  });

  it("list narrowed by name proves itself complete", async () => {
    const one = await webhooks("list", "--name", "team-70", "--json");
    const parsed = JSON.parse(one.stdout) as { endpoints: { webhookId: number }[]; complete: boolean };
    expect(parsed).toMatchObject({ complete: true, endpoints: [{ webhookId: idOf("team-70") }] });
  });

  it("adopt --id of an endpoint past the first page says the listing may be incomplete and how to narrow it, never that it does not exist", async () => {
    const id = idOf("team-70");
    const adopt = await webhooks("adopt", "--id", String(id));
    expect(adopt.code).toBe(2);
    expect(adopt.stdout).toBe("");
    expect(adopt.stderr).toMatch(
      new RegExp(
        `endpoint ${id} is not among the 50 endpoint\\(s\\) the service listed, and the service's listing may be incomplete`,
      ),
    );
    expect(adopt.stderr).toMatch(/whether it exists cannot be told/);
    expect(adopt.stderr).toContain(`webhooks adopt --id ${id} --name <its name>`);
    expect(adopt.stderr).not.toMatch(/no endpoint with webhook_id/);
  });

  it("adopt --id narrowed by --name finds it and prints its declarations", async () => {
    const id = idOf("team-70");
    const adopt = await webhooks("adopt", "--id", String(id), "--name", "team-70", "--format", "import");
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toContain(`pulumi import webhooks:index:WebhookEndpoint team-70 ${id}`);
  });

  it("adopt --id of an id no listing holds, narrowed by a name that proves itself complete, does not exist", async () => {
    const adopt = await webhooks("adopt", "--id", "999", "--name", "team-70");
    expect(adopt.code).toBe(2);
    expect(adopt.stderr).toMatch(
      /no endpoint with webhook_id 999 exists on the service with the name "team-70"/,
    );
  });
});
