// Facts before claims, in the provider core (docs/reliability.md, "Facts before claims"). An outside team set a wrong
// webhooks:principalId on a stack whose state records the endpoints it created, with their creator:
// every `up` sent its creates, refused each answer (by the token's real principal) and recorded
// nothing, leaving new endpoints nothing can delete. docs/reliability.md ("Facts before claims, and
// checks before effects") promises instead: a principalId that a recorded fact contradicts is
// refused, naming both, before anything is sent, by the diff that brings the fact and by any create
// after it; a fact learnt while a create is in flight discredits the claim, and the facts judge the
// answer.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EndpointCreatedButFailedError } from "../../src/core/errors";
import {
  contradiction,
  contradictionMessage,
  principalsOf,
  type CreatorFact,
  type PrincipalClaim,
} from "../../src/core/principal";
import { ProviderCore } from "../../src/core/provider-core";
import { stackConfig } from "../../src/core/settings";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";
import { OTHER_TEAM, createAs, waitUntil } from "../support/helpers";

const TOKEN = "tok_claims_core_51ad9e";
const STACK = "shop/dev";
const OURS = 1001;
const BASE = { webhookName: "base", webhookUrl: "https://claims.example/base" };

describe("a principalId checked against the facts the state records (provider core)", () => {
  let service: Emulator;
  const cores: ProviderCore[] = [];
  /** A core of `face` whose configuration is the environment: the token, and principalId when given. */
  const core = (principalId?: number, face: "dynamic" | "native" = "native") => {
    const made = new ProviderCore({
      face,
      notify: () => {},
      env: {
        WEBHOOKS_BASE_URL: service.url,
        WEBHOOKS_ACCESS_TOKEN: TOKEN,
        ...(principalId === undefined ? {} : { WEBHOOKS_PRINCIPAL_ID: String(principalId) }),
      },
    });
    cores.push(made);
    return made;
  };
  /** The stack's endpoint base, created by this stack (no principalId then): its state records creator 1001. */
  let base: { id: string; state: WebhookEndpointOutputs };

  beforeEach(async () => {
    // A create a test injects latency into is held 3 s at the service: the test acts while it is.
    service = await startEmulator({
      accessToken: TOKEN,
      creator: { id: OURS, name: "team-a" },
      faults: { create: { rate: 0, slowMs: 3_000 } },
    });
    base = await core().create(BASE, NO_TAINT, STACK);
    expect(base.state).toMatchObject({ creatorId: OURS, provenance: { how: "created", stack: STACK } });
  });
  afterEach(async () => {
    await Promise.all(cores.splice(0).map((made) => made.close()));
    await service.close();
  });

  const requestsSoFar = () => service.requests().length;

  it("a principalId lets a lost create answer settle: the one new endpoint by that creator is recorded, with none sent again", async () => {
    // docs/configuration.md, principalId: the client cannot tell a lost answer's endpoint from one
    // another team made at the same moment unless it knows its principal; a stack's first create
    // (no endpoint it made learnt yet) knows it only from principalId.
    const outcomes: string[] = [];
    for (const principalId of [OURS, undefined]) {
      const fresh = new ProviderCore({
        face: "native",
        notify: () => {},
        env: {
          WEBHOOKS_BASE_URL: service.url,
          WEBHOOKS_ACCESS_TOKEN: TOKEN,
          WEBHOOKS_CREATE_SETTLE_MS: "1000",
          ...(principalId === undefined ? {} : { WEBHOOKS_PRINCIPAL_ID: String(principalId) }),
        },
      });
      cores.push(fresh);
      const name = `lost-${principalId ?? "none"}`;
      const inputs = { webhookName: name, webhookUrl: `https://claims.example/${name}` };
      service.injectNext("create", "gateway-error");
      const made = await fresh.create(inputs, NO_TAINT, STACK).then(
        (result) => result,
        (error: unknown) => error as Error,
      );
      const stored = service.records().filter((r) => r.webhook_name === name);
      expect(stored, name).toHaveLength(1);
      const sent = service
        .requests()
        .filter((r) => r.route === "create" && (r.body as { webhook_name?: string }).webhook_name === name);
      expect(sent, name).toHaveLength(1);
      if (made instanceof Error) outcomes.push(`${name}: ${made.message.slice(0, 40)}`);
      else {
        expect(made.id).toBe(String(stored[0]!.webhook_id));
        expect(made.state.creatorId).toBe(OURS);
        outcomes.push(`${name}: recorded`);
      }
    }
    // Without principalId, the same answer is named and not taken (the create cannot be settled).
    expect(outcomes).toEqual([`lost-${OURS}: recorded`, expect.stringMatching(/^lost-none: create/)]);
  });

  it("the diff that brings the fact refuses a principalId it contradicts, naming both, before it looks at the service; any create after it sends nothing", async () => {
    const wrong = core(2010);
    const before = requestsSoFar();
    const refusal = await wrong
      .diff(base.id, base.state, BASE, NO_TAINT, STACK)
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Error);
    const message = (refusal as Error).message;
    expect(message).toContain("environment variable WEBHOOKS_PRINCIPAL_ID is 2010");
    expect(message).toContain(`endpoint ${base.id} (named "base"), which this stack created on this service`);
    expect(message).toContain(`as created by creator ${OURS}`);
    expect(message).toContain("nothing was sent to the service");
    expect(message).toContain(`\`export WEBHOOKS_PRINCIPAL_ID=${OURS}\``);
    const create = await wrong
      .create({ webhookName: "x", webhookUrl: "https://claims.example/x" }, NO_TAINT, STACK)
      .catch((error: unknown) => error);
    expect((create as Error).message).toContain("environment variable WEBHOOKS_PRINCIPAL_ID is 2010");
    expect((create as Error).message).toContain("so nothing was sent to the service");
    expect(requestsSoFar()).toBe(before);
    expect(service.records().map((r) => r.webhook_name)).toEqual(["base"]);
  });

  it("a principalId held secret: the refusal names neither it nor the recorded creator, and its fix keeps it secret", async () => {
    // docs/configuration.md: set with --secret, principalId and the creators it speaks for are
    // secret in state; a message that named them would print them.
    const held = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
    cores.push(held);
    held.configure(
      stackConfig(
        (key) =>
          ({
            "webhooks:baseUrl": service.url,
            "webhooks:accessToken": TOKEN,
            "webhooks:principalId": "2010",
          })[key],
      ),
    );
    const taint = { names: [], values: ["2010"] };
    const refusal = (await held
      .diff(base.id, base.state, BASE, taint, STACK)
      .catch((e: unknown) => e)) as Error;
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal.message).toContain("stack config webhooks:principalId is [secret]");
    expect(refusal.message).toContain(`endpoint ${base.id} (named "base")`);
    expect(refusal.message).toContain("as created by another creator");
    expect(refusal.message).toContain("`pulumi config set --secret webhooks:principalId <creatorId>`");
    expect(refusal.message).not.toMatch(/2010|1001/);
  });

  it("a diff that replaces the endpoint (its URL changed) brings the fact all the same", async () => {
    const wrong = core(2010, "dynamic");
    const before = requestsSoFar();
    await expect(
      wrong.diff(
        base.id,
        base.state,
        { ...BASE, webhookUrl: "https://claims.example/base-v2" },
        NO_TAINT,
        STACK,
      ),
    ).rejects.toThrow(/WEBHOOKS_PRINCIPAL_ID is 2010, but the state records endpoint \d+ \(named "base"\)/);
    expect(requestsSoFar()).toBe(before);
  });

  it("a principalId the facts agree with is not refused, and judges the answers", async () => {
    const right = core(OURS);
    expect((await right.diff(base.id, base.state, BASE, NO_TAINT, STACK)).changes).toBe(false);
    const made = await right.create(
      { webhookName: "y", webhookUrl: "https://claims.example/y" },
      NO_TAINT,
      STACK,
    );
    expect(made.state.creatorId).toBe(OURS);
  });

  it("what is not this stack's creation on this service is no fact: adopted, another stack's, another service's, an earlier release's", async () => {
    const recorded: Record<string, unknown>[] = [
      { provenance: { ...base.state.provenance!, how: "adopted" } },
      {
        provenance: { ...base.state.provenance!, stack: "shop/other" },
        stackRoot: "urn:pulumi:other::shop::pulumi:pulumi:Stack::shop-other",
      },
      { provenance: { ...base.state.provenance!, service: "https://elsewhere.example" } },
      { provenance: undefined, stackRoot: undefined },
    ];
    for (const fields of recorded) {
      const wrong = core(2010);
      const olds = { ...base.state, ...fields };
      const outcome = await wrong.diff(base.id, olds, BASE, NO_TAINT, STACK);
      expect(outcome.changes, JSON.stringify(fields)).toBe(false);
    }
  });

  it("a fact learnt while a create is in flight discredits the claim: the answer, by the creator the facts record, is recorded and the run fails", async () => {
    const wrong = core(2010);
    service.injectNext("create", "latency");
    const pending = wrong
      .create({ webhookName: "z", webhookUrl: "https://claims.example/z" }, NO_TAINT, STACK)
      .catch((error: unknown) => error);
    await waitUntil("the create reaches the service", () =>
      service.requests().some((r) => r.route === "create" && JSON.stringify(r.body).includes('"z"')),
    );
    // The engine sends the diff of an endpoint registered after the new one.
    await expect(wrong.diff(base.id, base.state, BASE, NO_TAINT, STACK)).rejects.toThrow(
      /WEBHOOKS_PRINCIPAL_ID is 2010/,
    );
    const outcome = await pending;
    expect(outcome, String(outcome)).toBeInstanceOf(EndpointCreatedButFailedError);
    const failed = outcome as EndpointCreatedButFailedError;
    const z = service.records().find((r) => r.webhook_name === "z")!;
    expect(failed.id).toBe(String(z.webhook_id));
    expect(failed.message).toMatch(
      new RegExp(`^endpoint ${z.webhook_id} was created and is recorded in state`),
    );
    expect(failed.message).toContain("environment variable WEBHOOKS_PRINCIPAL_ID is 2010");
    expect(failed.properties).toMatchObject({ webhookId: z.webhook_id, creatorId: OURS });
  });

  it("a fact that names nothing shown: a secret name stays out of the refusal", async () => {
    const wrong = core(2010);
    const refusal = await wrong
      .diff(base.id, base.state, BASE, { names: ["webhookName"], values: ["base"] }, STACK)
      .catch((error: unknown) => error);
    expect(String((refusal as Error).message)).toContain(
      `the state records endpoint ${base.id}, which this stack created on this service`,
    );
    expect(String((refusal as Error).message)).not.toContain('"base"');
  });

  it("a record without a creator, or under an id that is no webhook_id, is no fact", async () => {
    const wrong = core(2010);
    const { creatorId: _creator, ...noCreator } = base.state;
    await expect(
      wrong.diff(base.id, noCreator as WebhookEndpointOutputs, BASE, NO_TAINT, STACK),
    ).resolves.toMatchObject({ changes: false });
    for (const creatorId of [1001.5, "1001"])
      await expect(
        wrong.diff(base.id, { ...base.state, creatorId } as WebhookEndpointOutputs, BASE, NO_TAINT, STACK),
        String(creatorId),
      ).resolves.toHaveProperty("changes");
    // A replacement (its name changed) is answered without a lookup: the odd id reaches no listing.
    await expect(
      wrong.diff("not-an-id", base.state, { ...BASE, webhookName: "renamed" }, NO_TAINT, STACK),
    ).resolves.toMatchObject({ replaces: ["webhookName"] });
  });

  it("a replacement needs no connection: with none that resolves it teaches nothing and is answered; otherwise the settings' error", async () => {
    const unset = new ProviderCore({ face: "native", notify: () => {}, env: {} });
    cores.push(unset);
    await expect(
      unset.diff(
        base.id,
        base.state,
        { ...BASE, webhookUrl: "https://claims.example/moved" },
        NO_TAINT,
        STACK,
      ),
    ).resolves.toMatchObject({ replaces: ["webhookUrl"] });
    await expect(unset.diff(base.id, base.state, BASE, NO_TAINT, STACK)).rejects.toThrow(
      /the API base URL is not set/,
    );
  });

  it("a principalId changed in the environment between calls is the one checked", async () => {
    const env: NodeJS.ProcessEnv = {
      WEBHOOKS_BASE_URL: service.url,
      WEBHOOKS_ACCESS_TOKEN: TOKEN,
      WEBHOOKS_PRINCIPAL_ID: "2010",
    };
    const changing = new ProviderCore({ face: "native", notify: () => {}, env });
    cores.push(changing);
    await expect(changing.diff(base.id, base.state, BASE, NO_TAINT, STACK)).rejects.toThrow(/is 2010/);
    env.WEBHOOKS_PRINCIPAL_ID = String(OURS);
    await expect(changing.diff(base.id, base.state, BASE, NO_TAINT, STACK)).resolves.toMatchObject({
      changes: false,
    });
  });

  it("another service's endpoint behind the same id (the connection now reaches another service) is no fact, once seen", async () => {
    // The state's record differs from what the service holds under its id: created by another creator.
    const elsewhere = { ...base.state, creatorId: 77 };
    const wrong = core(OURS);
    // At receipt it reads as a fact (77) that contradicts principalId 1001: refused before anything is sent.
    await expect(wrong.diff(base.id, elsewhere, BASE, NO_TAINT, STACK)).rejects.toThrow(
      /as created by creator 77/,
    );
    // Without a claim, the diff looks, finds another endpoint there, and forgets the fact: the
    // stack's create answered by 1001 is not refused on its account.
    const open = core();
    const outcome = await open.diff(base.id, elsewhere, BASE, NO_TAINT, STACK);
    expect(outcome.replaces).toEqual(["webhookId"]);
    const made = await open.create(
      { webhookName: "w", webhookUrl: "https://claims.example/w" },
      NO_TAINT,
      STACK,
    );
    expect(made.state.creatorId).toBe(OURS);
  });
});

describe("the rule (principal.ts)", () => {
  const claim: PrincipalClaim = {
    id: 5,
    source: "stack config webhooks:principalId",
    howToSet: "pulumi config set webhooks:principalId <value>",
  };
  const fact = (webhookId: number, creatorId: number, holder = `resource r${webhookId}`): CreatorFact => ({
    webhookId,
    creatorId,
    holder,
  });

  it("a claim is contradicted by any fact of another creator, the lowest webhook_id named whatever the order", () => {
    expect(contradiction(claim, [fact(9, 7), fact(3, 5), fact(4, 8), fact(12, 6)])).toEqual({
      claim,
      fact: fact(4, 8),
    });
    expect(contradiction(claim, [fact(4, 8), fact(9, 7)])?.fact.webhookId).toBe(4);
    expect(contradiction(claim, [fact(3, 5), fact(4, 5)])).toBeUndefined();
    expect(contradiction(claim, [])).toBeUndefined();
    expect(contradiction(undefined, [fact(1, 7)])).toBeUndefined();
  });

  it("the stack's principal: the claim when made, else the creators the facts record", () => {
    expect([...principalsOf(claim, [fact(1, 7)])]).toEqual([5]);
    expect([...principalsOf(undefined, [fact(1, 7), fact(2, 8), fact(3, 7)])]).toEqual([7, 8]);
    expect(principalsOf(undefined, []).size).toBe(0);
  });

  it("the refusal names both, what holds the endpoint unless nothing may be shown, what was not done, and the fix", () => {
    const named = contradictionMessage({ claim, fact: fact(4, 8) }, "nothing was changed");
    expect(named).toMatch(
      /^stack config webhooks:principalId is 5, but the state records endpoint 4 \(resource r4\), which this stack created on this service, as created by creator 8: the principalId contradicts what the state records, so nothing was changed\. /,
    );
    expect(named).toContain("(`pulumi config set webhooks:principalId 8`)");
    const unnamed = contradictionMessage({ claim, fact: fact(4, 8, "") }, "nothing was sent");
    expect(unnamed).toContain("the state records endpoint 4, which this stack created");
    expect(unnamed).not.toContain("()");
  });
});

describe("judging a create's answer against the claim and the facts (provider core)", () => {
  const THIRD = { token: "tok_third_team_8a31", creator: { id: 300, name: "third-team" } };
  let service: Emulator;
  const cores: ProviderCore[] = [];
  const core = (env: Record<string, string> = {}, face: "dynamic" | "native" = "native") => {
    const made = new ProviderCore({
      face,
      notify: () => {},
      env: { WEBHOOKS_BASE_URL: service.url, WEBHOOKS_ACCESS_TOKEN: TOKEN, ...env },
    });
    cores.push(made);
    return made;
  };
  beforeEach(async () => {
    // A service that keeps names unique and answers a create of a taken name with what it has; a
    // create a test injects latency into is held 3 s, while another team creates the same.
    service = await startEmulator({
      accessToken: TOKEN,
      creator: { id: OURS, name: "team-a" },
      uniqueNames: true,
      takenName: "existing",
      principals: [
        { token: OTHER_TEAM.token, creator: { ...OTHER_TEAM.creator } },
        { token: THIRD.token, creator: { ...THIRD.creator } },
      ],
      faults: { create: { rate: 0, slowMs: 3_000 } },
    });
  });
  afterEach(async () => {
    await Promise.all(cores.splice(0).map((made) => made.close()));
    await service.close();
  });

  /** The stack's create of `name`, held at the service while `team` creates the same: the outcome. */
  async function raced(
    on: ProviderCore,
    name: string,
    team: { token: string },
    resource?: string,
    whileHeld: () => Promise<void> = async () => {},
  ): Promise<unknown> {
    const endpoint = { webhookName: name, webhookUrl: `https://claims.example/${name}` };
    service.injectNext("create", "latency");
    const pending = on.create(endpoint, NO_TAINT, STACK, resource).catch((error: unknown) => error);
    await waitUntil("the create reaches the service", () =>
      service.requests().some((r) => r.route === "create" && JSON.stringify(r.body).includes(`"${name}"`)),
    );
    await createAs(service.url, team.token, endpoint);
    await whileHeld();
    return pending;
  }
  /** An endpoint `team` made, as the state records one this stack created (a release before principalId took it so). */
  async function recordedAsCreated(
    name: string,
    token: string,
  ): Promise<{ id: string; olds: WebhookEndpointOutputs }> {
    const made = await core({ WEBHOOKS_ACCESS_TOKEN: token }).create(
      { webhookName: name, webhookUrl: `https://claims.example/${name}` },
      NO_TAINT,
      STACK,
    );
    return { id: made.id, olds: made.state };
  }
  const diffAsHeld = (on: ProviderCore, held: { id: string; olds: WebhookEndpointOutputs }) =>
    on.diff(
      held.id,
      held.olds,
      { webhookName: held.olds.webhookName, webhookUrl: held.olds.webhookUrl },
      NO_TAINT,
      STACK,
    );

  it("a claim the facts agree with judges alone: another team's answer is refused, saying the facts agree", async () => {
    const base = await recordedAsCreated("base", TOKEN);
    const claimed = core({ WEBHOOKS_PRINCIPAL_ID: String(OURS) });
    await diffAsHeld(claimed, base);
    const outcome = await raced(claimed, "x", OTHER_TEAM);
    expect(String((outcome as Error).message)).toContain(
      `created by creator 200, but environment variable WEBHOOKS_PRINCIPAL_ID is ${OURS}, as the endpoints this stack created on this service record: another principal may have created`,
    );
  });

  it("with no claim, facts that name two creators are named in order, and a third creator's answer is refused", async () => {
    const theirs = await recordedAsCreated("theirs", OTHER_TEAM.token);
    const base = await recordedAsCreated("base", TOKEN);
    const open = core();
    // Learnt in this order, named in the other.
    await diffAsHeld(open, base);
    await diffAsHeld(open, theirs);
    const outcome = await raced(open, "y", THIRD);
    expect(String((outcome as Error).message)).toContain(
      `created by creator 300, but the endpoints this stack created on this service were created by 200, ${OURS}: `,
    );
  });

  it("a fact learnt in flight discredits the claim even when the facts disagree: the stack's own answer is recorded, and the run stops", async () => {
    const theirs = await recordedAsCreated("theirs", OTHER_TEAM.token);
    const base = await recordedAsCreated("base", TOKEN);
    const wrong = core({ WEBHOOKS_PRINCIPAL_ID: "2010" });
    // The run's new endpoint z, with nobody racing it: the diffs come while it is held.
    service.injectNext("create", "latency");
    const pending = wrong
      .create({ webhookName: "z", webhookUrl: "https://claims.example/z" }, NO_TAINT, STACK)
      .catch((error: unknown) => error);
    await waitUntil("the create reaches the service", () =>
      service.requests().some((r) => r.route === "create" && JSON.stringify(r.body).includes('"z"')),
    );
    await expect(diffAsHeld(wrong, theirs)).rejects.toThrow(/WEBHOOKS_PRINCIPAL_ID is 2010/);
    await expect(diffAsHeld(wrong, base)).rejects.toThrow(/WEBHOOKS_PRINCIPAL_ID is 2010/);
    const outcome = await pending;
    expect(outcome, String(outcome)).toBeInstanceOf(EndpointCreatedButFailedError);
    expect((outcome as Error).message).toContain("so this run stops");
    expect((outcome as EndpointCreatedButFailedError).properties).toMatchObject({ creatorId: OURS });
  });

  it("with no fact yet, the refusal gives the one step that takes the endpoint over, for each face", async () => {
    const dynamic = core({ WEBHOOKS_PRINCIPAL_ID: "2010" }, "dynamic");
    const answered = await raced(dynamic, "d", OTHER_TEAM);
    const dId = service.records().find((r) => r.webhook_name === "d")!.webhook_id;
    expect(String((answered as Error).message)).toContain(
      `correct it (\`export WEBHOOKS_PRINCIPAL_ID=200\`) and take the endpoint over: set \`adoptWebhookId: ${dId}\` on the resource (\`webhooks adopt --id ${dId}\` prints the declaration)`,
    );
    const native = core({ WEBHOOKS_PRINCIPAL_ID: "2010" });
    const urn = "urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::orders hook";
    const answeredNative = await raced(native, "n", OTHER_TEAM, urn);
    const nId = service.records().find((r) => r.webhook_name === "n")!.webhook_id;
    expect(String((answeredNative as Error).message)).toContain(
      `take the endpoint over: \`pulumi import webhooks:index:WebhookEndpoint 'orders hook' ${nId}\``,
    );
  });

  it("an adoption is neither refused by a claim nor judged by it: the endpoint is a person's choice", async () => {
    const base = await recordedAsCreated("base", TOKEN);
    const theirs = await createAs(service.url, OTHER_TEAM.token, {
      webhookName: "adopted",
      webhookUrl: "https://claims.example/adopted",
    });
    for (const claimed of ["2010", String(OURS)]) {
      const on = core({ WEBHOOKS_PRINCIPAL_ID: claimed });
      await diffAsHeld(on, base).catch(() => undefined);
      const adopted = await on.create(
        {
          webhookName: "adopted",
          webhookUrl: "https://claims.example/adopted",
          adoptWebhookId: theirs.webhook_id,
        },
        NO_TAINT,
        STACK,
      );
      expect(adopted.state, claimed).toMatchObject({ creatorId: 200, provenance: { how: "adopted" } });
    }
  });
});
