import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebhooksClient } from "../../src/client/client";
import {
  DYNAMIC_TYPE,
  recordedResource,
  pendingCreates,
  type StateResource,
} from "../../src/cli/stack/deployment";
import { CliError, EXIT } from "../../src/cli/exit";
import type { ListingClient } from "../../src/cli/commands/listing";
import { memorySink } from "../../src/cli/output/output";
import { runRecover, type RecoverOptions } from "../../src/cli/commands/recover";
import { startEmulator, type Emulator } from "../../src/emulator";
import { stackConfig } from "../../src/core/settings";
import { TOKEN } from "./helpers";
import {
  FakeProcesses,
  FakeStack,
  PROVIDER_SOURCE,
  baseResources,
  ciphertext,
  exportText,
  heldResource,
  pendingCreate,
} from "./recover-fixtures";
import { SECRET_SIG, SIG_KEY } from "../../src/core/wire";

const HOUR = 3_600_000;
/** When the interrupted update started (the lock's timestamp). */
const RUN_START = Date.parse("2026-03-04T10:00:00.000Z");

let emulator: Emulator;
let now = RUN_START;
let client: WebhooksClient;
let stack: FakeStack;
let machine: FakeProcesses;

beforeEach(async () => {
  emulator = await startEmulator({
    accessToken: TOKEN,
    now: () => now,
    principals: [{ token: "other-principal-token", creator: { id: 2002, name: "someone-else" } }],
  });
  client = new WebhooksClient({ baseUrl: emulator.url, accessToken: TOKEN, maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await emulator.close();
  stack?.cleanup();
});

/** A record created on the service at `at`, by our principal or the other one. */
async function endpoint(name: string, at: number, creator: "ours" | "other" = "ours"): Promise<number> {
  now = at;
  const as =
    creator === "ours"
      ? client
      : new WebhooksClient({ baseUrl: emulator.url, accessToken: "other-principal-token", maxRetries: 0 });
  try {
    const { record } = await as.create(
      { webhookName: name, webhookUrl: `https://example.com/hooks/${name}` },
      { allowDuplicate: true },
    );
    return record.webhookId;
  } finally {
    if (as !== client) await as.close();
    now = RUN_START + 2 * HOUR;
  }
}

/** The service `webhooks` connects to in these tests: the emulator, configured by the stack's config. */
const HOME = async () => ({
  service: emulator.url,
  config: stackConfig((key) => ({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN })[key]),
  env: {},
  secretConfigKeys: [],
});

/** A held resource whose state records that the stack created it on the emulator's service. */
function created(resource: StateResource, service = emulator.url): StateResource {
  return {
    ...resource,
    outputs: { ...resource.outputs, provenance: { how: "created", service, stack: "shop/dev" } },
  };
}

/** An endpoint the stack created earlier, outside every window: its creatorId shows the stack's principal (1001). */
const EARLIER = () => created(heldResource("zulu", 990_001, 1001));

/**
 * A stack whose state holds `resources` and the `pending` creates. With `principal: "known"` (the
 * default) and no endpoint in `resources` recording a creatorId, one the stack created earlier is
 * added, as a stack past its first `up` has; "unknown" leaves the state showing no principal.
 */
function setup(
  resources: StateResource[],
  pending: unknown[],
  lock: "stale" | "live" | "elsewhere" | "none" = "stale",
  principal: "known" | "unknown" = "known",
) {
  const showsPrincipal = resources.some(
    (r) =>
      typeof r.outputs?.creatorId === "number" &&
      (r.outputs.provenance as { how?: string } | undefined)?.how === "created",
  );
  const extra = principal === "known" && !showsPrincipal ? [EARLIER()] : [];
  // A test that sets up twice leaves no directory of the first behind.
  stack?.cleanup();
  stack = new FakeStack(exportText([...baseResources(), ...extra, ...resources], pending));
  machine = new FakeProcesses(stack.events);
  if (lock !== "none")
    stack.lock({
      pid: 4242,
      hostname: lock === "elsewhere" ? "another-runner" : "ci-runner-7",
      timestamp: new Date(RUN_START).toISOString(),
    });
  if (lock === "live") machine.commands.set(4242, "pulumi up --yes");
  return stack;
}

/** The client, with each listing recorded among the fake stack's events. */
function tracedClient(): ListingClient {
  return {
    listAll: (filter, options) => {
      stack.events.push("list");
      return client.listAll(filter, options);
    },
  };
}

async function recover(options: Partial<RecoverOptions> = {}, deps: { home?: typeof HOME } = {}) {
  const sink = memorySink();
  const sleeps: number[] = [];
  const run = runRecover(
    {
      client: tracedClient(),
      // The service `webhooks` connects to: the emulator.
      home: deps.home ?? HOME,
      pulumi: stack.pulumi(),
      sink,
      cwd: stack.project,
      processes: machine,
      now: () => RUN_START + 3 * HOUR,
      sleep: async (ms) => void sleeps.push(ms),
    },
    {
      yes: true,
      dryRun: false,
      json: false,
      progress: false,
      releaseLock: false,
      picks: new Map(),
      ...options,
    },
  );
  const outcome = await run.then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  return { ...outcome, sink, sleeps };
}

function importedResources(): StateResource[] {
  const parsed = JSON.parse(stack.imported!) as {
    deployment: { resources: StateResource[]; pending_operations?: unknown[] };
  };
  expect(parsed.deployment.pending_operations).toBeUndefined();
  return parsed.deployment.resources;
}

describe("recover: matching pending creates to the service", () => {
  it("records the one endpoint each create made, in the window, held by nothing, by the stack's principal; clears the rest", async () => {
    const held = await endpoint("alpha", RUN_START - 24 * HOUR);
    const beforeWindow = await endpoint("bravo", RUN_START - 2 * HOUR);
    const bravo = await endpoint("bravo", RUN_START + 5_000);
    await endpoint("charlie", RUN_START + 6_000, "other");
    const charlie = await endpoint("charlie", RUN_START + 7_000);
    const adopted = await endpoint("delta", RUN_START - 48 * HOUR, "other");
    setup(
      [heldResource("alpha", held, 1001)],
      [
        pendingCreate("bravo"),
        pendingCreate("charlie"),
        pendingCreate("delta", { inputs: { adoptWebhookId: adopted } }),
        pendingCreate("echo"),
        pendingCreate("foxtrot", { inputs: { webhookName: ciphertext("foxtrot") } }),
      ],
    );

    const { report, error, sink } = await recover();
    expect(error).toBeUndefined();
    expect(report!.recorded.map((r) => [r.resourceName, r.webhookId])).toEqual([
      ["bravo", bravo],
      ["charlie", charlie],
      ["delta", adopted],
    ]);
    expect(report!.cleared.map((c) => c.resourceName)).toEqual(["echo", "foxtrot"]);
    // Its secret name was read from the --show-secrets export (in memory) and matched: nothing has it.
    expect(report!.cleared[1]!.reason).toMatch(/never reached the service/);
    expect(JSON.stringify(report)).not.toContain('"webhookName":"foxtrot"');
    expect(beforeWindow).not.toBe(bravo);
    expect(report!.window).toMatchObject({ since: new Date(RUN_START).toISOString(), creators: [1001] });

    // The lock was released before the state was imported, and the import is read back.
    expect(stack.events.filter((e) => e !== "list")).toEqual([
      "export",
      "export --show-secrets",
      "cancel",
      "export",
      "import",
      "export",
    ]);
    const resources = importedResources();
    const recorded = resources.filter((r) =>
      ["bravo", "charlie", "delta"].some((n) => r.urn.endsWith(`::${n}`)),
    );
    expect(recorded.map((r) => r.id)).toEqual([String(bravo), String(charlie), String(adopted)]);
    const bravoRecord = emulator.records().find((r) => r.webhook_id === bravo)!;
    expect(recorded[0]!.outputs).toEqual({
      __provider: PROVIDER_SOURCE,
      webhookId: bravo,
      webhookName: "bravo",
      webhookUrl: "https://example.com/hooks/bravo",
      signSecret: { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(bravoRecord.sign_secret) },
      creatorId: 1001,
      creatorName: "open-api",
      createTime: RUN_START + 5_000,
      operatorId: 1001,
      operatorName: "open-api",
      operateTime: RUN_START + 5_000,
      // The killed run created it, on this service: recorded as that fact.
      provenance: { how: "created", service: emulator.url, stack: "shop/dev", recovered: true },
      // And in this stack, as a reference to its root resource, which `pulumi stack rename` rewrites.
      stackRoot: {
        "4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e",
        urn: "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev",
      },
    });
    expect(recorded[2]!.outputs!.adoptWebhookId).toBe(adopted);
    expect(recorded[2]!.outputs!.provenance).toEqual({
      how: "adopted",
      service: emulator.url,
      stack: "shop/dev",
    });
    // Nothing secret is printed: not the token, not a sign secret.
    for (const secret of [TOKEN, ...emulator.records().map((r) => r.sign_secret)])
      expect(sink.out + sink.err).not.toContain(secret);
    expect(sink.out).toMatch(/Recorded in state/);
    expect(sink.out).toMatch(/Cleared: the next `pulumi up` creates these/);
  });

  it("never takes an endpoint a resource of the stack already holds, even one created in the window", async () => {
    const india = await endpoint("india", RUN_START + 3_000);
    const copy = pendingCreate("india");
    copy.resource.urn = copy.resource.urn.replace(/::india$/, "::india-copy");
    setup([heldResource("india", india, 1001)], [copy]);
    const { report } = await recover();
    expect(report!.recorded).toEqual([]);
    expect(report!.cleared.map((c) => c.resourceName)).toEqual(["india-copy"]);
  });

  it("two candidates for one create: changes nothing, exits 5, prints the candidates and the adopt commands; --pick decides", async () => {
    const first = await endpoint("bravo", RUN_START + 1_000);
    const second = await endpoint("bravo", RUN_START + 2_000);
    setup([], [pendingCreate("bravo")]);
    const { error, sink } = await recover();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(stack.events).not.toContain("import");
    expect(stack.events).not.toContain("cancel");
    expect(sink.out).toContain(`webhooks recover --pick bravo=${first}`);
    expect(sink.out).toContain(`webhooks adopt --id ${second} --resource-name bravo`);

    const picked = await recover({ picks: new Map([["bravo", second]]) });
    expect(picked.error).toBeUndefined();
    expect(picked.report!.recorded.map((r) => r.webhookId)).toEqual([second]);
  });

  it("one endpoint for two creates of the same name and URL is not guessed either", async () => {
    await endpoint("bravo", RUN_START + 1_000);
    const twin = pendingCreate("bravo");
    twin.resource.urn = twin.resource.urn.replace(/::bravo$/, "::bravo-twin");
    setup([], [pendingCreate("bravo"), twin]);
    const { error, report } = await recover({ dryRun: true });
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(report).toBeUndefined();
    expect(stack.events).not.toContain("import");
  });

  it("--dry-run: reports what it would do and changes nothing (no cancel, no import, no process stopped)", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo"), pendingCreate("echo")]);
    machine.commands.set(777, "node .../cmd/dynamic-provider/index.js 127.0.0.1:40000");
    machine.hosts.push({ pid: 777, engine: "127.0.0.1:40000", kind: "dynamic" });
    const { report, sink } = await recover({ dryRun: true, yes: false });
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([bravo]);
    expect(report!.changed).toBe(false);
    expect(stack.events.filter((e) => e !== "list")).toEqual(["export", "export --show-secrets"]);
    expect(machine.terminated).toEqual([]);
    expect(sink.out).toMatch(/would be stopped/);
    expect(sink.out).toMatch(/Dry run: nothing was changed/);
  });

  it("stops provider hosts whose engine is gone before listing, waits for creates in flight; leaves live ones alone", async () => {
    await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    machine.commands.set(777, "node cmd/dynamic-provider 127.0.0.1:40000");
    machine.commands.set(778, "node cmd/dynamic-provider 127.0.0.1:40001");
    machine.hosts.push(
      { pid: 777, engine: "127.0.0.1:40000", kind: "dynamic" },
      { pid: 778, engine: "127.0.0.1:40001", kind: "dynamic" },
    );
    machine.liveEngines.add("127.0.0.1:40001");
    const { report, sleeps } = await recover({ settleMs: 3000 });
    expect(machine.terminated).toEqual([777]);
    expect(report!.providers).toEqual([
      { pid: 777, engine: "127.0.0.1:40000", kind: "dynamic", stopped: true },
    ]);
    expect(stack.events.indexOf("terminate 777")).toBeLessThan(stack.events.indexOf("list"));
    expect(sleeps).toContain(3000);
  });

  it("a native pending create is recorded as the native face would: no __provider, signSecret secret", async () => {
    const id = await endpoint("golf", RUN_START + 1_000);
    setup([], [pendingCreate("golf", { face: "native" })]);
    const { report } = await recover();
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([id]);
    const golf = importedResources().find((r) => r.urn.endsWith("::golf"))!;
    expect(golf.type).toBe("webhooks:index:WebhookEndpoint");
    expect(Object.keys(golf.outputs!).sort()).toEqual([
      "createTime",
      "creatorId",
      "creatorName",
      "operateTime",
      "operatorId",
      "operatorName",
      "provenance",
      "signSecret",
      "stackRoot",
      "webhookId",
      "webhookName",
      "webhookUrl",
    ]);
    // Recorded as the fact it is: the killed run created it, on the service its provider names.
    expect(golf.outputs!.provenance).toEqual({
      how: "created",
      service: emulator.url,
      stack: "shop/dev",
      recovered: true,
    });
  });
});

describe("recover: a stack whose principal the state does not show", () => {
  // A first `up` killed before any create was recorded, and a person (another token) creating
  // exactly the declared name and URL inside the run's window.
  it("one candidate, created by a person: not recorded; exits 5, nothing changed, prints it with --pick and adopt", async () => {
    const persons = await endpoint("bravo", RUN_START + 1_000, "other");
    setup([], [pendingCreate("bravo")], "stale", "unknown");
    const { error, report, sink } = await recover();
    expect(report).toBeUndefined();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect((error as CliError).message).toMatch(/principal cannot be confirmed/);
    expect(stack.events.filter((e) => e !== "list")).toEqual(["export", "export --show-secrets"]);
    expect(stack.imported).toBeUndefined();
    expect(sink.out).not.toMatch(/Recorded in state/);
    expect(sink.out).toMatch(/Not guessed \(nothing was changed\)/);
    expect(sink.out).toMatch(/state shows no principal of the stack/);
    expect(sink.out).toMatch(
      /records no endpoint the stack created there, so its principal is unknown: any match needs a person's --pick/,
    );
    expect(sink.out).toContain(
      `endpoint ${persons}, created ${new Date(RUN_START + 1_000).toISOString()} by creator 2002`,
    );
    expect(sink.out).toContain(`webhooks recover --pick bravo=${persons}`);
    expect(sink.out).toContain(`webhooks adopt --id ${persons} --resource-name bravo`);
  });

  it("one candidate the stack's own token created is not recorded unasked either (who created it cannot be told); --dry-run and --json alike", async () => {
    const ours = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo"), pendingCreate("echo")], "stale", "unknown");
    const dry = await recover({ dryRun: true });
    expect((dry.error as CliError).exitCode).toBe(EXIT.refused);
    const { error, sink } = await recover({ json: true });
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    const parsed = JSON.parse(sink.out) as {
      recorded: unknown[];
      cleared: { resourceName: string }[];
      ambiguous: { resourceName: string; candidates: { webhookId: number }[] }[];
      changed: boolean;
      window: { creators: number[] };
    };
    expect(parsed.recorded).toEqual([]);
    expect(parsed.changed).toBe(false);
    expect(parsed.window.creators).toEqual([]);
    expect(parsed.ambiguous.map((a) => [a.resourceName, a.candidates.map((c) => c.webhookId)])).toEqual([
      ["bravo", [ours]],
    ]);
    expect(parsed.cleared.map((c) => c.resourceName)).toEqual(["echo"]);
    expect(stack.events).not.toContain("import");
    expect(stack.events).not.toContain("cancel");
  });

  it("endpoints the stack only adopted do not show its principal", async () => {
    const adopted = await endpoint("lima", RUN_START - 24 * HOUR, "other");
    await endpoint("bravo", RUN_START + 1_000, "other");
    setup(
      [heldResource("lima", adopted, 2002, { adoptWebhookId: adopted })],
      [pendingCreate("bravo")],
      "stale",
      "unknown",
    );
    const { error } = await recover();
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(stack.events).not.toContain("import");
  });

  it("--pick records the candidate a person confirmed; the rest is unchanged (no candidate: cleared)", async () => {
    const candidate = await endpoint("bravo", RUN_START + 1_000, "other");
    setup([], [pendingCreate("bravo"), pendingCreate("echo")], "stale", "unknown");
    const { report, error } = await recover({ picks: new Map([["bravo", candidate]]) });
    expect(error).toBeUndefined();
    expect(report!.recorded.map((r) => [r.resourceName, r.webhookId, r.how])).toEqual([
      ["bravo", candidate, "chosen with --pick"],
    ]);
    expect(report!.cleared.map((c) => c.resourceName)).toEqual(["echo"]);
    const bravo = importedResources().find((r) => r.urn.endsWith("::bravo"))!;
    expect(bravo.id).toBe(String(candidate));
  });

  it("no candidate at all: the pending create is cleared as before", async () => {
    setup([], [pendingCreate("echo")], "stale", "unknown");
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(report!.cleared.map((c) => c.resourceName)).toEqual(["echo"]);
    expect(report!.changed).toBe(true);
  });
});

describe("recover: a stack whose principal the state shows", () => {
  it("an endpoint another principal created in the window is never recorded, even as the only one with the name and URL", async () => {
    const persons = await endpoint("bravo", RUN_START + 1_000, "other");
    setup([], [pendingCreate("bravo")]);
    const { report, error, sink } = await recover();
    expect(error).toBeUndefined();
    expect(report!.window!.creators).toEqual([1001]);
    expect(report!.recorded).toEqual([]);
    expect(report!.ambiguous).toEqual([]);
    expect(report!.cleared.map((c) => c.resourceName)).toEqual(["bravo"]);
    expect(report!.cleared[0]!.reason).toContain(`endpoint ${persons} by creator 2002`);
    expect(importedResources().map((r) => r.id)).not.toContain(String(persons));
    expect(sink.out).toMatch(/someone else's, not taken/);
  });

  it("ours beside a person's with the same name and URL: ours is recorded, theirs is left alone", async () => {
    await endpoint("bravo", RUN_START + 1_000, "other");
    const ours = await endpoint("bravo", RUN_START + 2_000);
    await endpoint("bravo", RUN_START + 3_000, "other");
    setup([], [pendingCreate("bravo")]);
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([ours]);
  });
});

describe("recover: a service whose listing stops at its first page (a silent cap of 50, the paging position ignored)", () => {
  /** 60 endpoints made before the run, by someone else, named `name` (or `crowd-<i>`), then the cap. */
  function crowd(name?: (i: number) => string): void {
    now = RUN_START - HOUR;
    for (let i = 0; i < 60; i++)
      emulator.addRecord({
        webhook_name: name?.(i) ?? `crowd-${i}`,
        webhook_url: `https://example.com/crowd/${i}`,
      });
    now = RUN_START + 2 * HOUR;
    emulator.configure({ paging: "none", pageLimit: "ignored", defaultPageSize: 50, maxPageSize: 50 });
  }

  it("finds the endpoint a create made past the first page by listing its name, and records it (it was cleared as never sent)", async () => {
    crowd();
    const ours = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(report!.cleared).toEqual([]);
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([ours]);
  });

  it("a create whose name more than a page of endpoints share: neither recorded nor cleared on a listing that cannot tell; exits 5, nothing changed", async () => {
    crowd(() => "bravo");
    setup([], [pendingCreate("bravo")]);
    const { report, error, sink } = await recover();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(report).toBeUndefined();
    expect(stack.imported).toBeUndefined();
    expect(sink.out).toMatch(/whether its create reached the service cannot be told and it is not cleared/);
    expect(sink.out).toMatch(/ignores the paging position/);
    expect(sink.out).not.toMatch(/^Cleared/m);
  });
});

/** Outputs marking how a held resource's endpoint entered the stack. */
/** A resource reference, as a state holds one (what `stackRoot` is stored as). */
function rootReference(urn: string): Record<string, string> {
  return { [SIG_KEY]: "5cf8f73096256a8f31e491e813e4eb8e", urn, packageVersion: "" };
}

function entered(resource: StateResource, how: string, service = emulator.url): StateResource {
  return { ...resource, outputs: { ...resource.outputs, provenance: { how, service, stack: "shop/dev" } } };
}

describe("recover: what it recorded stays in the file backend's history", () => {
  it("writes the recovered state as a history checkpoint (stack import adds none), so orphans still sees an endpoint the next update drops", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    // The backend's own checkpoint of the stack, in the project layout.
    mkdirSync(join(stack.backend, ".pulumi", "stacks", "shop"), { recursive: true });
    writeFileSync(join(stack.backend, ".pulumi", "stacks", "shop", "dev.json"), "{}");
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([bravo]);
    const history = join(stack.backend, ".pulumi", "history", "shop", "dev");
    const files = readdirSync(history).filter((name) => name.endsWith(".checkpoint.json"));
    expect(files).toHaveLength(1);
    const checkpoint = JSON.parse(readFileSync(join(history, files[0]!), "utf8")) as {
      checkpoint: { latest: { resources: StateResource[] } };
    };
    expect(checkpoint.checkpoint.latest.resources.map((r) => r.id)).toContain(String(bravo));
    // No secret in plaintext there: what the backend held encrypted stays so.
    expect(readFileSync(join(history, files[0]!), "utf8")).not.toContain(
      emulator.records().find((r) => r.webhook_id === bravo)!.sign_secret,
    );
  });
});

describe("recover: the principal is learnt only from endpoints this stack created on that service", () => {
  // A stack holding only another team's endpoint (brought in by import, adopt
  // or --pick), killed during a create; that team then creates the same name and URL. Their creator
  // is not the stack's principal: nothing may be recorded unasked.
  for (const [label, held] of [
    [
      "imported (pulumi import, or the import option adopt prints)",
      (id: number) => entered(heldResource("theirs", id, 2002), "imported"),
    ],
    [
      "picked during an earlier recovery",
      (id: number) => entered(heldResource("theirs", id, 2002), "picked"),
    ],
    [
      "adopted, its adoptWebhookId since removed",
      (id: number) => entered(heldResource("theirs", id, 2002), "adopted"),
    ],
    [
      "held by a state of an earlier release (no provenance)",
      (id: number) => heldResource("theirs", id, 2002),
    ],
    [
      "created by the stack, but on another service",
      (id: number) => entered(heldResource("theirs", id, 2002), "created", "https://another-service.example"),
    ],
    // Moved in from another team's stack (`pulumi state move`): created, but by that stack, not this one.
    [
      "created by another stack and moved in (pulumi state move)",
      (id: number) => {
        const moved = heldResource("theirs", id, 2002);
        return {
          ...moved,
          outputs: {
            ...moved.outputs,
            provenance: { how: "created", service: emulator.url, stack: "platform/prod" },
          },
        };
      },
    ],
    // The same, recorded by this release: the reference to the root of the stack it entered names
    // that stack still (`pulumi state move` rewrites no property), whatever the URN says now.
    [
      "created by another stack of this project and moved in, its stackRoot naming that stack",
      (id: number) => {
        const moved = heldResource("theirs", id, 2002);
        return {
          ...moved,
          outputs: {
            ...moved.outputs,
            provenance: { how: "created", service: emulator.url, stack: "shop/staging" },
            stackRoot: rootReference("urn:pulumi:staging::shop::pulumi:pulumi:Stack::shop-staging"),
          },
        };
      },
    ],
  ] as const) {
    it(`another team's endpoint ${label} does not make their creator the stack's principal`, async () => {
      const theirsHeld = await endpoint("theirs", RUN_START - 24 * HOUR, "other");
      const candidate = await endpoint("hotel", RUN_START + 1_000, "other");
      setup([held(theirsHeld)], [pendingCreate("hotel")], "stale", "unknown");
      const { report, error, sink } = await recover();
      expect((error as CliError).exitCode).toBe(EXIT.refused);
      expect(report).toBeUndefined();
      expect(stack.imported).toBeUndefined();
      expect(stack.events).not.toContain("import");
      // Refused, naming the candidate and how a person may choose it.
      expect(sink.out).toContain(`endpoint ${candidate}, created`);
      expect(sink.out).toContain(`--pick hotel=${candidate}`);
      expect(sink.out).not.toMatch(/by creator 2002 \(the stack's principal\)/);
    });
  }

  it("an endpoint the stack created before `pulumi stack rename` still teaches it: its stackRoot was renamed with the stack", async () => {
    // Provenance names the stack as it was called then (shop/qa); the reference to its root is what
    // the engine rewrote to the stack's new name, shop/dev.
    const earlier = await endpoint("india", RUN_START - 24 * HOUR);
    const ours = await endpoint("juliet", RUN_START + 1_000);
    await endpoint("juliet", RUN_START + 2_000, "other");
    const held = heldResource("india", earlier, 1001);
    setup(
      [
        {
          ...held,
          outputs: {
            ...held.outputs,
            provenance: { how: "created", service: emulator.url, stack: "shop/qa" },
            stackRoot: rootReference("urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev"),
          },
        },
      ],
      [pendingCreate("juliet")],
      "stale",
      "unknown",
    );
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(report!.services).toEqual([{ service: emulator.url, creators: [1001], pendingCreates: 1 }]);
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([ours]);
  });

  it("an endpoint the stack created on that service does teach it: ours is recorded", async () => {
    const earlier = await endpoint("india", RUN_START - 24 * HOUR);
    const ours = await endpoint("juliet", RUN_START + 1_000);
    setup(
      [entered(heldResource("india", earlier, 1001), "created")],
      [pendingCreate("juliet")],
      "stale",
      "unknown",
    );
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(report!.services).toEqual([{ service: emulator.url, creators: [1001], pendingCreates: 1 }]);
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([ours]);
  });

  /** The home configuration with the stack config's token and `webhooks:principalId` set to `principalId`. */
  const homeClaiming = (principalId: string) => async () => ({
    ...(await HOME()),
    config: stackConfig(
      (key) =>
        ({
          "webhooks:baseUrl": emulator.url,
          "webhooks:accessToken": TOKEN,
          "webhooks:principalId": principalId,
        })[key],
    ),
  });

  it("a principalId in the stack's configuration that the state's facts agree with decides the principal", async () => {
    const earlier = await endpoint("india", RUN_START - 24 * HOUR);
    const ours = await endpoint("lima", RUN_START + 1_000);
    await endpoint("lima", RUN_START + 2_000, "other");
    setup(
      [entered(heldResource("india", earlier, 1001), "created")],
      [pendingCreate("lima")],
      "stale",
      "unknown",
    );
    const { report, error } = await recover({}, { home: homeClaiming("1001") });
    expect(error).toBeUndefined();
    expect(report!.services).toEqual([{ service: emulator.url, creators: [1001], pendingCreates: 1 }]);
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([ours]);
  });

  it("a principalId the state's facts contradict is refused, naming both, before anything is changed (facts before claims)", async () => {
    // The state records that this stack created kilo, by creator 2002; the configuration claims 1001.
    // A mistyped principalId would otherwise record another team's endpoint (lima by 2002 is not
    // the stack's) and clear the killed run's own.
    const answered = await endpoint("kilo", RUN_START - 23 * HOUR, "other");
    await endpoint("lima", RUN_START + 1_000);
    await endpoint("lima", RUN_START + 2_000, "other");
    for (const claimed of ["1001", "7"]) {
      setup(
        [entered(heldResource("kilo", answered, 2002), "created")],
        [pendingCreate("lima")],
        "stale",
        "unknown",
      );
      const { report, error } = await recover({}, { home: homeClaiming(claimed) });
      expect((error as CliError).exitCode, claimed).toBe(EXIT.refused);
      expect(report).toBeUndefined();
      const message = (error as CliError).message;
      expect(message).toContain(`stack config webhooks:principalId is ${claimed}`);
      expect(message).toContain(
        `endpoint ${answered} (resource urn:pulumi:dev::shop::${DYNAMIC_TYPE}::kilo)`,
      );
      expect(message).toContain("as created by creator 2002");
      expect(message).toContain("nothing was changed");
      expect(message).toContain("`pulumi config set webhooks:principalId 2002`");
      // Refused before any effect: no lock released, no host stopped, nothing listed or imported.
      expect(stack.events.filter((e) => !e.startsWith("export"))).toEqual([]);
    }
  });

  it("with nothing to recover, a principalId the state's facts contradict is still said, naming both, and nothing changes", async () => {
    // The next preview or up refuses it (docs/configuration.md, principalId); recover, asked first
    // after a failed run, must not let the operator believe the stack is in order.
    const answered = await endpoint("kilo", RUN_START - 23 * HOUR, "other");
    setup([entered(heldResource("kilo", answered, 2002), "created")], [], "none", "unknown");
    const { report, error, sink } = await recover({}, { home: homeClaiming("1001") });
    expect(error).toBeUndefined();
    expect(report!.changed).toBe(false);
    expect(sink.err).toContain("stack config webhooks:principalId is 1001");
    expect(sink.err).toContain("as created by creator 2002");
    expect(sink.err).toContain("`pulumi config set webhooks:principalId 2002`");
    expect(sink.out).toContain("Nothing to recover");
    // Agreeing with the facts, it says nothing of the principal.
    const agreeing = await recover({}, { home: homeClaiming("2002") });
    expect(agreeing.sink.err).not.toContain("principalId");
  });

  it("a pending create whose service cannot be told is not looked for, and no claim is checked for it", async () => {
    const op = pendingCreate("papa", { face: "native" });
    setup(
      [],
      [
        {
          ...op,
          resource: {
            ...op.resource,
            provider: "urn:pulumi:dev::shop::pulumi:providers:webhooks::gone::9999",
          },
        },
      ],
    );
    const { report, error } = await recover({}, { home: homeClaiming("7") });
    expect(error).toBeUndefined();
    expect(report!.cleared.map((c) => c.reason)).toEqual([
      expect.stringMatching(/^not looked for: which service it was sent to cannot be told: its provider/),
    ]);
    expect(stack.events).not.toContain("list");
  });

  it("endpoints the stack created there by two creators (one taken from a service's answer) teach no principal: a person chooses", async () => {
    const earlier = await endpoint("india", RUN_START - 24 * HOUR);
    const answered = await endpoint("kilo", RUN_START - 23 * HOUR, "other");
    const candidate = await endpoint("juliet", RUN_START + 1_000);
    // Theirs first in the state: the creators are named in order all the same.
    setup(
      [
        entered(heldResource("kilo", answered, 2002), "created"),
        entered(heldResource("india", earlier, 1001), "created"),
      ],
      [pendingCreate("juliet")],
      "stale",
      "unknown",
    );
    const { report, error, sink } = await recover();
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(report).toBeUndefined();
    expect(stack.events).not.toContain("import");
    expect(sink.out).toContain(`endpoint ${candidate}, created`);
    expect(sink.out).toMatch(/name more than one creator \(1001, 2002/);
  });
});

describe("recover: each pending create is judged on the service it was sent to", () => {
  const EU_TOKEN = "eu_service_token_61c0d9";
  let eu: Emulator;
  let euClient: WebhooksClient;
  beforeEach(async () => {
    eu = await startEmulator({ accessToken: EU_TOKEN, now: () => now });
    euClient = new WebhooksClient({ baseUrl: eu.url, accessToken: EU_TOKEN, maxRetries: 0 });
  });
  afterEach(async () => {
    await euClient.close();
    await eu.close();
  });

  /** An explicit provider `eu` in state, its token a secret, and a native resource it serves. */
  function euProvider(): StateResource {
    return {
      urn: "urn:pulumi:dev::shop::pulumi:providers:webhooks::eu",
      id: "5555-6666",
      custom: true,
      type: "pulumi:providers:webhooks",
      inputs: { baseUrl: eu.url, accessToken: ciphertext(EU_TOKEN) },
      outputs: { baseUrl: eu.url, accessToken: ciphertext(EU_TOKEN) },
    };
  }
  const EU_REF = "urn:pulumi:dev::shop::pulumi:providers:webhooks::eu::5555-6666";
  function onEu<T extends object>(resource: T): T {
    return { ...resource, provider: EU_REF };
  }

  async function euEndpoint(name: string, at: number): Promise<number> {
    now = at;
    try {
      return (
        await euClient.create(
          { webhookName: name, webhookUrl: `https://example.com/hooks/${name}` },
          { allowDuplicate: true },
        )
      ).record.webhookId;
    } finally {
      now = RUN_START + 2 * HOUR;
    }
  }

  it("a create that reached the second service is found there (with that provider's token), not cleared as never sent", async () => {
    const earlierEu = await euEndpoint("kilo-earlier", RUN_START - 24 * HOUR);
    const made = await euEndpoint("lima", RUN_START + 1_000);
    const op = pendingCreate("lima", { face: "native" });
    setup(
      [
        euProvider(),
        entered(
          onEu({ ...heldResource("kilo-earlier", earlierEu, 1001), type: "webhooks:index:WebhookEndpoint" }),
          "created",
          eu.url,
        ),
      ],
      [{ ...op, resource: onEu(op.resource) }],
    );
    const opened: string[] = [];
    const sink = memorySink();
    const found: string[] = [];
    const report = await runRecover(
      {
        client: tracedClient(),
        home: HOME,
        open: (options) => {
          opened.push(options.baseUrl);
          return new WebhooksClient(options);
        },
        onSecrets: (secrets) => found.push(...secrets),
        pulumi: stack.pulumi(),
        sink,
        cwd: stack.project,
        processes: machine,
        now: () => RUN_START + 3 * HOUR,
        sleep: async () => undefined,
      },
      { yes: true, dryRun: false, json: false, progress: false, releaseLock: false, picks: new Map() },
    );
    expect(opened).toEqual([eu.url]);
    expect(found).toContain(EU_TOKEN);
    expect(report.recorded.map((r) => r.webhookId)).toEqual([made]);
    expect(report.cleared).toEqual([]);
    const lima = importedResources().find((r) => r.urn.endsWith("::lima"))!;
    expect(lima.id).toBe(String(made));
    expect(lima.outputs!.provenance).toEqual({
      how: "created",
      service: eu.url,
      stack: "shop/dev",
      recovered: true,
    });
    // Its listing was the second service's: the first service was not asked for it.
    expect(emulator.counters().list).toBe(0);
    for (const secret of [EU_TOKEN, TOKEN])
      expect(sink.out + sink.err + JSON.stringify(report)).not.toContain(secret);
  });

  it("ids held on one service do not hide the other service's endpoint with the same id, nor lend it a principal", async () => {
    // The first service holds id 1 for the stack (created there); on the second service id 1 is
    // another team's "mike", and the stack's own "mike" is id 2.
    const firstHeld = await endpoint("november", RUN_START - 24 * HOUR);
    expect(firstHeld).toBe(1);
    await euEndpoint("mike", RUN_START + 500);
    const ours = await euEndpoint("mike", RUN_START + 1_000);
    expect(ours).toBe(2);
    const op = pendingCreate("mike", { face: "native" });
    setup(
      [euProvider(), entered(heldResource("november", firstHeld, 1001), "created")],
      [{ ...op, resource: onEu(op.resource) }],
      "stale",
      "unknown",
    );
    const { error, sink } = await recover();
    // No endpoint the stack created on the second service: its principal there is unknown, so both
    // candidates are shown to a person, id 1 included (held only on the first service).
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(sink.out).toContain("endpoint 1, created");
    expect(sink.out).toContain("endpoint 2, created");
    expect(stack.imported).toBeUndefined();
    // The adopt it suggests looks the id up on the second service, not on the one the project
    // configures (where id 1 is the stack's own november): read back by a POSIX shell.
    const adopts = sink.out.split("\n").filter((line) => line.includes("webhooks adopt"));
    expect(adopts).toHaveLength(2);
    for (const [line, id] of adopts.map((l, i) => [l, i + 1] as const)) {
      const command = line.slice(line.indexOf("webhooks adopt"));
      const words = execFileSync("sh", ["-c", `for a in ${command}; do printf '%s\\n' "$a"; done`], {
        encoding: "utf8",
      })
        .trimEnd()
        .split("\n");
      expect(words).toEqual([
        "webhooks",
        "adopt",
        "--id",
        String(id),
        "--base-url",
        eu.url,
        "--resource-name",
        "mike",
      ]);
      expect(line).toContain("WEBHOOKS_ACCESS_TOKEN set to the token of the provider that sent it");
    }
  });

  it("a second service whose base URL the state holds secret: the adopt hint points there without showing it", async () => {
    await euEndpoint("oscar", RUN_START + 500);
    await euEndpoint("oscar", RUN_START + 1_000);
    const op = pendingCreate("oscar", { face: "native" });
    const provider = euProvider();
    setup(
      [
        {
          ...provider,
          inputs: { ...provider.inputs, baseUrl: ciphertext(eu.url) },
          outputs: { ...provider.outputs, baseUrl: ciphertext(eu.url) },
        },
      ],
      [{ ...op, resource: onEu(op.resource) }],
      "stale",
      "unknown",
    );
    const { error, sink } = await recover();
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    const adopts = sink.out.split("\n").filter((line) => line.includes("webhooks adopt"));
    expect(adopts).toHaveLength(2);
    for (const line of adopts) {
      expect(line).not.toContain("--base-url");
      expect(line).toMatch(
        /WEBHOOKS_BASE_URL and WEBHOOKS_ACCESS_TOKEN set to the base URL \(held secret, not shown\)/,
      );
    }
    expect(sink.out + sink.err).not.toContain(eu.url.replace(/^http:\/\//, ""));
  });
});

describe("recover: locks, windows and refusals", () => {
  it("a lock held by a running pulumi: refuses (5), nothing changed", async () => {
    setup([], [pendingCreate("bravo")], "live");
    const { error } = await recover();
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect((error as CliError).message).toMatch(/still going/);
    expect(stack.events).toEqual(["export", "export --show-secrets"]);
  });

  it("a lock taken on another machine: refuses (5) unless --release-lock", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")], "elsewhere");
    const refused = await recover();
    expect((refused.error as CliError).exitCode).toBe(EXIT.refused);
    expect((refused.error as CliError).message).toMatch(/--release-lock/);
    const released = await recover({ releaseLock: true });
    expect(released.report!.recorded.map((r) => r.webhookId)).toEqual([bravo]);
    expect(released.report!.lock!.released).toBe(true);
  });

  it("no lock: the window starts at the end of the last recorded update; with no history either it needs --since", async () => {
    const early = await endpoint("bravo", RUN_START - 30 * 60_000);
    setup([], [pendingCreate("bravo")], "none");
    const refused = await recover();
    expect((refused.error as CliError).exitCode).toBe(EXIT.refused);
    expect((refused.error as CliError).message).toMatch(/--since/);

    stack.history = [
      {
        kind: "update",
        startTime: "2026-03-04T08:00:00.000Z",
        endTime: "2026-03-04T09:00:00.000Z",
        result: "succeeded",
      },
    ];
    const fromHistory = await recover();
    expect(fromHistory.report!.window!.source).toMatch(/end of the last recorded update/);
    expect(fromHistory.report!.recorded.map((r) => r.webhookId)).toEqual([early]);
    expect(stack.events).not.toContain("cancel");
  });

  it("a lock the backend reports only when importing (not a local directory): released when its process is gone, then imported", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")], "none");
    stack.backendUrl = "s3://bucket/state";
    stack.history = [{ kind: "update", endTime: "2026-03-04T09:00:00.000Z", result: "succeeded" }];
    stack.importFailures.push(
      "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n  s3://bucket/state/.pulumi/locks/organization/shop/dev/x.json: created by ci@ci-runner-7 (pid 999) at 2026-03-04T10:00:00Z\n",
    );
    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(stack.events.filter((e) => e !== "list")).toEqual([
      "export",
      "export --show-secrets",
      "export",
      "import",
      "cancel",
      "import",
      "export",
    ]);
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([bravo]);
  });

  it("pulumi's refusal to import, quoting the state it was given, shows none of that state's secrets", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    // The state piped to `pulumi stack import` holds the recorded endpoint's sign secret in plaintext.
    const secret = emulator.records().find((r) => r.webhook_id === bravo)!.sign_secret;
    stack.importFailures.push(`error: could not import: unexpected value "${secret}" in resource bravo\n`);
    const { error } = await recover();
    expect((error as CliError).message).toMatch(/writing the recovered state failed .*unexpected value/);
    expect((error as CliError).message).not.toContain(secret);
  });

  it("pulumi's refusal to import shows no part of a secret its shown text is cut inside", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    const secret = emulator.records().find((r) => r.webhook_id === bravo)!.sign_secret;
    // pulumi's text is shown up to 1,200 bytes: the secret starts just before that.
    const before = "error: could not import: ";
    stack.importFailures.push(`${before}${"x".repeat(1180 - before.length)}${secret} more from pulumi\n`);
    const { error } = await recover();
    const message = (error as CliError).message;
    expect(message).toMatch(/writing the recovered state failed/);
    expect(message).toContain("xxxxxxxx");
    for (let n = 8; n <= secret.length; n++) expect(message).not.toContain(secret.slice(0, n));
  });

  it("a state that changed while recover ran is not overwritten (5)", async () => {
    await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    const pulumi = stack.pulumi();
    let exports = 0;
    const racing = {
      run: async (args: readonly string[], options?: { input?: string; cwd?: string }) => {
        const result = await pulumi.run(args, options);
        if (
          args[0] === "stack" &&
          args[1] === "export" &&
          !args.includes("--show-secrets") &&
          ++exports === 2
        )
          return { ...result, stdout: exportText(baseResources(), []) };
        return result;
      },
    };
    const error = await runRecover(
      {
        client: tracedClient(),
        home: HOME,
        pulumi: racing,
        sink: memorySink(),
        cwd: stack.project,
        processes: machine,
        sleep: async () => undefined,
      },
      { yes: true, dryRun: false, json: false, progress: false, releaseLock: false, picks: new Map() },
    ).catch((e: unknown) => e);
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect((error as CliError).message).toMatch(/changed while recover ran/);
    expect(stack.events).not.toContain("import");
  });

  it("pending creates of other resources: refuses (5), since the import would drop them", async () => {
    const foreign = {
      type: "creating",
      resource: {
        urn: "urn:pulumi:dev::shop::aws:s3/bucket:Bucket::logs",
        type: "aws:s3/bucket:Bucket",
        custom: true,
      },
    };
    setup([], [pendingCreate("bravo"), foreign]);
    const { error } = await recover();
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect((error as CliError).message).toMatch(/aws:s3\/bucket:Bucket::logs/);
    expect(stack.events).toEqual(["export", "export --show-secrets"]);
  });

  it("nothing pending and no lock: says so and changes nothing", async () => {
    setup([heldResource("alpha", 1, 1001)], [], "none");
    const { report, sink } = await recover();
    expect(report!.changed).toBe(false);
    expect(sink.out).toMatch(/Nothing to recover/);
    expect(stack.events).toEqual(["export", "export --show-secrets"]);
  });

  it("--json prints the report for scripts", async () => {
    await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    const { sink } = await recover({ json: true });
    const parsed = JSON.parse(sink.out) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual([
      "ambiguous",
      "changed",
      "cleared",
      "droppedOperations",
      "dryRun",
      "lock",
      "pendingCreates",
      "project",
      "providers",
      "recorded",
      "repaired",
      "services",
      "stack",
      "window",
    ]);
    expect(parsed.repaired).toBeNull();
  });
});

describe("recover: a checkpoint the killed run left unreadable (file backend)", () => {
  it("removes the empty metadata file so the stack loads, then recovers; a dry run only reads the checkpoint", async () => {
    const bravo = await endpoint("bravo", RUN_START + 1_000);
    setup([], [pendingCreate("bravo")]);
    stack.breakCheckpoint();
    const dry = await recover({ dryRun: true });
    expect(dry.error).toBeUndefined();
    expect(dry.report!.repaired!.file).toBe(stack.attrsFile);
    expect(dry.report!.recorded.map((r) => r.webhookId)).toEqual([bravo]);
    expect(existsSync(stack.attrsFile)).toBe(true);
    expect(dry.sink.out).toMatch(/would remove/);

    const { report, error } = await recover();
    expect(error).toBeUndefined();
    expect(existsSync(stack.attrsFile)).toBe(false);
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([bravo]);
    expect(report!.changed).toBe(true);
  });

  it("does not touch it while a live run holds the lock", async () => {
    setup([], [pendingCreate("bravo")], "live");
    stack.breakCheckpoint();
    const { error } = await recover();
    expect((error as CliError).exitCode).toBe(EXIT.refused);
    expect(existsSync(stack.attrsFile)).toBe(true);
  });
});

describe("recover: a replacement's create", () => {
  it("records the new endpoint and marks the old resource of the same URN for deletion, as the engine would", async () => {
    const old = await endpoint("kilo", RUN_START - 24 * HOUR);
    now = RUN_START + 1_000;
    const replacement = await endpoint("kilo", RUN_START + 1_000);
    const pending = pendingCreate("kilo", { inputs: { webhookUrl: "https://example.com/hooks/kilo" } });
    setup([heldResource("kilo", old, 1001)], [pending]);
    const { report } = await recover();
    expect(report!.recorded.map((r) => r.webhookId)).toEqual([replacement]);
    const kilo = importedResources().filter((r) => r.urn.endsWith("::kilo"));
    expect(kilo.map((r) => [r.id, r.delete])).toEqual([
      [String(old), true],
      [String(replacement), undefined],
    ]);
  });
});

describe("recover: the recorded resource", () => {
  it("keeps what the pending operation had and adds the ID and the outputs the create would have returned", () => {
    const op = pendingCreate("bravo", { inputs: { webhookName: "bravo" } });
    const [pending] = pendingCreates({ pending_operations: [op] }).ours;
    const record = {
      webhookId: 9,
      webhookName: "bravo",
      webhookUrl: "https://example.com/hooks/bravo/",
      signSecret: "s3cr3t-value",
      creatorId: 1,
      creatorName: "a",
      createTime: 5,
      operatorId: 1,
      operatorName: "a",
      operateTime: 5,
    };
    const resource = recordedResource(pending!, record, new Date(0), {
      how: "created",
      service: "https://api.example.com",
      stack: "shop/dev",
      recovered: true,
    });
    expect(resource).toMatchObject({
      urn: op.resource.urn,
      parent: op.resource.parent,
      provider: op.resource.provider,
      inputs: op.resource.inputs,
      id: "9",
    });
    // The service stored another form of the URL: the declared one is remembered, as create does,
    // and kept secret as the dynamic face keeps it (it may hold a value the program marked secret).
    expect(resource.outputs!.declared).toEqual({
      [SIG_KEY]: SECRET_SIG,
      plaintext: JSON.stringify({ webhookName: "bravo", webhookUrl: "https://example.com/hooks/bravo" }),
    });
    expect(resource.outputs!.provenance).toEqual({
      how: "created",
      service: "https://api.example.com",
      stack: "shop/dev",
      recovered: true,
    });
    expect(resource.outputs!.signSecret).toEqual({
      [SIG_KEY]: SECRET_SIG,
      plaintext: JSON.stringify("s3cr3t-value"),
    });
  });
});
