import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhooksClient } from "../../src/client/client";
import { CliError, EXIT } from "../../src/cli/exit";
import { runOrphans } from "../../src/cli/commands/orphans";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { allSecrets, cliEmulator, clientFor, expectGolden, fakePulumi } from "./helpers";
import type { StateResource } from "../../src/cli/stack/deployment";
import { baseResources, exportText, heldResource } from "./recover-fixtures";
import { stackConfig } from "../../src/core/settings";

/** A resource whose state records how its endpoint entered the stack, and on which service. */
function withProvenance(resource: StateResource, how: string, service: string): StateResource {
  return { ...resource, outputs: { ...resource.outputs, provenance: { how, service, stack: "shop/dev" } } };
}

describe("webhooks orphans", () => {
  let emulator: Emulator;
  let client: WebhooksClient;
  const root = mkdtempSync(join(tmpdir(), "webhooks-orphans-"));
  const project = join(root, "project");
  const backend = join(root, "state");

  beforeAll(async () => {
    emulator = await cliEmulator({
      principals: [{ token: "team-b-token-5c2f", creator: { id: 2002, name: "team-b" } }],
    });
    for (const [name, url] of [
      ["orders", "https://example.com/hooks/orders"], // 1: held by stack dev
      ["orders", "https://example.com/hooks/orders-old"], // 2: dev held it before a replacement
      ["payments", "https://example.com/hooks/payments"], // 3: prod held it before its destroy
      ["orders", "https://example.com/hooks/orders-manual"], // 4: never held; a name of dev's
      ["random-thing", "https://example.com/hooks/x"], // 5: unrelated
      ["billing", "https://example.com/hooks/billing"], // 6: held by the state file
      ["legacy-name", "https://example.com/hooks/legacy"], // 7: the webhookName in a resource's inputs
      ["audit", "https://example.com/hooks/audit"], // 8: dev held it before, in a state of an earlier release (no provenance)
      ["ledger", "https://example.com/hooks/ledger"], // 9: dev held an endpoint 9 before, created on another service
    ]) {
      emulator.addRecord({ webhook_name: name!, webhook_url: url! });
    }
    // 10: another team's endpoint whose name is the name of one of dev's resources.
    const teamB = clientFor(emulator, "team-b-token-5c2f");
    await teamB.create({ webhookName: "orders", webhookUrl: "https://other-team.example/orders" });
    await teamB.close();
    client = clientFor(emulator);
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
    // The file backend's history: one checkpoint per update (the second gzip-compressed).
    const devHistory = join(backend, ".pulumi", "history", "shop", "dev");
    const prodHistory = join(backend, ".pulumi", "history", "shop", "prod");
    mkdirSync(devHistory, { recursive: true });
    mkdirSync(prodHistory, { recursive: true });
    const checkpoint = (resources: unknown[]) =>
      JSON.stringify({ version: 3, checkpoint: { stack: "x", latest: { resources } } });
    const here = emulator.url;
    writeFileSync(
      join(devHistory, "dev-1700000000000000000.checkpoint.json"),
      checkpoint([
        ...baseResources(),
        // dev created 2 here and replaced it: left behind, ours to remove.
        withProvenance(heldResource("orders", 2, 1001), "created", here),
        // 8: held by a state of an earlier release, which records no provenance: unknown, not ours.
        heldResource("audit", 8, 1001),
        // dev created an endpoint 9 on another service: this service's 9 is not it.
        withProvenance(heldResource("ledger", 9, 1001), "created", "https://eu.example.com"),
      ]),
    );
    // prod imported 3 (someone else's endpoint) and destroyed the resource: not ours to remove.
    writeFileSync(
      join(prodHistory, "prod-1700000000000000000.checkpoint.json.gz"),
      gzipSync(
        checkpoint([...baseResources(), withProvenance(heldResource("payments", 3, 1001), "imported", here)]),
      ),
    );
    writeFileSync(join(devHistory, "dev-1700000000000000000.history.json"), "{}");
  });
  afterAll(async () => {
    await client?.close();
    await emulator?.close();
    rmSync(root, { recursive: true, force: true });
  });

  function pulumi() {
    return fakePulumi({
      "stack export --stack dev": () => ({
        stdout: exportText(
          [
            ...baseResources(),
            heldResource("orders", 1, 1001),
            heldResource("renamed", 99, 1001, { webhookName: "legacy-name" }),
          ],
          [],
        ),
      }),
      "stack export --stack prod": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
  }

  function stateFile(): string {
    const file = join(root, "billing-stack.json");
    writeFileSync(file, exportText([...baseResources(), heldResource("billing", 6, 1001)], []));
    return file;
  }

  it("advises removing only what the stacks created here and no longer hold; lists the rest apart with creator and provenance (golden)", async () => {
    const sink = memorySink();
    const orphans = await runOrphans(
      { client, pulumi: pulumi(), sink, cwd: project },
      { stacks: ["dev", "prod"], stateFiles: [stateFile()], json: false, progress: false },
    );
    expect(orphans.map((o) => [o.record.webhookId, o.relation, o.ours])).toEqual([
      [2, "left-behind", true],
      [3, "formerly-held", false],
      [4, "name-match", false],
      [5, "unrelated", false],
      [7, "name-match", false],
      [8, "formerly-held", false],
      // dev's "ledger" was created on another service: this service's 9 only shares its name.
      [9, "name-match", false],
      [10, "name-match", false],
    ]);
    expect(orphans.filter((o) => o.relation === "formerly-held").map((o) => o.provenance)).toEqual([
      "imported",
      "unknown",
    ]);
    // The advice to remove names only what the stacks created; another team's endpoint is never in it.
    const advice = sink.out.split("Not ours to remove")[0]!.split("Left behind by these stacks")[1]!;
    expect(advice).toMatch(/^2 +orders/m);
    for (const id of [3, 4, 5, 7, 8, 9, 10]) expect(advice).not.toMatch(new RegExp(`^${id} `, "m"));
    expect(sink.out).toContain("team-b (2002)");
    expect(orphans.find((o) => o.record.webhookId === 3)!.resources).toEqual([
      {
        source: "stack prod",
        urn: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::payments",
        name: "payments",
      },
    ]);
    expectGolden("orphans.txt", sink.out.replace(root, "<tmp>"));
    for (const secret of allSecrets(emulator)) expect(sink.out + sink.err).not.toContain(secret);
  });

  it("--json: sources, the count held, and each orphan's record fields, relation and resources; no signSecret", async () => {
    const sink = memorySink();
    await runOrphans(
      { client, pulumi: pulumi(), sink, cwd: project },
      { stacks: ["dev", "prod"], stateFiles: [stateFile()], json: true, progress: false },
    );
    const parsed = JSON.parse(sink.out.replaceAll(root, "<tmp>")) as {
      sources: unknown[];
      held: number;
      orphans: Record<string, unknown>[];
    };
    expect(parsed.sources).toEqual([
      { label: "state file <tmp>/billing-stack.json", endpoints: 1, historyCheckpoints: 0 },
      { label: "stack dev", endpoints: 2, historyCheckpoints: 1 },
      { label: "stack prod", endpoints: 0, historyCheckpoints: 1 },
    ]);
    expect(parsed.held).toBe(2);
    expect(parsed.orphans.map((o) => o.relation)).toEqual([
      "left-behind",
      "formerly-held",
      "name-match",
      "unrelated",
      "name-match",
      "formerly-held",
      "name-match",
      "name-match",
    ]);
    expect(parsed.orphans.map((o) => o.ours)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(parsed.orphans.map((o) => o.creatorId)).toEqual([1001, 1001, 1001, 1001, 1001, 1001, 1001, 2002]);
    expect(parsed.orphans[0]).not.toHaveProperty("signSecret");
    expect(Object.keys(parsed.orphans[0]!)).toEqual(
      expect.arrayContaining([
        "webhookId",
        "webhookName",
        "webhookUrl",
        "createTime",
        "relation",
        "resources",
      ]),
    );
  });

  it("a name or URL a state of the stacks holds secret (here, in history) is shown as [secret], never as the service has it", async () => {
    const SIG = "4dabf18193072939515e22adb298388d";
    const secretUrl = { [SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc:def" };
    const held = withProvenance(heldResource("orders", 5, 1001), "created", emulator.url);
    const withSecretUrl = {
      ...held,
      id: "5",
      inputs: { ...held.inputs, webhookUrl: secretUrl },
      outputs: { ...held.outputs, webhookId: 5, webhookUrl: secretUrl },
    };
    // Stack qa held endpoint 5, its URL a secret, and no longer holds it.
    const history = join(backend, ".pulumi", "history", "shop", "qa");
    mkdirSync(history, { recursive: true });
    writeFileSync(
      join(history, "qa-1700000000000000001.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: { stack: "x", latest: { resources: [...baseResources(), withSecretUrl] } },
      }),
    );
    const qa = fakePulumi({
      "stack export --stack qa": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const url = emulator.records().find((r) => r.webhook_id === 5)!.webhook_url;
    for (const json of [true, false]) {
      const sink = memorySink();
      const orphans = await runOrphans(
        { client, pulumi: qa, sink, cwd: project },
        { stacks: ["qa"], stateFiles: [], json, progress: false },
      );
      const five = orphans.find((o) => o.record.webhookId === 5)!;
      expect(five.secretFields).toEqual(["webhookUrl"]);
      expect(five.relation).toBe("left-behind");
      expect(sink.out).not.toContain(url);
      if (json)
        expect(
          (JSON.parse(sink.out) as { orphans: { webhookId: number; webhookUrl: unknown }[] }).orphans.find(
            (o) => o.webhookId === 5,
          )!.webhookUrl,
        ).toEqual({ secret: true });
      else expect(sink.out).toContain("[secret]");
    }
  });

  it("the same service at another address (moved, or spelled otherwise): the endpoint the stack holds is held, by its creator and creation time", async () => {
    const one = emulator.records().find((r) => r.webhook_id === 1)!;
    const resource = withProvenance(
      heldResource("orders", 1, one.creator_id),
      "created",
      "http://old-address.example:8080",
    );
    const atOldAddress = { ...resource, outputs: { ...resource.outputs, createTime: one.create_time } };
    const pulumiAt = fakePulumi({
      "stack export --stack dev": () => ({ stdout: exportText([...baseResources(), atOldAddress], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "s3://bucket" }) }),
    });
    const sink = memorySink();
    const orphans = await runOrphans(
      { client, pulumi: pulumiAt, sink, cwd: project },
      { stacks: ["dev"], stateFiles: [], json: true, progress: false },
    );
    expect(orphans.map((o) => o.record.webhookId)).not.toContain(1);
    expect((JSON.parse(sink.out) as { held: number }).held).toBe(1);
    // Another creation time: not that endpoint, so not held (listed apart, never as ours).
    const another = {
      ...atOldAddress,
      outputs: { ...atOldAddress.outputs, createTime: one.create_time + 1 },
    };
    const pulumiOther = fakePulumi({
      "stack export --stack dev": () => ({ stdout: exportText([...baseResources(), another], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: "s3://bucket" }) }),
    });
    const listed = await runOrphans(
      { client, pulumi: pulumiOther, sink: memorySink(), cwd: project },
      { stacks: ["dev"], stateFiles: [], json: true, progress: false },
    );
    expect(listed.find((o) => o.record.webhookId === 1)).toMatchObject({ ours: false });
  });

  it("an endpoint moved in from another stack (pulumi state move) and then dropped is not advised for removal: it was created by that stack", async () => {
    const moved = heldResource("handover", 7, 1001);
    const fromPlatform = {
      ...moved,
      outputs: {
        ...moved.outputs,
        provenance: { how: "created", service: emulator.url, stack: "platform/prod" },
      },
    };
    const history = join(backend, ".pulumi", "history", "shop", "moved");
    mkdirSync(history, { recursive: true });
    writeFileSync(
      join(history, "moved-1700000000000000002.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: { stack: "x", latest: { resources: [...baseResources(), fromPlatform] } },
      }),
    );
    const pulumiMoved = fakePulumi({
      "stack export --stack moved": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const orphans = await runOrphans(
      { client, pulumi: pulumiMoved, sink: memorySink(), cwd: project },
      { stacks: ["moved"], stateFiles: [], json: true, progress: false },
    );
    const seven = orphans.find((o) => o.record.webhookId === 7)!;
    expect([seven.relation, seven.ours]).toEqual(["formerly-held", false]);
  });

  it("an endpoint recorded as created whose creator is not the stack's one creator on the service is not advised for removal", async () => {
    // A service that answered a create with another team's endpoint before the stack's principal was
    // known: the state says created for both 2 (1001, the stack's) and 10 (team-b's, 2002). Which
    // creator is the stack's cannot be told from the state, so neither is advised for removal.
    const ten = emulator.records().find((r) => r.webhook_id === 10)!;
    expect(ten.creator_id).toBe(2002);
    const history = join(backend, ".pulumi", "history", "shop", "mixed");
    mkdirSync(history, { recursive: true });
    const resources = [
      ...baseResources(),
      withProvenance(heldResource("orders", 2, 1001), "created", emulator.url),
      withProvenance(
        heldResource("orders-b", 10, 2002, { webhookUrl: ten.webhook_url }),
        "created",
        emulator.url,
      ),
    ];
    writeFileSync(
      join(history, "mixed-1700000000000000003.checkpoint.json"),
      JSON.stringify({ version: 3, checkpoint: { stack: "x", latest: { resources } } }),
    );
    const pulumiMixed = fakePulumi({
      "stack export --stack mixed": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    for (const json of [false, true]) {
      const sink = memorySink();
      const orphans = await runOrphans(
        { client, pulumi: pulumiMixed, sink, cwd: project },
        { stacks: ["mixed"], stateFiles: [], json, progress: false },
      );
      for (const id of [2, 10])
        expect(
          orphans.find((o) => o.record.webhookId === id),
          String(id),
        ).toMatchObject({ relation: "formerly-held", ours: false, provenance: "created", disputed: true });
      expect(orphans.filter((o) => o.ours)).toEqual([]);
      if (json)
        expect(
          (JSON.parse(sink.out) as { orphans: { webhookId: number; disputed?: boolean }[] }).orphans
            .filter((o) => o.disputed === true)
            .map((o) => o.webhookId),
        ).toEqual([2, 10]);
      else expect(sink.out).not.toContain("Left behind by these stacks");
    }
    // With only the stack's own creator recorded, 2 is left behind and ours, as before.
    const solo = join(backend, ".pulumi", "history", "shop", "solo");
    mkdirSync(solo, { recursive: true });
    writeFileSync(
      join(solo, "solo-1700000000000000004.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: { stack: "x", latest: { resources: resources.slice(0, -1) } },
      }),
    );
    const pulumiSolo = fakePulumi({
      "stack export --stack solo": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const own = await runOrphans(
      { client, pulumi: pulumiSolo, sink: memorySink(), cwd: project },
      { stacks: ["solo"], stateFiles: [], json: true, progress: false },
    );
    expect(own.find((o) => o.record.webhookId === 2)).toMatchObject({ relation: "left-behind", ours: true });
  });

  it("with principalId configured, an endpoint recorded as created by another creator is not ours, even as the stack's only one", async () => {
    // The stack's first endpoint was another team's, answered to its create before any principal
    // could be checked: the state's creators alone would call it the stack's own.
    const ten = emulator.records().find((r) => r.webhook_id === 10)!;
    const history = join(backend, ".pulumi", "history", "shop", "first");
    mkdirSync(history, { recursive: true });
    const taken = withProvenance(
      heldResource("orders-b", 10, 2002, { webhookUrl: ten.webhook_url }),
      "created",
      emulator.url,
    );
    writeFileSync(
      join(history, "first-1700000000000000005.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: { stack: "x", latest: { resources: [...baseResources(), taken] } },
      }),
    );
    const pulumiFirst = fakePulumi({
      "stack export --stack first": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const run = (principalId?: string) =>
      runOrphans(
        {
          client,
          pulumi: pulumiFirst,
          sink: memorySink(),
          cwd: project,
          home: {
            service: emulator.url,
            config: stackConfig(
              (key) =>
                ({
                  "webhooks:baseUrl": emulator.url,
                  "webhooks:accessToken": "t",
                  "webhooks:principalId": principalId,
                })[key],
            ),
            env: {},
            secretConfigKeys: [],
          },
        },
        { stacks: ["first"], stateFiles: [], json: true, progress: false },
      );
    // Without it, the state's one creator is taken as the stack's (the documented limit).
    expect((await run()).find((o) => o.record.webhookId === 10)).toMatchObject({
      relation: "left-behind",
      ours: true,
    });
    expect((await run("1001")).find((o) => o.record.webhookId === 10)).toMatchObject({
      relation: "formerly-held",
      ours: false,
      disputed: true,
    });
    expect((await run("2002")).find((o) => o.record.webhookId === 10)).toMatchObject({
      relation: "left-behind",
      ours: true,
    });

    // The same through an explicit native provider whose own principalId names the stack's principal
    // (the stack's configuration names none): its resource is judged by it.
    const providerUrn = "urn:pulumi:dev::shop::pulumi:providers:webhooks::ex";
    const provider = {
      urn: providerUrn,
      id: "1111",
      custom: true,
      type: "pulumi:providers:webhooks",
      inputs: { baseUrl: emulator.url, accessToken: "t", principalId: 1001 },
      outputs: { baseUrl: emulator.url, accessToken: "t", principalId: 1001 },
    };
    const native = {
      ...taken,
      urn: taken.urn.replace(
        "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
        "webhooks:index:WebhookEndpoint",
      ),
      type: "webhooks:index:WebhookEndpoint",
      provider: `${providerUrn}::1111`,
    };
    const nativeHistory = join(backend, ".pulumi", "history", "shop", "firstnative");
    mkdirSync(nativeHistory, { recursive: true });
    writeFileSync(
      join(nativeHistory, "firstnative-1700000000000000006.checkpoint.json"),
      JSON.stringify({
        version: 3,
        checkpoint: { stack: "x", latest: { resources: [...baseResources(), provider, native] } },
      }),
    );
    const pulumiNative = fakePulumi({
      "stack export --stack firstnative": () => ({ stdout: exportText([], []) }),
      "whoami --json": () => ({ stdout: JSON.stringify({ user: "ci", url: `file://${backend}` }) }),
    });
    const viaProvider = await runOrphans(
      {
        client,
        pulumi: pulumiNative,
        sink: memorySink(),
        cwd: project,
        home: {
          service: emulator.url,
          config: stackConfig(
            (key) => ({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": "t" })[key],
          ),
          env: {},
          secretConfigKeys: [],
        },
      },
      { stacks: ["firstnative"], stateFiles: [], json: true, progress: false },
    );
    expect(viaProvider.find((o) => o.record.webhookId === 10)).toMatchObject({
      relation: "formerly-held",
      ours: false,
      disputed: true,
    });
  });

  it("only state files: no pulumi needed; and at least one source is required (exit 2)", async () => {
    const none = fakePulumi({}, { missing: true });
    const orphans = await runOrphans(
      { client, pulumi: none, sink: memorySink(), cwd: root },
      { stacks: [], stateFiles: [stateFile()], json: false, progress: false },
    );
    expect(orphans.map((o) => o.record.webhookId)).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10]);
    expect(orphans.every((o) => o.relation === "unrelated")).toBe(true);
    expect(none.calls).toEqual([]);
    const error = await runOrphans(
      { client, pulumi: none, sink: memorySink(), cwd: root },
      { stacks: [], stateFiles: [], json: false, progress: false },
    ).catch((e: unknown) => e);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    const unreadable = await runOrphans(
      { client, pulumi: none, sink: memorySink(), cwd: root },
      { stacks: [], stateFiles: [join(root, "nope.json")], json: false, progress: false },
    ).catch((e: unknown) => e);
    expect((unreadable as CliError).exitCode).toBe(EXIT.usage);
  });

  it("a stack pulumi cannot export is a configuration error (exit 3) with pulumi's reason", async () => {
    const failing = fakePulumi({
      "stack export": () => ({ code: 255, stderr: "error: no stack named 'qa' found" }),
      "whoami --json": () => ({ stdout: "{}" }),
    });
    const error = (await runOrphans(
      { client, pulumi: failing, sink: memorySink(), cwd: project },
      { stacks: ["qa"], stateFiles: [], json: false, progress: false },
    ).catch((e: unknown) => e)) as CliError;
    expect(error.exitCode).toBe(EXIT.config);
    expect(error.message).toMatch(/no stack named 'qa' found/);
  });
});
