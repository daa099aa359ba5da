import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main";
import { memorySink } from "../../src/cli/output/output";
import {
  createDynamicProvider,
  EndpointCreatedButFailedError,
  type WebhookEndpointOutputs,
} from "../../src/dynamic/provider";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runShellCommands } from "../cli/consumers";
import { fakePulumi } from "../cli/helpers";
import { TOKEN, captureError } from "../support/helpers";

/**
 * The provider's promises against other actors and against a service that rewrites what it
 * stores, through the dynamic provider's methods (docs/lifecycle.md, "Operations" and "Stored
 * forms": an existing endpoint is neither taken nor duplicated; repeated runs never create a
 * second endpoint for one resource; nothing is shared between connections).
 */
function configured(url: string) {
  const provider = createDynamicProvider();
  void provider.configure({
    config: {
      get: (key: string) => ({ "webhooks:baseUrl": url, "webhooks:accessToken": TOKEN })[key],
      require: () => "",
    },
  });
  return provider;
}

/** One `pulumi up` of one resource, as the engine drives the provider: diff if it exists, else create. */
async function up(
  provider: ReturnType<typeof createDynamicProvider>,
  state: { id: string; outs: WebhookEndpointOutputs } | undefined,
  inputs: { webhookName: string; webhookUrl: string },
): Promise<{ id: string; outs: WebhookEndpointOutputs }> {
  if (state !== undefined) {
    const diff = await provider.diff(state.id, state.outs, inputs);
    if (!diff.changes) return state;
    if (diff.replaces?.length) throw new Error(`would replace: ${diff.replaces.join(", ")}`);
    return {
      id: state.id,
      outs: (await provider.update(state.id, state.outs, inputs)).outs as WebhookEndpointOutputs,
    };
  }
  try {
    const created = await provider.create(inputs);
    return { id: created.id, outs: created.outs as WebhookEndpointOutputs };
  } catch (error) {
    // The engine records an endpoint that was created but failed afterwards, with these outputs.
    if (error instanceof EndpointCreatedButFailedError)
      return { id: error.id, outs: error.properties as unknown as WebhookEndpointOutputs };
    throw error;
  }
}

describe("an endpoint that already exists is neither taken nor duplicated", () => {
  // A fresh service per test: injected faults never spill from one test into the next.
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("a hand-made endpoint with the declared name and URL makes create fail naming it and how to adopt it, creating nothing", async () => {
    const handMade = emulator.addRecord({
      webhook_name: "payments",
      webhook_url: "https://hooks.example.com/payments",
    });
    const provider = configured(emulator.url);
    const creates = emulator.counters().create;
    const error = (await captureError(
      provider.create({ webhookName: "payments", webhookUrl: "https://hooks.example.com/payments" }),
    )) as Error;
    expect(error.message).toContain(`id ${handMade.webhook_id}`);
    expect(error.message).toContain(`adoptWebhookId: ${handMade.webhook_id}`);
    // The hint names the CLI as a user of any language runs it (no npx: YAML and Go users have no package.json).
    expect(error.message).toContain("`webhooks recover`");
    expect(error.message).not.toContain("npx");
    expect(error.message).not.toContain(handMade.sign_secret);
    expect(emulator.counters().create).toBe(creates);
    // A stack whose state was lost is the same case: its next up fails the same way, never duplicates.
    const again = (await captureError(
      provider.create({ webhookName: "payments", webhookUrl: "https://hooks.example.com/payments" }),
    )) as Error;
    expect(again.message).toContain(`id ${handMade.webhook_id}`);
    expect(emulator.records().filter((r) => r.webhook_name === "payments")).toHaveLength(1);
  });

  it("a failed create (500, nothing processed) does not settle on someone else's endpoint", async () => {
    // The other endpoint appears while our create is being refused: not ours, never taken.
    const provider = configured(emulator.url);
    emulator.injectNext("create", "server-error", 5);
    const attempt = captureError(
      provider.create({ webhookName: "ledger", webhookUrl: "https://hooks.example.com/ledger" }),
    );
    while (
      !emulator
        .requests()
        .some((r) => r.route === "create" && (r.body as { webhook_name?: string })?.webhook_name === "ledger")
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const theirs = emulator.addRecord({
      webhook_name: "ledger",
      webhook_url: "https://hooks.example.com/ledger",
    });
    const outcome = await attempt;
    // Either an honest failure, or (if the retries outlast the refusals) a refusal naming theirs;
    // never their id as ours.
    expect(outcome).toBeInstanceOf(Error);
    expect(
      emulator
        .records()
        .filter((r) => r.webhook_name === "ledger")
        .map((r) => r.webhook_id),
    ).toEqual([theirs.webhook_id]);
  }, 30_000);

  it("an uncertain create says which endpoints may be ours, that a re-run will not duplicate, and how to adopt", async () => {
    const provider = configured(emulator.url);
    emulator.injectNext("create", "drop-after-commit");
    emulator.injectNext("list", "server-error", 4, { after: 1 });
    const error = (await captureError(
      provider.create({ webhookName: "uncertain", webhookUrl: "https://example.com/uncertain" }),
    )) as Error;
    expect(error.message).toMatch(/may exist/);
    expect(error.message).toMatch(/will not create a duplicate/);
    expect(error.message).toMatch(/adoptWebhookId/);
    const orphan = emulator.records().find((r) => r.webhook_name === "uncertain")!;
    // The re-run the message promises: refused with the orphan's id, not a second endpoint.
    const rerun = (await captureError(
      provider.create({ webhookName: "uncertain", webhookUrl: "https://example.com/uncertain" }),
    )) as Error;
    expect(rerun.message).toContain(`adoptWebhookId: ${orphan.webhook_id}`);
    expect(emulator.records().filter((r) => r.webhook_name === "uncertain")).toHaveLength(1);
  });

  it("the list command an uncertain create suggests, pasted into a shell, lists the endpoint it may have made", async () => {
    // A name a shell would otherwise split, expand or glob, and zsh expand for its leading `=`.
    const name = "=orders it's $home; *";
    const provider = configured(emulator.url);
    emulator.injectNext("create", "drop-after-commit");
    emulator.injectNext("list", "server-error", 4, { after: 1 });
    const error = (await captureError(
      provider.create({ webhookName: name, webhookUrl: "https://example.com/uncertain" }),
    )) as Error;
    const command = /`(webhooks list [^`]*)`/.exec(error.message)?.[1];
    expect(command, error.message).toBeDefined();
    const calls = runShellCommands(command!, "webhooks");
    expect(calls).toEqual([["list", "--name", name]]);
    // The CLI, given those arguments, lists the endpoint the dropped create made, and only it.
    const cwd = mkdtempSync(join(tmpdir(), "webhooks-trust-"));
    try {
      const sink = memorySink();
      const code = await main([...calls[0]!, "--json"], {
        sink,
        env: { WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
        cwd,
        pulumi: fakePulumi({}, { missing: true }),
      });
      expect(code, sink.err).toBe(0);
      const made = emulator.records().filter((r) => r.webhook_name === name);
      expect(made).toHaveLength(1);
      expect(
        (JSON.parse(sink.out) as { endpoints: { webhookId: number }[] }).endpoints.map((e) => e.webhookId),
      ).toEqual([made[0]!.webhook_id]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("a service that rewrites what it stores converges: one endpoint per declared resource", () => {
  it.each([
    { profile: "rewriting", name: "Hook", url: "HTTPS://Example.COM/hook", converges: "silently" },
    {
      profile: "rewriting",
      name: " padded",
      url: "https://example.com/padded",
      converges: "refused by check",
    },
    {
      profile: "rewriting-lowercase",
      name: "Orders",
      url: "https://example.com/Orders/Path",
      converges: "after one failed run",
    },
  ])("$profile: $name at $url ($converges)", async ({ profile, name, url, converges }) => {
    const emulator = await startEmulator({ accessToken: TOKEN, profile });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const provider = configured(emulator.url);
      const inputs = { webhookName: name, webhookUrl: url };
      const check = await provider.check({} as never, inputs);
      if (converges === "refused by check") {
        expect(check.failures?.map((f) => f.property)).toEqual(["webhookName"]);
        return;
      }
      expect(check.failures).toBeUndefined();
      let state: { id: string; outs: WebhookEndpointOutputs } | undefined;
      for (let run = 0; run < 3; run++) state = await up(provider, state, inputs);
      expect(emulator.records()).toHaveLength(1);
      expect(emulator.counters().create).toBe(1);
      // The outputs are what the service stores.
      expect(state!.outs.webhookUrl).toBe(emulator.records()[0]!.webhook_url);
      // Refresh then diff still see no change.
      const read = await provider.read(state!.id, state!.outs);
      expect(await provider.diff(state!.id, read.props as WebhookEndpointOutputs, inputs)).toMatchObject({
        changes: false,
      });
    } finally {
      log.mockRestore();
      await emulator.close();
    }
  });

  it("check refuses what cannot be stored faithfully, showing the form to declare", async () => {
    const provider = configured("http://127.0.0.1:9");
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ webhookName: "a\u200bb", webhookUrl: "https://example.com/a" }, "webhookName", /invisible.*"ab"/],
      [{ webhookName: "a\u202eb", webhookUrl: "https://example.com/a" }, "webhookName", /invisible/],
      [{ webhookName: "e\u0301", webhookUrl: "https://example.com/a" }, "webhookName", /normal form C.*"é"/],
      [{ webhookName: "a", webhookUrl: "https://example.com\\hooks" }, "webhookUrl", /backslash/],
      [{ webhookName: "a", webhookUrl: "https://example.com/a#frag" }, "webhookUrl", /fragment/],
      [
        { webhookName: "a", webhookUrl: "https://example.com/a/../b" },
        "webhookUrl",
        /declare "https:\/\/example.com\/b"/,
      ],
      [
        { webhookName: "a", webhookUrl: "https://bücher.example/a" },
        "webhookUrl",
        /declare "https:\/\/xn--bcher-kva.example\/a"/,
      ],
      [
        { webhookName: "a", webhookUrl: "https://example.com/ä" },
        "webhookUrl",
        /declare "https:\/\/example.com\/%C3%A4"/,
      ],
      [{ webhookName: "a", webhookUrl: "https://exa\u200bmple.com/a" }, "webhookUrl", /invisible/],
    ];
    for (const [news, property, says] of cases) {
      const result = await provider.check({} as never, news as never);
      const reasons = (result.failures ?? [])
        .filter((f) => f.property === property)
        .map((f) => f.reason)
        .join(" | ");
      expect(reasons, JSON.stringify(news)).toMatch(says);
    }
    // Forms every reader stores the same way are accepted.
    for (const url of [
      "HTTPS://Example.COM/hook",
      "https://example.com:443/hook",
      "https://example.com",
      "https://example.com/a?b=c",
    ]) {
      expect(
        (await provider.check({} as never, { webhookName: "a", webhookUrl: url })).failures,
        url,
      ).toBeUndefined();
    }
  });
});

describe("nothing the provider remembers is shared between connections", () => {
  it("two services holding the same ids: a read on one never answers a diff on the other", async () => {
    const east = await startEmulator({ accessToken: TOKEN });
    const west = await startEmulator({ accessToken: TOKEN });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const eastRecord = east.addRecord({ webhook_name: "shared", webhook_url: "https://example.com/east" });
      const westRecord = west.addRecord({ webhook_name: "shared", webhook_url: "https://example.com/west" });
      expect(eastRecord.webhook_id).toBe(westRecord.webhook_id);
      const id = String(eastRecord.webhook_id);
      const provider = configured("http://127.0.0.1:9");
      const eastOuts = (
        await provider.create({
          webhookName: "shared",
          webhookUrl: "https://example.com/east",
          adoptWebhookId: eastRecord.webhook_id,
          connection: { baseUrl: east.url, accessToken: TOKEN },
        })
      ).outs as WebhookEndpointOutputs;
      const westOuts = (
        await provider.create({
          webhookName: "shared",
          webhookUrl: "https://example.com/west",
          adoptWebhookId: westRecord.webhook_id,
          connection: { baseUrl: west.url, accessToken: TOKEN },
        })
      ).outs as WebhookEndpointOutputs;
      // Refresh reads east's endpoint; then west's endpoint (same id) is removed on west.
      await provider.read(id, eastOuts);
      west.removeRecord(westRecord.webhook_id);
      const westDiff = await provider.diff(id, westOuts, {
        webhookName: "shared",
        webhookUrl: "https://example.com/west",
        adoptWebhookId: westRecord.webhook_id,
        connection: { baseUrl: west.url, accessToken: TOKEN },
      });
      expect(westDiff.replaces).toEqual(["webhookId"]);
      const eastDiff = await provider.diff(id, eastOuts, {
        webhookName: "shared",
        webhookUrl: "https://example.com/east",
        adoptWebhookId: eastRecord.webhook_id,
        connection: { baseUrl: east.url, accessToken: TOKEN },
      });
      expect(eastDiff).toMatchObject({ changes: false });
    } finally {
      log.mockRestore();
      await east.close();
      await west.close();
    }
  });
});
