// A listing that cannot prove absence never concludes absence (docs/reliability.md, "Facts before
// claims"; docs/lifecycle.md). On a service that caps its pages without saying so and ignores the
// paging position (the emulator's page-cap profile: the first 50 records of a filter, whatever
// cursor and limit ask), an endpoint past the first 50 cannot be told from a deleted one by a full
// listing: refresh keeps it and warns, import and adopt say the listing may be incomplete and how
// to narrow it, and diff replaces nothing on a guess. Where a listing proves itself complete (a
// name or URL only a few endpoints share), everything works as on any service.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN, captureError } from "../support/helpers";

const CAP = 50;

describe("a service with a silent page cap, holding more endpoints than one page", () => {
  let emulator: Emulator;
  let warnings: string[];
  let notices: string[];
  let core: ProviderCore;

  beforeEach(async () => {
    emulator = await startEmulator({ accessToken: TOKEN, profile: "page-cap" });
    // 80 endpoints of other teams, before the stack's.
    for (let i = 1; i <= 80; i++)
      emulator.addRecord({ webhook_name: `team-${i}`, webhook_url: `https://example.com/team/${i}` });
    warnings = [];
    notices = [];
    core = new ProviderCore({
      face: "dynamic",
      env: {},
      notify: (message) => notices.push(message),
      warn: (message) => warnings.push(message),
    });
    core.configure({
      values: { baseUrl: emulator.url, accessToken: TOKEN },
      describe: (name) => name,
      howToSet: (name) => name,
    });
  });
  afterEach(async () => {
    await core.close();
    await emulator.close();
  });

  async function ours(name = "orders"): Promise<{ id: string; state: WebhookEndpointOutputs }> {
    return core.create({ webhookName: name, webhookUrl: `https://example.com/hooks/${name}` });
  }

  it("refresh of an endpoint renamed and re-pointed on the service's console keeps it, and warns why", async () => {
    const { id, state } = await ours();
    expect(Number(id)).toBeGreaterThan(CAP);
    emulator.updateRecord(Number(id), { webhook_name: "orders-v2", webhook_url: "https://example.com/v2" });
    const read = await core.read(id, state);
    // Kept as the state held it: nothing proves it gone.
    expect(read).toBeDefined();
    expect(read!.id).toBe(id);
    expect(read!.state).toEqual(state);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`could not tell whether webhook endpoint ${id} still exists`));
    expect(warnings[0]).toMatch(/kept in state/);
    expect(warnings[0]).toMatch(/ignores the paging position/);
    expect(warnings[0]).not.toContain(TOKEN);
  });

  it("an endpoint removed on the service: refresh cannot tell it from a renamed one, so keeps it; the diff after it replaces it", async () => {
    const { id, state } = await ours();
    // Renamed only: its URL still finds it.
    emulator.updateRecord(Number(id), { webhook_name: "orders-renamed" });
    expect((await core.read(id, state))!.state.webhookName).toBe("orders-renamed");
    expect(warnings).toEqual([]);
    emulator.removeRecord(Number(id));
    // Neither its name nor its URL lists it, and the full listing stops at the cap.
    const read = await core.read(id, state);
    expect(read?.state).toEqual(state);
    expect(warnings).toHaveLength(1);
    // The diff a refresh runs after its read (the read's lookup reused): nothing proved it gone.
    expect(
      (await core.diff(id, state, { webhookName: "orders", webhookUrl: state.webhookUrl })).replaces,
    ).toEqual([]);
    // A later diff lists by its name, a listing short enough to prove it: not there under its name.
    expect(
      (await core.diff(id, state, { webhookName: "orders", webhookUrl: state.webhookUrl })).replaces,
    ).toEqual(["webhookId"]);
  });

  it("import of an endpoint past the first page says the listing may be incomplete and how to narrow it", async () => {
    const seventy = emulator.records().find((r) => r.webhook_name === "team-70")!;
    const error = await captureError(core.read(String(seventy.webhook_id), undefined));
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/cannot prove that it does not exist/);
    expect(message).toMatch(/ignores the paging position/);
    expect(message).toMatch(new RegExp(`adoptWebhookId: ${seventy.webhook_id}`));
    expect(message).not.toMatch(/no webhook endpoint .* exists/);
  });

  it("adopt by id finds an endpoint past the first page by its name, and says what it cannot tell otherwise", async () => {
    const seventy = emulator.records().find((r) => r.webhook_name === "team-70")!;
    const adopted = await core.create({
      webhookName: "team-70",
      webhookUrl: "https://example.com/team/70",
      adoptWebhookId: seventy.webhook_id,
    });
    expect(adopted.id).toBe(String(seventy.webhook_id));
    expect(adopted.state.signSecret).toBe(seventy.sign_secret);
    const sixty = emulator.records().find((r) => r.webhook_name === "team-60")!;
    const error = await captureError(
      core.create({
        webhookName: "not-its-name",
        webhookUrl: "https://example.com/not-its-url",
        adoptWebhookId: sixty.webhook_id,
      }),
    );
    expect((error as Error).message).toMatch(
      new RegExp(`adoptWebhookId ${sixty.webhook_id}: not found .*cannot prove it does not exist`),
    );
    expect((error as Error).message).not.toMatch(/no endpoint with that webhook_id exists/);
  });

  it("diff of an endpoint whose name a page's worth of others share replaces nothing on a guess, and warns", async () => {
    for (let i = 0; i < 60; i++)
      emulator.addRecord({ webhook_name: "shared", webhook_url: `https://example.com/shared/${i}` });
    const { id, state } = await ours("shared");
    const diff = await core.diff(id, state, { webhookName: "shared", webhookUrl: state.webhookUrl });
    expect(diff).toMatchObject({ changes: false, replaces: [] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`could not tell whether webhook endpoint ${id} still exists`));
    expect(emulator.records().filter((r) => r.webhook_name === "shared")).toHaveLength(61);
  });

  it("diff of an endpoint that left its name still replaces it: a short listing by name proves it", async () => {
    const { id, state } = await ours();
    emulator.updateRecord(Number(id), { webhook_name: "orders-v2" });
    const diff = await core.diff(id, state, { webhookName: "orders", webhookUrl: state.webhookUrl });
    expect(diff.replaces).toEqual(["webhookId"]);
    expect(warnings).toEqual([]);
  });
});

describe("an import whose listing of the whole service fails on the way", () => {
  // docs/client.md, Retries: a list is retried on a 5xx; docs/lifecycle.md: an import completes a
  // listing of the whole service, and only a complete listing concludes an endpoint absent. A 500
  // on that listing's first page must neither lose the endpoint nor answer with another one.
  let emulator: Emulator;
  let core: ProviderCore;
  beforeEach(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    for (let i = 1; i <= 3; i++)
      emulator.addRecord({ webhook_name: `team-${i}`, webhook_url: `https://example.com/team/${i}` });
    core = new ProviderCore({ face: "dynamic", env: {}, notify: () => undefined, warn: () => undefined });
    core.configure({
      values: { baseUrl: emulator.url, accessToken: TOKEN },
      describe: (name) => name,
      howToSet: (name) => name,
    });
  });
  afterEach(async () => {
    await core.close();
    await emulator.close();
  });

  it("finds the endpoint asked for once the failed page is asked again", async () => {
    const second = emulator.records().find((r) => r.webhook_name === "team-2")!;
    emulator.injectNext("list", "server-error");
    const imported = await core.read(String(second.webhook_id), undefined);
    expect(imported?.id).toBe(String(second.webhook_id));
    expect(imported?.state.webhookName).toBe("team-2");
    expect(imported?.state.signSecret).toBe(second.sign_secret);
  });

  it("concludes an id absent only from the complete listing that follows", async () => {
    emulator.injectNext("list", "server-error");
    const missing = Math.max(...emulator.records().map((r) => r.webhook_id)) + 1000;
    expect(await core.read(String(missing), undefined)).toBeUndefined();
  });
});

describe("a listing by name that spans two pages and ends there", () => {
  // docs/lifecycle.md, "How lookups find endpoints": only a listing by name that spans *more* than
  // 2 pages without the id proves the filter does not narrow; list calls stay at most one per
  // endpoint plus 4, plus the second page of a listing by name of a name shared by more than a page.
  it("answers the lookup itself: no listing of the whole crowded service", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, profile: "small-pages" });
    const core = new ProviderCore({
      face: "dynamic",
      env: {},
      notify: () => undefined,
      warn: () => undefined,
    });
    try {
      core.configure({
        values: { baseUrl: emulator.url, accessToken: TOKEN },
        describe: (name) => name,
        howToSet: (name) => name,
      });
      for (let i = 0; i < 200; i++)
        emulator.addRecord({ webhook_name: `other-${i}`, webhook_url: `https://example.net/${i}` });
      // Pages of at most 10: fifteen endpoints named "shared" take two pages.
      for (let i = 0; i < 14; i++)
        emulator.addRecord({ webhook_name: "shared", webhook_url: `https://example.com/shared/${i}` });
      const { id, state } = await core.create({
        webhookName: "shared",
        webhookUrl: "https://example.com/hooks/shared",
      });
      emulator.updateRecord(Number(id), { webhook_name: "shared-v2" });
      const before = emulator.counters().list;
      const diff = await core.diff(id, state, { webhookName: "shared", webhookUrl: state.webhookUrl });
      expect(diff.replaces.length).toBeGreaterThan(0);
      expect(emulator.counters().list - before).toBeLessThanOrEqual(1 + 4 + 1);
    } finally {
      await core.close();
      await emulator.close();
    }
  });
});
