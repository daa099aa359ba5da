import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhooksClient } from "../../src/client/client";
import { CliError, EXIT } from "../../src/cli/exit";
import { runOrphans } from "../../src/cli/orphans";
import { memorySink } from "../../src/cli/output";
import type { Emulator } from "../../src/emulator";
import { allSecrets, cliEmulator, clientFor, expectGolden, fakePulumi } from "./helpers";
import { baseResources, exportText, heldResource } from "./recover-fixtures";

describe("webhooks orphans", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  const root = mkdtempSync(join(tmpdir(), "webhooks-orphans-"));
  const project = join(root, "project");
  const backend = join(root, "state");

  beforeAll(async () => {
    emulator = await cliEmulator();
    for (const [name, url] of [
      ["orders", "https://example.com/hooks/orders"], // 1: held by stack dev
      ["orders", "https://example.com/hooks/orders-old"], // 2: dev held it before a replacement
      ["payments", "https://example.com/hooks/payments"], // 3: prod held it before its destroy
      ["orders", "https://example.com/hooks/orders-manual"], // 4: never held; a name of dev's
      ["random-thing", "https://example.com/hooks/x"], // 5: unrelated
      ["billing", "https://example.com/hooks/billing"], // 6: held by the state file
      ["legacy-name", "https://example.com/hooks/legacy"], // 7: the webhookName in a resource's inputs
    ]) {
      emulator.addRecord({ webhook_name: name!, webhook_url: url! });
    }
    client = clientFor(emulator);
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
    // The file backend's history: one checkpoint per update (the second gzip-compressed).
    const devHistory = join(backend, ".pulumi", "history", "shop", "dev");
    const prodHistory = join(backend, ".pulumi", "history", "shop", "prod");
    mkdirSync(devHistory, { recursive: true });
    mkdirSync(prodHistory, { recursive: true });
    const checkpoint = (resources: unknown[]) => JSON.stringify({ version: 3, checkpoint: { stack: "x", latest: { resources } } });
    writeFileSync(join(devHistory, "dev-1700000000000000000.checkpoint.json"), checkpoint([...baseResources(), heldResource("orders", 2, 1001)]));
    writeFileSync(join(prodHistory, "prod-1700000000000000000.checkpoint.json.gz"), gzipSync(checkpoint([...baseResources(), heldResource("payments", 3, 1001)])));
    writeFileSync(join(devHistory, "dev-1700000000000000000.history.json"), "{}");
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
    rmSync(root, { recursive: true, force: true });
  });

  function pulumi() {
    return fakePulumi({
      "stack export --stack dev": () => ({ stdout: exportText([...baseResources(), heldResource("orders", 1, 1001), heldResource("renamed", 99, 1001, { webhookName: "legacy-name" })], []) }),
      "stack export --stack prod": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
  }

  function stateFile(): string {
    const file = join(root, "billing-stack.json");
    writeFileSync(file, exportText([...baseResources(), heldResource("billing", 6, 1001)], []));
    return file;
  }

  it("marks what the stacks held before (history), what shares a name with their resources, and the rest (golden)", async () => {
    const sink = memorySink();
    const orphans = await runOrphans({ client, pulumi: pulumi(), sink, cwd: project }, { stacks: ["dev", "prod"], stateFiles: [stateFile()], json: false, progress: false });
    expect(orphans.map((o) => [o.record.webhookId, o.relation])).toEqual([
      [2, "formerly-held"],
      [3, "formerly-held"],
      [4, "name-match"],
      [5, "unrelated"],
      [7, "name-match"],
    ]);
    expect(orphans.find((o) => o.record.webhookId === 3)!.resources).toEqual([{ source: "stack prod", urn: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::payments", name: "payments" }]);
    expectGolden("orphans.txt", sink.out.replace(root, "<tmp>"));
    for (const secret of allSecrets(emulator)) expect(sink.out + sink.err).not.toContain(secret);
  });

  it("--json: sources, the count held, and each orphan's record fields, relation and resources; no signSecret", async () => {
    const sink = memorySink();
    await runOrphans({ client, pulumi: pulumi(), sink, cwd: project }, { stacks: ["dev", "prod"], stateFiles: [stateFile()], json: true, progress: false });
    const parsed = JSON.parse(sink.out.replaceAll(root, "<tmp>")) as { sources: unknown[]; held: number; orphans: Record<string, unknown>[] };
    expect(parsed.sources).toEqual([
      { label: "state file <tmp>/billing-stack.json", endpoints: 1, historyCheckpoints: 0 },
      { label: "stack dev", endpoints: 2, historyCheckpoints: 1 },
      { label: "stack prod", endpoints: 0, historyCheckpoints: 1 },
    ]);
    expect(parsed.held).toBe(3);
    expect(parsed.orphans.map((o) => o.relation)).toEqual(["formerly-held", "formerly-held", "name-match", "unrelated", "name-match"]);
    expect(parsed.orphans[0]).not.toHaveProperty("signSecret");
    expect(Object.keys(parsed.orphans[0]!)).toEqual(expect.arrayContaining(["webhookId", "webhookName", "webhookUrl", "createTime", "relation", "resources"]));
  });

  it("only state files: no pulumi needed; and at least one source is required (exit 2)", async () => {
    const none = fakePulumi({}, { missing: true });
    const orphans = await runOrphans({ client, pulumi: none, sink: memorySink(), cwd: root }, { stacks: [], stateFiles: [stateFile()], json: false, progress: false });
    expect(orphans.map((o) => o.record.webhookId)).toEqual([1, 2, 3, 4, 5, 7]);
    expect(orphans.every((o) => o.relation === "unrelated")).toBe(true);
    expect(none.calls).toEqual([]);
    const error = await runOrphans({ client, pulumi: none, sink: memorySink(), cwd: root }, { stacks: [], stateFiles: [], json: false, progress: false }).catch((e: unknown) => e);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    const unreadable = await runOrphans({ client, pulumi: none, sink: memorySink(), cwd: root }, { stacks: [], stateFiles: [join(root, "nope.json")], json: false, progress: false }).catch((e: unknown) => e);
    expect((unreadable as CliError).exitCode).toBe(EXIT.usage);
  });

  it("a stack pulumi cannot export is a configuration error (exit 3) with pulumi's reason", async () => {
    const failing = fakePulumi({ "stack export": () => ({ code: 255, stderr: "error: no stack named 'qa' found" }), "whoami --json": () => ({ stdout: "{}" }) });
    const error = (await runOrphans({ client, pulumi: failing, sink: memorySink(), cwd: project }, { stacks: ["qa"], stateFiles: [], json: false, progress: false }).catch((e: unknown) => e)) as CliError;
    expect(error.exitCode).toBe(EXIT.config);
    expect(error.message).toMatch(/no stack named 'qa' found/);
  });
});
