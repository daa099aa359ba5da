// Facts before claims, in the provider core (issue 25, case 3). An outside team set a wrong
// webhooks:principalId on a stack whose state records the endpoints it created, with their creator:
// every `up` sent its creates, refused each answer (by the token's real principal) and recorded
// nothing, leaving new endpoints nothing can delete. docs/reliability.md ("Facts before claims, and
// checks before effects") promises instead: a principalId that a recorded fact contradicts is
// refused, naming both, before anything is sent, by the diff that brings the fact and by any create
// after it; a fact learnt while a create is in flight discredits the claim, and the facts judge the
// answer.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EndpointCreatedButFailedError } from "../../src/core/errors";
import { ProviderCore } from "../../src/core/provider-core";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { NO_TAINT } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";
import { waitUntil } from "../support/helpers";

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
    expect(requestsSoFar()).toBe(before);
    expect(service.records().map((r) => r.webhook_name)).toEqual(["base"]);
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
