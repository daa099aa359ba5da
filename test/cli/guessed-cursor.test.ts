// `webhooks list` and `webhooks adopt --id` run as a user runs them (the built CLI, in a process of
// its own) against a service that reads the list request's `cursor` as a record offset (the API
// document's "paging position", section 4.1), sends no continuation and caps its pages at 50 without
// saying so, holding 121 endpoints whose ids are not 1..N. docs/operator-cli.md: list says it shows
// the first N when its listing cannot prove itself complete; adopt never says an endpoint the
// listing could not show does not exist. docs/client.md: the id sent as a cursor proves nothing
// until the service shows it pages by the record id.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listByReading, othersRecords } from "../support/cursor-readings";
import { scriptedService } from "../support/scripted-service";
import { runWebhooks } from "./bin";
import { TOKEN } from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "webhooks-cli-offset-"));
const records = othersRecords(121, 5000, 3);

let service: Awaited<ReturnType<typeof scriptedService>>;
beforeAll(async () => {
  service = await scriptedService({
    records,
    onList: listByReading(records, { reading: "offset", cap: 50 }),
  });
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

const webhooks = (...args: string[]) =>
  runWebhooks(args, dir, {
    PATH: process.env.PATH,
    WEBHOOKS_BASE_URL: service.url,
    WEBHOOKS_ACCESS_TOKEN: TOKEN,
  });

describe("webhooks on a service that reads the cursor as an offset", () => {
  it("list shows the first 50 and says it is not necessarily all, in the count line and in --json", async () => {
    const table = await webhooks("list");
    expect(table.code).toBe(0);
    expect(table.stdout.trim().split("\n")).toHaveLength(1 + 50);
    expect(table.stderr).toMatch(/^the first 50 endpoints the service lists, not necessarily all: /m);
    expect(table.stderr).not.toMatch(/^50 endpoints$/m);

    const json = await webhooks("list", "--json");
    const parsed = JSON.parse(json.stdout) as {
      endpoints: unknown[];
      complete: boolean;
      incompleteReason?: string;
    };
    expect(parsed.endpoints).toHaveLength(50);
    expect(parsed.complete).toBe(false);
    expect(parsed.incompleteReason).toMatch(/does not page by the record id/);
  });

  it("adopt --id of an endpoint past the first page says the listing may be incomplete, never that it does not exist", async () => {
    const id = records[69]!.webhook_id;
    const adopt = await webhooks("adopt", "--id", String(id));
    expect(adopt.code).toBe(2);
    expect(adopt.stdout).toBe("");
    expect(adopt.stderr).toMatch(
      new RegExp(
        `endpoint ${id} is not among the 50 endpoint\\(s\\) the service listed, and the service's listing may be incomplete`,
      ),
    );
    expect(adopt.stderr).not.toMatch(/no endpoint with webhook_id/);
  });

  it("adopt --id narrowed by --name finds it", async () => {
    const { webhook_id: id, webhook_name: name } = records[69]!;
    const adopt = await webhooks("adopt", "--id", String(id), "--name", name, "--format", "import");
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toContain(`pulumi import webhooks:index:WebhookEndpoint ${name} ${id}`);
  });
});
