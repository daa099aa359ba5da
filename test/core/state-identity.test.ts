// The stack an endpoint entered, across `pulumi stack rename`. Provenance named the stack
// by name, which a rename does not carry: the stack's own endpoints then looked moved in from
// another stack. Each endpoint now also records `stackRoot`, a reference to the root resource of the
// stack it entered, which the engine rewrites on a rename and leaves on a move (docs/reliability.md,
// "A stack's identity across a rename"; seen through the engine in test/e2e/principal-claims.test.ts).
import { describe, expect, it } from "vitest";
import type { WebhookEndpointRecord } from "../../src/client";
import {
  createdByItsStack,
  enteredStack,
  stackRootOf,
  stateAfterCreate,
  stateAfterRead,
  stateAfterUpdate,
  type Provenance,
} from "../../src/core/state";
import {
  RESOURCE_REFERENCE_SIG,
  SIG_KEY,
  referencedUrn,
  resourceReference,
  rootStackUrn,
} from "../../src/core/wire";

const ROOT_DEV = "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev";
const ENDPOINT_IN = (stack: string) =>
  `urn:pulumi:${stack}::shop::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::orders`;
const CREATED: Provenance = { how: "created", service: "https://api.example.com", stack: "shop/dev" };
const RECORD: WebhookEndpointRecord = {
  webhookId: 7,
  webhookName: "orders",
  webhookUrl: "https://example.com/orders",
  signSecret: "whsec_identity",
  creatorId: 1001,
  creatorName: "team-a",
  createTime: 1_700_000_000_000,
  operatorId: 1001,
  operatorName: "team-a",
  operateTime: 1_700_000_000_000,
};

describe("the stack an endpoint entered", () => {
  it("the root resource of <project>/<stack> is pulumi:pulumi:Stack named <project>-<stack>", () => {
    expect(rootStackUrn("shop/dev")).toBe(ROOT_DEV);
    for (const notAStack of ["unknown", "shop/dev/x", "/dev", "shop/", "sh:op/dev", "shop/d:ev", ""])
      expect(rootStackUrn(notAStack), notAStack).toBeUndefined();
  });

  it("is stored as a resource reference, and read back in each form the engine hands it over", () => {
    expect(resourceReference(ROOT_DEV)).toEqual({
      "4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e",
      urn: ROOT_DEV,
    });
    expect([SIG_KEY, RESOURCE_REFERENCE_SIG]).toEqual([
      "4dabf18193072939515e22adb298388d",
      "5cf8f73096256a8f31e491e813e4eb8e",
    ]);
    // As the state and the native face see it (with the packageVersion the engine adds), and as the
    // dynamic-provider host is handed it (the URN alone: it accepts no references).
    expect(stackRootOf({ ...resourceReference(ROOT_DEV), packageVersion: "" })).toBe(ROOT_DEV);
    expect(stackRootOf(ROOT_DEV)).toBe(ROOT_DEV);
    expect(referencedUrn(resourceReference(ROOT_DEV))).toBe(ROOT_DEV);
    for (const notAReference of [{ ...resourceReference(ROOT_DEV), urn: 7 }, ROOT_DEV, null, 7])
      expect(referencedUrn(notAReference), JSON.stringify(notAReference)).toBeUndefined();
    // Anything else is no record of it: a secret's wrapper, another signature, not a URN.
    for (const other of [
      { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", urn: ROOT_DEV },
      { urn: ROOT_DEV },
      { ...resourceReference(ROOT_DEV), urn: 7 },
      "shop/dev",
      resourceReference("not a urn"),
      null,
      undefined,
      42,
    ])
      expect(stackRootOf(other), JSON.stringify(other)).toBeUndefined();
  });

  it("is the stack its stackRoot names; else, in a state of an earlier release, the name its provenance recorded", () => {
    const renamed = "urn:pulumi:prod::shop::pulumi:pulumi:Stack::shop-prod";
    expect(enteredStack({ provenance: CREATED, stackRoot: renamed })).toBe("shop/prod");
    expect(enteredStack({ provenance: CREATED })).toBe("shop/dev");
    expect(enteredStack({ provenance: CREATED, stackRoot: "garbage" })).toBe("shop/dev");
    expect(enteredStack({})).toBeUndefined();
  });

  it("an endpoint is its stack's creation when created in the stack its URN names, renamed or not; not when moved in, adopted or unknown", () => {
    expect(createdByItsStack(CREATED, ENDPOINT_IN("dev"), ROOT_DEV)).toBe(true);
    expect(createdByItsStack(CREATED, ENDPOINT_IN("dev"))).toBe(true);
    // Renamed dev -> prod: the engine rewrote the URN and the reference, not the provenance's name.
    const renamedRoot = resourceReference("urn:pulumi:prod::shop::pulumi:pulumi:Stack::shop-prod");
    expect(createdByItsStack(CREATED, ENDPOINT_IN("prod"), renamedRoot)).toBe(true);
    // Moved from dev into prod: the URN rewritten, the reference not.
    expect(createdByItsStack(CREATED, ENDPOINT_IN("prod"), resourceReference(ROOT_DEV))).toBe(false);
    // Renamed, in a state of an earlier release: the name alone, which no longer matches.
    expect(createdByItsStack(CREATED, ENDPOINT_IN("prod"))).toBe(false);
    expect(createdByItsStack({ ...CREATED, how: "adopted" }, ENDPOINT_IN("dev"), ROOT_DEV)).toBe(false);
    expect(createdByItsStack(undefined, ENDPOINT_IN("dev"), ROOT_DEV)).toBe(false);
  });

  it("is recorded on create and on import, carried by a refresh and an update, in one form", () => {
    const created = stateAfterCreate(
      RECORD,
      { webhookName: "orders", webhookUrl: RECORD.webhookUrl },
      CREATED,
    );
    expect(created.stackRoot).toBe(ROOT_DEV);
    expect("stackRoot" in stateAfterCreate(RECORD, created, { ...CREATED, stack: "unknown" })).toBe(false);
    // A refresh keeps it, from either form; an import records the importing stack's.
    expect(
      stateAfterRead(RECORD, { ...created, stackRoot: resourceReference(ROOT_DEV) as never }).stackRoot,
    ).toBe(ROOT_DEV);
    expect(
      stateAfterRead(RECORD, {}, { how: "imported", service: CREATED.service, stack: "shop/qa" }).stackRoot,
    ).toBe("urn:pulumi:qa::shop::pulumi:pulumi:Stack::shop-qa");
    const { stackRoot: _none, ...earlier } = created;
    expect("stackRoot" in stateAfterRead(RECORD, earlier)).toBe(false);
    // An update keeps it as the URN, whichever form the engine handed over.
    expect(
      stateAfterUpdate({ ...created, stackRoot: resourceReference(ROOT_DEV) as never }, created).stackRoot,
    ).toBe(ROOT_DEV);
    expect("stackRoot" in stateAfterUpdate(earlier, earlier)).toBe(false);
  });
});
