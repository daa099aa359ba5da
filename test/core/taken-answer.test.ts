// A service that keeps names unique may answer a create of a taken name with the endpoint that has
// it (an idempotent create: the API document leaves uniqueness open). When another team creates the
// same name and URL while the stack's create is in flight, that answer is their endpoint, new since
// the attempt began, so "did it exist before?" cannot tell it apart; only its creator can. Nothing of
// theirs may be taken (docs/reliability.md, "What this cannot prevent"): once the stack's principal
// on that service is known from an endpoint its provenance says this stack created there, an answer
// by another creator is refused and nothing is recorded.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";
import { OTHER_TEAM, createAs, takenNameService, waitUntil } from "../support/helpers";

const OURS = "tok_ours_9d2c4e6a1b";
const THEIRS = OTHER_TEAM.token;
const STACK = "shop/dev";
const BASE = { webhookName: "base", webhookUrl: "https://victim.example/base" };
const X = { webhookName: "x", webhookUrl: "https://victim.example/x" };

describe("a create answered with another principal's endpoint (a unique-names service answering with what it has)", () => {
  let service: Emulator;
  let core: ProviderCore;
  const notices: string[] = [];
  const connection = () => ({ baseUrl: service.url, accessToken: OURS });

  beforeEach(async () => {
    service = await startEmulator(takenNameService(OURS));
    core = new ProviderCore({ face: "dynamic", notify: (message) => notices.push(message), env: {} });
  });
  afterEach(async () => {
    await core.close();
    await service.close();
  });

  /**
   * The other team creates `endpoint` while the stack's create of it (by `on`) is held by the service;
   * returns the stack's outcome.
   */
  async function raced(on: ProviderCore, endpoint: typeof X, viaConnection = true): Promise<unknown> {
    service.injectNext("create", "latency");
    const pending = on
      .create({ ...endpoint, ...(viaConnection ? { connection: connection() } : {}) }, NO_TAINT, STACK)
      .catch((error: unknown) => error);
    await waitUntil("the stack's create reaches the service", () =>
      service
        .requests()
        .some((r) => r.route === "create" && JSON.stringify(r.body).includes(`"${endpoint.webhookName}"`)),
    );
    expect((await createAs(service.url, THEIRS, endpoint)).creator_id).toBe(200);
    return pending;
  }

  it("once a diff saw an endpoint this stack created there, the other team's answer is refused and nothing is recorded", async () => {
    const base = await core.create({ ...BASE, connection: connection() }, NO_TAINT, STACK);
    expect(base.state.provenance).toMatchObject({ how: "created", stack: STACK });
    // A preview or an up diffs what the stack holds before it creates what is new.
    expect(
      (await core.diff(base.id, base.state, { ...BASE, connection: connection() }, NO_TAINT, STACK)).changes,
    ).toBe(false);

    const outcome = await raced(core, X);
    expect(outcome).toBeInstanceOf(Error);
    const message = (outcome as Error).message;
    expect(message).toMatch(/created by creator 200/);
    expect(message).toMatch(new RegExp(`were created by ${base.state.creatorId}:`));
    expect(message).toMatch(/not taken and nothing is recorded/);
    expect(message).toMatch(/adoptWebhookId: 2/);
    expect(message).not.toContain(OURS);
    // Not an EndpointCreatedButFailedError: the engine records nothing of theirs.
    expect((outcome as { properties?: unknown }).properties).toBeUndefined();
    // One endpoint of that name on the service, theirs: nothing duplicated, nothing taken.
    expect(
      service
        .records()
        .filter((r) => r.webhook_name === "x")
        .map((r) => r.creator_id),
    ).toEqual([200]);
  });

  it("with principalId configured, the answer is refused with no endpoint looked at first (up --target, a stack's first endpoint)", async () => {
    const ourCreator = (await core.create({ ...BASE, connection: connection() }, NO_TAINT, STACK)).state
      .creatorId;
    const configured = new ProviderCore({
      face: "native",
      notify: () => {},
      env: {
        WEBHOOKS_BASE_URL: service.url,
        WEBHOOKS_ACCESS_TOKEN: OURS,
        WEBHOOKS_PRINCIPAL_ID: String(ourCreator),
      },
    });
    try {
      const outcome = await raced(configured, X, false);
      expect(outcome).toBeInstanceOf(Error);
      // No endpoint of the stack was looked at: the refusal names the endpoint and how to take it over
      // if it is the stack's after all (principalId wrong).
      expect((outcome as Error).message).toMatch(
        new RegExp(
          `created by creator 200, but environment variable WEBHOOKS_PRINCIPAL_ID is ${ourCreator}, and the state records no endpoint this stack created on this service`,
        ),
      );
      expect((outcome as Error).message).toContain(
        "correct it (`export WEBHOOKS_PRINCIPAL_ID=200`) and take the endpoint over: `pulumi import webhooks:index:WebhookEndpoint <resource name> 2`",
      );
      expect(
        service
          .records()
          .filter((r) => r.webhook_name === "x")
          .map((r) => r.creator_id),
      ).toEqual([200]);
      // Its own creates go through.
      expect(
        (
          await configured.create(
            { webhookName: "w", webhookUrl: "https://victim.example/w" },
            NO_TAINT,
            STACK,
          )
        ).state.creatorId,
      ).toBe(ourCreator);
      // A resource's own token is another principal's: the configured principalId does not judge it.
      const own = await configured.create(
        {
          webhookName: "v",
          webhookUrl: "https://victim.example/v",
          connection: { baseUrl: service.url, accessToken: THEIRS },
        },
        NO_TAINT,
        STACK,
      );
      expect(own.state.creatorId).toBe(200);
    } finally {
      await configured.close();
    }
  });

  it("a refresh (read) of an endpoint this stack created teaches the principal as a diff does", async () => {
    const base = await core.create({ ...BASE, connection: connection() }, NO_TAINT, STACK);
    const refreshing = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
    try {
      expect(await refreshing.read(base.id, base.state, NO_TAINT, STACK)).toBeDefined();
      const outcome = await raced(refreshing, X);
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toMatch(/created by creator 200/);
    } finally {
      await refreshing.close();
    }
  });

  it("the stack's own create, with its principal known, is not refused", async () => {
    const base = await core.create({ ...BASE, connection: connection() }, NO_TAINT, STACK);
    await core.diff(base.id, base.state, { ...BASE, connection: connection() }, NO_TAINT, STACK);
    const made = await core.create({ ...X, connection: connection() }, NO_TAINT, STACK);
    expect(made.state.creatorId).toBe(base.state.creatorId);
  });

  it("an endpoint the stack only adopted or imported, or one another stack created, teaches no principal", async () => {
    // The other team's endpoint, held by the stack without having created it.
    const theirsId = (
      await createAs(service.url, THEIRS, {
        webhookName: "theirs",
        webhookUrl: "https://victim.example/theirs",
      })
    ).webhook_id;
    const held = await core.create(
      {
        webhookName: "theirs",
        webhookUrl: "https://victim.example/theirs",
        adoptWebhookId: theirsId,
        connection: connection(),
      },
      NO_TAINT,
      STACK,
    );
    expect(held.state).toMatchObject({ creatorId: 200, provenance: { how: "adopted" } });
    // pulumi import: a read with no state, its connection from the settings.
    const importer = new ProviderCore({
      face: "native",
      notify: () => {},
      env: { WEBHOOKS_BASE_URL: service.url, WEBHOOKS_ACCESS_TOKEN: OURS },
    });
    const imported = await importer
      .read(String(theirsId), undefined, NO_TAINT, STACK)
      .finally(() => importer.close());
    expect(imported!.state.provenance).toMatchObject({ how: "imported" });
    // What a state records: how it entered, and the stack it entered (a reference to its root, which
    // `pulumi state move` keeps naming the stack the endpoint came from).
    const variants = [
      { provenance: held.state.provenance, stackRoot: held.state.stackRoot },
      { provenance: imported!.state.provenance, stackRoot: imported!.state.stackRoot },
      {
        provenance: { ...held.state.provenance, how: "created", stack: "shop/other" },
        stackRoot: "urn:pulumi:other::shop::pulumi:pulumi:Stack::shop-other",
      },
      // An earlier release's record of an endpoint another stack created: the name alone.
      { provenance: { ...held.state.provenance, how: "created", stack: "shop/other" }, stackRoot: undefined },
      { provenance: undefined, stackRoot: undefined },
    ];
    for (const [i, recorded] of variants.entries()) {
      const provenance = recorded.provenance;
      const other = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
      try {
        const olds = { ...held.state, ...recorded } as typeof held.state;
        const outcome = await other.diff(
          String(theirsId),
          olds,
          { webhookName: "theirs", webhookUrl: "https://victim.example/theirs", connection: connection() },
          NO_TAINT,
          STACK,
        );
        // Not replaced, and on the same connection: the endpoint was looked up, so a principal could have been learnt.
        expect(outcome.replaces, JSON.stringify(provenance)).toEqual([]);
        expect(outcome.updates).not.toContain("connection");
        // Were creator 200 believed to be the stack's principal, the stack's own create would be refused.
        const made = await other.create(
          { webhookName: `y${i}`, webhookUrl: `https://victim.example/y${i}`, connection: connection() },
          NO_TAINT,
          STACK,
        );
        expect(made.state.creatorId, JSON.stringify(provenance)).not.toBe(200);
      } finally {
        await other.close();
      }
    }
    // The same endpoint with a provenance saying this stack created it does teach 200, and the
    // stack's next create is refused: recorded by this release (its stackRoot names this stack, as
    // the dynamic face is handed it, and as the native face and the state hold it, a reference), by
    // an earlier one (the name alone), and after `pulumi stack rename` (the name it had then, the
    // reference rewritten to the stack's new name).
    const root = "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev";
    const teaching = [
      { provenance: { ...held.state.provenance, how: "created" }, stackRoot: root },
      {
        provenance: { ...held.state.provenance, how: "created" },
        stackRoot: { "4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e", urn: root },
      },
      { provenance: { ...held.state.provenance, how: "created" }, stackRoot: undefined },
      {
        provenance: { ...held.state.provenance, how: "created", stack: "shop/before-rename" },
        stackRoot: root,
      },
    ];
    for (const [i, recorded] of teaching.entries()) {
      const taught = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
      try {
        await taught.diff(
          String(theirsId),
          { ...held.state, ...recorded } as typeof held.state,
          { webhookName: "theirs", webhookUrl: "https://victim.example/theirs", connection: connection() },
          NO_TAINT,
          STACK,
        );
        await expect(
          taught.create(
            { webhookName: `z${i}`, webhookUrl: `https://victim.example/z${i}`, connection: connection() },
            NO_TAINT,
            STACK,
          ),
          JSON.stringify(recorded),
        ).rejects.toThrow(/created by creator (?!200)\d+, .*created by 200:/);
      } finally {
        await taught.close();
      }
    }
  });
});
