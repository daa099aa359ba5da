import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  EndpointCreatedButFailedError,
  provider,
  type WebhookEndpointOutputs,
} from "../../src/dynamic/provider";
import { type WebhookEndpointInputs } from "../../src/core/inputs";
import { ProviderCore } from "../../src/core/provider-core";
import { stackConfig } from "../../src/core/settings";
import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN, captureError, everythingVisible, rawServer, waitUntil } from "../support/helpers";
import { TRACE, scriptedService } from "../support/scripted-service";
import { UNKNOWN } from "../../src/core/wire";

function configure(values: Record<string, string | undefined>): Promise<void> {
  return provider.configure({
    config: {
      get: (key: string) => values[key],
      require: (key: string) => values[key] ?? "",
    },
  });
}

type Held = { id: string; outs: WebhookEndpointOutputs };

/** Creates `count` endpoints named `<prefix>-<i>` at https://example.com/<prefix>/<i>, one after another. */
async function createStack(prefix: string, count: number): Promise<Held[]> {
  const stack: Held[] = [];
  for (let i = 0; i < count; i++) {
    const result = await provider.create({
      webhookName: `${prefix}-${i}`,
      webhookUrl: `https://example.com/${prefix}/${i}`,
    });
    stack.push({ id: result.id, outs: result.outs as WebhookEndpointOutputs });
  }
  return stack;
}

/** A diff of a held endpoint against the name and URL it holds (a preview with nothing changed in the program). */
function diffAsHeld({ id, outs }: Held) {
  return provider.diff(id, outs, { webhookName: outs.webhookName, webhookUrl: outs.webhookUrl });
}

const PROFILES = [
  "default",
  "partial-filters",
  "ignored-filters",
  "has-more",
  "next-cursor",
  "no-paging",
  "small-pages",
  "errors-in-200",
  "strict-ascending",
];

describe.each(PROFILES)("provider methods under emulator profile %s", (profile) => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ profile, accessToken: TOKEN });
    await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
    // Records whose names the service's filter may also match, so matching must be by id.
    for (const name of ["orders-eu", "xorders", "orders2"])
      emulator.addRecord({ webhook_name: name, webhook_url: "https://example.com/hooks/orders" });
  });
  afterAll(async () => {
    await emulator.close();
  });

  const inputs: WebhookEndpointInputs = {
    webhookName: "orders",
    webhookUrl: "https://example.com/hooks/orders",
  };
  let created: { id: string; outs: WebhookEndpointOutputs } | undefined;
  /**
   * The endpoint the first test creates, which the tests after it work on. A test run without that
   * one (`vitest -t`, or the mutation run, which runs only the tests that reach a mutant) creates it
   * itself; otherwise it failed on an undefined id, whatever the code under test did.
   */
  async function held(): Promise<{ id: string; outs: WebhookEndpointOutputs }> {
    if (created === undefined) {
      const result = await provider.create(inputs);
      created = { id: result.id, outs: result.outs as WebhookEndpointOutputs };
    }
    return created;
  }

  it("create makes exactly one create call, after one listing that finds nothing to duplicate, and returns the record as outputs", async () => {
    const before = emulator.counters();
    const result = await provider.create(inputs);
    const after = emulator.counters();
    expect(after.create - before.create).toBe(1);
    // The one listing by name that proves no endpoint with this name and URL exists yet.
    expect(after.list - before.list).toBe(1);
    const { id } = result;
    const outs = result.outs as WebhookEndpointOutputs;
    created = { id, outs };
    const stored = emulator.records().find((r) => String(r.webhook_id) === id)!;
    expect(outs).toEqual({
      webhookId: stored.webhook_id,
      webhookName: "orders",
      webhookUrl: "https://example.com/hooks/orders",
      signSecret: stored.sign_secret,
      creatorId: stored.creator_id,
      creatorName: stored.creator_name,
      createTime: stored.create_time,
      operatorId: stored.operator_id,
      operatorName: stored.operator_name,
      operateTime: stored.operate_time,
      // docs/operator-cli.md, "Provenance": state records how each endpoint entered the stack, and on which service.
      // (no __stack input here: the resource class sets it; the provider records what it was given)
      provenance: { how: "created", service: emulator.url, stack: "unknown" },
    });
  });

  it("diff with nothing changed lists once and reports no changes", async () => {
    const { id, outs } = await held();
    const before = emulator.counters().list;
    const result = await provider.diff(id, outs, { ...inputs });
    expect(result).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(emulator.counters().list - before).toBe(1);
  });

  it("diff replaces on a changed name or URL, and on an unknown one during preview", async () => {
    const { id, outs } = await held();
    expect(
      (await provider.diff(id, outs, { ...inputs, webhookUrl: "https://example.com/v2" })).replaces,
    ).toEqual(["webhookUrl"]);
    expect((await provider.diff(id, outs, { ...inputs, webhookName: "orders-v2" })).replaces).toEqual([
      "webhookName",
    ]);
    expect((await provider.diff(id, outs, { ...inputs, webhookUrl: UNKNOWN })).replaces).toEqual([
      "webhookUrl",
    ]);
  });

  it("read returns fresh outputs matched by id, and no inputs while the service holds the name and URL state does", async () => {
    const { id, outs } = await held();
    const result = await provider.read(id, outs);
    expect(result.id).toBe(id);
    expect(result.props).toEqual(outs);
    // The engine then keeps the state's inputs (and the host sends no second copy of the provider text).
    expect(result).not.toHaveProperty("inputs");
  });

  it("refresh's read then diff make one list call between them, not two", async () => {
    const { id, outs } = await held();
    const before = emulator.counters().list;
    await provider.read(id, outs);
    const afterRead = emulator.counters().list;
    expect(await provider.diff(id, outs, { ...inputs })).toMatchObject({ changes: false });
    expect(emulator.counters().list).toBe(afterRead);
    expect(afterRead - before).toBeGreaterThanOrEqual(1);
    // Used once: the next diff asks the service again.
    await provider.diff(id, outs, { ...inputs });
    expect(emulator.counters().list).toBeGreaterThan(afterRead);
  });

  it("read follows an endpoint renamed on the service, and diff then replaces it", async () => {
    const { id, outs } = await held();
    emulator.updateRecord(Number(id), { webhook_name: "orders-renamed" });
    const result = await provider.read(id, outs);
    expect(result.id).toBe(id);
    expect((result.props as WebhookEndpointOutputs).webhookName).toBe("orders-renamed");
    expect(result.inputs).toMatchObject({ webhookName: "orders-renamed" });
    const diff = await provider.diff(id, result.props as WebhookEndpointOutputs, { ...inputs });
    expect(diff.changes).toBe(true);
    expect(diff.replaces).toEqual(["webhookName"]);
    emulator.updateRecord(Number(id), { webhook_name: "orders" });
  });

  it("an endpoint removed on the service is gone for read and a replacement for diff", async () => {
    const { id, outs } = await held();
    emulator.removeRecord(Number(id));
    expect(await provider.read(id, outs)).toEqual({ id: "" });
    const diff = await provider.diff(id, outs, { ...inputs });
    expect(diff.changes).toBe(true);
    expect(diff.replaces).toEqual(["webhookId"]);
  });

  it("update keeps every output and makes no call", async () => {
    const { id, outs } = await held();
    const before = emulator.counters().total;
    const result = await provider.update(id, outs, { ...inputs });
    expect(result.outs).toEqual(outs);
    expect(emulator.counters().total).toBe(before);
  });

  it("delete makes no call and says once that the endpoint still exists", async () => {
    const { id, outs } = await held();
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const before = emulator.counters().total;
    await provider.delete(id, outs);
    expect(emulator.counters().total).toBe(before);
    expect(log).toHaveBeenCalledTimes(1);
    const line = String(log.mock.calls[0]![0]);
    expect(line).toContain(`webhook endpoint ${id} ("orders") still exists on the service`);
    expect(line).not.toContain(outs.signSecret);
    log.mockRestore();
  });

  it("adopt takes over an existing endpoint by id without a create call", async () => {
    const existing = emulator.addRecord({
      webhook_name: "legacy",
      webhook_url: "https://example.com/legacy",
    });
    const before = emulator.counters().create;
    const result = await provider.create({
      webhookName: "legacy",
      webhookUrl: "https://example.com/legacy",
      adoptWebhookId: existing.webhook_id,
    });
    expect(emulator.counters().create).toBe(before);
    expect(result.id).toBe(String(existing.webhook_id));
    expect((result.outs as WebhookEndpointOutputs).signSecret).toBe(existing.sign_secret);
    expect((result.outs as WebhookEndpointOutputs).adoptWebhookId).toBe(existing.webhook_id);
  });

  it("adopt refuses an endpoint whose name or URL differ, and an id that does not exist", async () => {
    const existing = emulator.addRecord({
      webhook_name: "legacy2",
      webhook_url: "https://example.com/legacy2",
    });
    const mismatch = await captureError(
      provider.create({
        webhookName: "legacy2",
        webhookUrl: "https://example.com/other",
        adoptWebhookId: existing.webhook_id,
      }),
    );
    expect((mismatch as Error).message).toMatch(
      /webhookUrl is "https:\/\/example.com\/other" but the endpoint's URL is "https:\/\/example.com\/legacy2"/,
    );
    const missing = await captureError(
      provider.create({
        webhookName: "ghost",
        webhookUrl: "https://example.com/ghost",
        adoptWebhookId: 987654,
      }),
    );
    expect((missing as Error).message).toMatch(/no endpoint with that webhook_id exists/);
    expect(emulator.records().filter((r) => r.webhook_name === "ghost")).toHaveLength(0);
  });
});

describe("what diff says about adoptWebhookId, connection and drift: no update call, and the reason said", () => {
  // The dynamic face reports an update as changes without replacements (Pulumi's dynamic DiffResult has no
  // update list).
  it("another endpoint's id is a replacement; the held id added, or a changed connection, an update; an endpoint re-pointed on the service a replacement of its URL", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN });
    try {
      await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      const created = await provider.create({ webhookName: "held", webhookUrl: "https://example.com/held" });
      const outs = created.outs as WebhookEndpointOutputs;
      const same = { webhookName: "held", webhookUrl: "https://example.com/held" };
      expect(
        await provider.diff(created.id, outs, { ...same, adoptWebhookId: Number(created.id) + 1 }),
      ).toMatchObject({ changes: true, replaces: ["adoptWebhookId"] });
      expect(
        await provider.diff(created.id, outs, { ...same, adoptWebhookId: Number(created.id) }),
      ).toMatchObject({ changes: true, replaces: [] });
      expect(
        await provider.diff(created.id, outs, { ...same, connection: { baseUrl: emulator.url } }),
      ).toMatchObject({ changes: true, replaces: [] });
      emulator.updateRecord(Number(created.id), { webhook_url: "https://example.com/moved" });
      const drifted = await provider.diff(created.id, outs, same);
      expect(drifted).toMatchObject({ changes: true, replaces: ["webhookUrl"] });
    } finally {
      await emulator.close();
    }
  });
});

describe("diff after the connection input is removed", () => {
  it("looks at the service with the settings from config and the environment, not the removed input's token", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN });
    try {
      await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      const created = await provider.create({
        webhookName: "rotated",
        webhookUrl: "https://example.com/rotated",
      });
      // State from a run that carried a token on the resource, since revoked and moved to stack config.
      const outs = {
        ...(created.outs as WebhookEndpointOutputs),
        connection: { accessToken: "tok_revoked_0000" },
      };
      const before = emulator.counters().list;
      const diff = await provider.diff(created.id, outs, {
        webhookName: "rotated",
        webhookUrl: "https://example.com/rotated",
      });
      expect(diff).toMatchObject({ changes: true, replaces: [] });
      // The drift lookup ran, with the configured token (a revoked one would have been refused).
      expect(emulator.counters().list).toBeGreaterThan(before);
      // While the new input is not known yet (preview), the old connection is the best guess.
      await expect(
        provider.diff(created.id, outs, {
          webhookName: "rotated",
          webhookUrl: "https://example.com/rotated",
          connection: UNKNOWN as never,
        }),
      ).rejects.toThrow(/not accepted|401/);
      // So is it while one setting in it is unknown: the marker is never sent as a token.
      const seen: string[] = [];
      const server = await rawServer((req, _body, res) => {
        seen.push(String(req.headers.authorization));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            code: "200",
            msg: "Success",
            trace_id: "0123456789abcdef0123456789abcdef",
            data: { data: [] },
          }),
        );
      });
      try {
        const held = { ...outs, connection: { baseUrl: server.url, accessToken: "tok_held_1111" } };
        const diff = await provider.diff(created.id, held, {
          webhookName: "rotated",
          webhookUrl: "https://example.com/rotated",
          connection: { baseUrl: server.url, accessToken: UNKNOWN },
        });
        expect(diff.changes).toBe(true);
        expect(seen.length).toBeGreaterThan(0);
        expect(seen).not.toContain(UNKNOWN);
        expect(new Set(seen)).toEqual(new Set(["tok_held_1111"]));
      } finally {
        await server.close();
      }
    } finally {
      await emulator.close();
    }
  });
});

describe("a preview's many diffs", () => {
  it("switch from one list per endpoint to one paged scan, and still find endpoints newer than the scan", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, profile: "small-pages" });
    try {
      await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      const created = await createStack("many", 40);
      const before = emulator.counters().list;
      for (const held of created) expect(await diffAsHeld(held)).toMatchObject({ changes: false });
      // 8 by name, then one scan of 40 records in pages of 10 (and one empty page at most).
      expect(emulator.counters().list - before).toBeLessThanOrEqual(8 + 5);
      const late = await provider.create({ webhookName: "late", webhookUrl: "https://example.com/late" });
      const outs = late.outs as WebhookEndpointOutputs;
      expect(
        await provider.diff(late.id, outs, { webhookName: "late", webhookUrl: "https://example.com/late" }),
      ).toMatchObject({ changes: false });
    } finally {
      await emulator.close();
    }
  });
});

describe("a preview's diffs on a service crowded with other teams' endpoints", () => {
  // A stack's endpoints are made together: the crowd sits before them in the service's order, or
  // after them, or on both sides. List calls must stay bounded by the stack (one per endpoint plus
  // a small constant), and where the stack sits at an end of the order, the scans must reach it.
  const STACK = 40;
  const CROWD = 400;

  async function crowdedPreview(options: {
    at: "before" | "after" | "both";
    ascending?: "any" | "ignored" | "asc-desc";
    connection?: string;
  }) {
    const emulator = await startEmulator({
      accessToken: TOKEN,
      profile: "small-pages",
      ascending: options.ascending ?? "any",
    });
    try {
      await configure({
        "webhooks:baseUrl": emulator.url,
        "webhooks:accessToken": TOKEN,
        ...(options.connection ? { "webhooks:ascending": options.connection } : {}),
      });
      const crowd = (n: number, tag: string) => {
        for (let i = 0; i < n; i++)
          emulator.addRecord({
            webhook_name: `other-${tag}-${i}`,
            webhook_url: `https://example.net/${tag}/${i}`,
          });
      };
      if (options.at === "before") crowd(CROWD, "a");
      if (options.at === "both") crowd(CROWD / 2, "a");
      const stack = await createStack("stack", STACK);
      if (options.at === "after") crowd(CROWD, "b");
      if (options.at === "both") crowd(CROWD / 2, "b");
      // The creates made no lookup: the diffs below are this connection's first, as in a new command.
      const before = emulator.counters().list;
      for (const held of stack) expect(await diffAsHeld(held)).toMatchObject({ changes: false });
      return emulator.counters().list - before;
    } finally {
      await emulator.close();
    }
  }

  // Pages of 10. By the policy in src/core/lookups.ts: 8 lookups by name, then each scan's first
  // two pages fetched alongside the next two lookups; the scan in the stack's direction then answers
  // the rest (crowd after: at once; crowd before: it holds the last 20, so the 10 diffs between go
  // by name): 14 and 24 calls. A single scan in one direction costs 44 for the crowd before.
  it.each(["before", "after"] as const)(
    "crowd made %s the stack: the scans reach the stack, well under one call per endpoint",
    async (at) => {
      const calls = await crowdedPreview({ at });
      expect(calls).toBeLessThanOrEqual(30);
    },
  );

  it("crowd on both sides: one call per endpoint plus the two scans' allowances, never a walk through the crowd", async () => {
    const calls = await crowdedPreview({ at: "both" });
    expect(calls).toBeLessThanOrEqual(STACK + 2 * 2);
  });

  it("a page fetched more than ten seconds before a diff does not answer it: a change made meanwhile is seen", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN, profile: "small-pages" });
    try {
      await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      const stack = await createStack("stale", 30);
      // Past the first eight, the scans hold the whole stack.
      for (const entry of stack.slice(0, 12))
        expect(await diffAsHeld(entry)).toMatchObject({ changes: false });
      const later = stack[25]!;
      emulator.updateRecord(Number(later.id), { webhook_name: "stale-25-renamed" });
      // Within the trust window a diff may be answered from the page (a race any listing has)...
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11_000 });
      try {
        const listsBefore = emulator.counters().list;
        // ...past it, the diff lists again and sees the rename.
        expect(await diffAsHeld(later)).toMatchObject({ changes: true, replaces: ["webhookName"] });
        expect(emulator.counters().list).toBeGreaterThan(listsBefore);
      } finally {
        vi.useRealTimers();
      }
    } finally {
      await emulator.close();
    }
  });

  it("a service whose name filter does not narrow: every answer right, at most one listing of the whole service besides", async () => {
    const emulator = await startEmulator({
      accessToken: TOKEN,
      profile: "small-pages",
      filterMatch: "ignored",
    });
    try {
      await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN });
      for (let i = 0; i < CROWD; i++)
        emulator.addRecord({ webhook_name: `other-${i}`, webhook_url: `https://example.net/${i}` });
      const stack = await createStack("wide", 20);
      emulator.removeRecord(Number(stack[3]!.id));
      const before = emulator.counters().list;
      const answers = [];
      for (const held of stack) answers.push((await diffAsHeld(held)).changes);
      expect(answers).toEqual(stack.map((_, i) => i === 3));
      // The first lookup's two pages by name, then one listing of the 420 records in pages of 10.
      expect(emulator.counters().list - before).toBeLessThanOrEqual(2 + Math.ceil((CROWD + 20) / 10) + 1);
    } finally {
      await emulator.close();
    }
  });

  it("a scan page that fails is not retried, and a lookup the name answered does not wait for it", async () => {
    // Every listing in the other order fails with a 500, which the service holds back until the
    // diffs are done: a diff that waited for it would never end.
    const service = await scriptedService({
      onList: (body) =>
        body.ascending === "false"
          ? { status: 500, body: { code: "500", msg: "order not supported", trace_id: TRACE } }
          : undefined,
    });
    let releaseScan!: () => void;
    const scanReleased = new Promise<void>((resolve) => (releaseScan = resolve));
    const slow = await rawServer((req, body, res) => {
      const forward = () =>
        fetch(service.url + (req.url ?? ""), {
          method: "POST",
          headers: { "content-type": "application/json", authorization: String(req.headers.authorization) },
          body,
        }).then(async (answer) => {
          res.writeHead(answer.status, { "content-type": "application/json" });
          res.end(await answer.text());
        });
      if ((JSON.parse(body) as Record<string, unknown>).ascending === "false")
        void scanReleased.then(forward);
      else void forward();
    });
    try {
      await configure({ "webhooks:baseUrl": slow.url, "webhooks:accessToken": TOKEN });
      const stack = await createStack("fail", 12);
      for (const held of stack) expect(await diffAsHeld(held)).toMatchObject({ changes: false });
      expect(service.listings().filter((l) => l.ascending === "false")).toHaveLength(0);
      releaseScan();
      await waitUntil("the held scan page reaches the service", () =>
        service.listings().some((l) => l.ascending === "false"),
      );
      // Once the failing page came back, a retry would reach the service within three and a half
      // seconds (a wait for something that must not happen: a busy machine can only delay a retry).
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(service.listings().filter((l) => l.ascending === "false")).toHaveLength(1);
    } finally {
      await slow.close();
      await service.close();
    }
  });

  it("a service that ignores the order, or refuses the other value, costs no more than the allowance", async () => {
    expect(await crowdedPreview({ at: "before", ascending: "ignored" })).toBeLessThanOrEqual(STACK + 2 * 2);
    // The strict reading: "asc" and "desc" only; told "asc", the other scan asks "desc".
    expect(
      await crowdedPreview({ at: "before", ascending: "asc-desc", connection: "asc" }),
    ).toBeLessThanOrEqual(30);
    // Told a value whose opposite is unknown, one scan runs.
    expect(await crowdedPreview({ at: "before", connection: "upwards" })).toBeLessThanOrEqual(STACK + 2);
  });
});

describe("connection settings", () => {
  let emulator: Emulator;
  const saved = { ...process.env };
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
  });
  afterEach(() => {
    process.env = { ...saved };
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("a missing setting is an error naming all three places", async () => {
    await configure({});
    delete process.env.WEBHOOKS_BASE_URL;
    delete process.env.WEBHOOKS_ACCESS_TOKEN;
    const error = (await captureError(
      provider.create({ webhookName: "a", webhookUrl: "https://example.com/a" }),
    )) as Error;
    expect(error.message).toContain("connection.baseUrl");
    expect(error.message).toContain("webhooks:baseUrl");
    expect(error.message).toContain("WEBHOOKS_BASE_URL");
    expect(error.message).toContain("webhooks:accessToken");
    expect(error.message).toContain("WEBHOOKS_ACCESS_TOKEN");
  });

  it("the resource input wins over stack config, which wins over the environment", async () => {
    process.env.WEBHOOKS_BASE_URL = "http://127.0.0.1:9";
    process.env.WEBHOOKS_ACCESS_TOKEN = "env-token";
    await configure({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": "config-token" });
    const viaConfig = (await captureError(
      provider.create({ webhookName: "a", webhookUrl: "https://example.com/a" }),
    )) as Error;
    // The config's base URL was used (the emulator answered) and its token refused, named by source.
    expect(viaConfig.message).toContain("stack config webhooks:accessToken");
    expect(everythingVisible(viaConfig)).not.toContain("config-token");
    const viaInput = await provider.create({
      webhookName: "a",
      webhookUrl: "https://example.com/a",
      connection: { accessToken: TOKEN },
    });
    expect(viaInput.outs).toMatchObject({ webhookName: "a", connection: { accessToken: TOKEN } });
    await configure({});
    process.env.WEBHOOKS_BASE_URL = emulator.url;
    process.env.WEBHOOKS_ACCESS_TOKEN = TOKEN;
    await expect(
      provider.create({ webhookName: "b", webhookUrl: "https://example.com/b" }),
    ).resolves.toMatchObject({ outs: { webhookName: "b" } });
  });

  it("delete keeps every configured token out of its notice, also when no connection resolves from the settings", () => {
    const notices: string[] = [];
    const cases: {
      env: NodeJS.ProcessEnv;
      config?: Record<string, string>;
      connection?: Record<string, unknown>;
      token: string;
    }[] = [
      // No base URL anywhere: destroy still runs (it calls nothing).
      { env: { WEBHOOKS_ACCESS_TOKEN: "tok_env_only_1234" }, token: "tok_env_only_1234" },
      // A setting that does not parse.
      {
        env: { WEBHOOKS_BASE_URL: "https://api.example.com", WEBHOOKS_MAX_RETRIES: "lots" },
        config: { "webhooks:accessToken": "tok_config_5678" },
        token: "tok_config_5678",
      },
      // Plain http to a non-loopback host, the token on the resource.
      {
        env: {},
        connection: { baseUrl: "http://api.example.com", accessToken: "tok_resource_9012" },
        token: "tok_resource_9012",
      },
    ];
    for (const { env, config, connection, token } of cases) {
      const core = new ProviderCore({ face: "dynamic", env, notify: (message) => notices.push(message) });
      core.configure(stackConfig((key) => config?.[key]));
      core.delete("42", {
        webhookName: `billing-${token}-hook`,
        ...(connection === undefined ? {} : { connection }),
      });
      const notice = notices.at(-1)!;
      expect(notice).toContain("webhook endpoint 42 (");
      expect(notice).toContain("still exists on the service");
      expect(notice).not.toContain(token);
    }
    expect(notices).toHaveLength(3);
    // In another letter case too, and an id that is not a webhook_id (a hand-edited state) is quoted and redacted.
    const core = new ProviderCore({
      face: "dynamic",
      env: { WEBHOOKS_ACCESS_TOKEN: "tok_Mixed_3456" },
      notify: (message) => notices.push(message),
    });
    core.delete("tok_Mixed_3456", { webhookName: "TOK_MIXED_3456" });
    expect(notices.at(-1)!.toLowerCase()).not.toContain("tok_mixed_3456");
    expect(notices.at(-1)).toContain('webhook endpoint "[REDACTED]" ("[REDACTED]") still exists');
  });

  it("works against the strictest reading of the document once told its page size and ascending form", async () => {
    const strict = await startEmulator({ profile: "strict", accessToken: TOKEN, ascending: "asc-desc" });
    try {
      await configure({ "webhooks:baseUrl": strict.url, "webhooks:accessToken": TOKEN });
      const refused = await captureError(
        provider.create({ webhookName: "s", webhookUrl: "https://example.com/s", adoptWebhookId: 1 }),
      );
      expect((refused as Error).message).toMatch(/limit|ascending/);
      process.env.WEBHOOKS_PAGE_SIZE = "10";
      process.env.WEBHOOKS_ASCENDING = "asc";
      const created = await provider.create({ webhookName: "s", webhookUrl: "https://example.com/s" });
      for (let i = 0; i < 25; i++)
        strict.addRecord({ webhook_name: `s-${i}`, webhook_url: `https://example.com/s/${i}` });
      const read = await provider.read(created.id, created.outs);
      expect(read.id).toBe(created.id);
      expect(
        await provider.diff(created.id, created.outs!, {
          webhookName: "s",
          webhookUrl: "https://example.com/s",
        }),
      ).toMatchObject({ changes: false });
    } finally {
      await strict.close();
    }
  });

  /** A service that answers every list with no records and every create with `stored`. */
  async function storingAs(stored: { webhook_name: string; webhook_url: string }) {
    return rawServer((req, _body, res) => {
      const data = req.url?.endsWith("/create")
        ? {
            webhook_id: 77,
            ...stored,
            sign_secret: "s",
            creator_id: 1,
            creator_name: "c",
            create_time: Date.now(),
            operator_id: 1,
            operator_name: "c",
            operate_time: Date.now(),
          }
        : { data: [] };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ code: "200", msg: "Success", trace_id: "0123456789abcdef0123456789abcdef", data }),
      );
    });
  }

  it("an endpoint the service stores in an equivalent form is created, and the form it stored is the output", async () => {
    const server = await storingAs({ webhook_name: "norm", webhook_url: "https://example.com/norm/" });
    await configure({ "webhooks:baseUrl": server.url, "webhooks:accessToken": TOKEN });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const created = await provider.create({ webhookName: "norm", webhookUrl: "https://example.com/norm" });
    log.mockRestore();
    await server.close();
    expect(created.id).toBe("77");
    expect(created.outs).toMatchObject({
      webhookId: 77,
      webhookUrl: "https://example.com/norm/",
      declared: { webhookName: "norm", webhookUrl: "https://example.com/norm" },
    });
  });

  it("an endpoint the service stores differently still reaches state, with its id", async () => {
    const server = await storingAs({ webhook_name: "norm", webhook_url: "https://example.com/elsewhere" });
    await configure({ "webhooks:baseUrl": server.url, "webhooks:accessToken": TOKEN });
    const error = await captureError(
      provider.create({ webhookName: "norm", webhookUrl: "https://example.com/norm" }),
    );
    await server.close();
    expect(error).toBeInstanceOf(EndpointCreatedButFailedError);
    const created = error as EndpointCreatedButFailedError;
    expect(created.id).toBe("77");
    expect(created.properties).toMatchObject({ webhookId: 77, webhookUrl: "https://example.com/elsewhere" });
    expect(created.message).toMatch(/recorded in state/);
  });
});
