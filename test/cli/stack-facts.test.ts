// The facts recover (and orphans) learn the stack's principal from: the endpoints the stack itself
// created on a service, with the creator the state records (docs/operator-cli.md, recover step 5),
// read from a state as `pulumi stack export` prints it. A record that names no creator, or holds no
// webhook_id, teaches nothing; neither do endpoints moved in from another stack, adopted ones, or
// those on another service; a renamed stack's own still do.
import { describe, expect, it } from "vitest";
import { stackCreators, stackFacts, type StateResource } from "../../src/cli/stack/deployment";
import { SIG_KEY } from "../../src/core/wire";

const SERVICE = "https://api.example.com";
const TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";
const root = (stack: string) => ({
  [SIG_KEY]: "5cf8f73096256a8f31e491e813e4eb8e",
  urn: `urn:pulumi:${stack}::shop::pulumi:pulumi:Stack::shop-${stack}`,
  packageVersion: "",
});

/** An endpoint resource of stack `prod`, as an export shows it. */
function endpoint(name: string, id: string | undefined, outputs: Record<string, unknown>): StateResource {
  return {
    urn: `urn:pulumi:prod::shop::${TYPE}::${name}`,
    type: TYPE,
    custom: true,
    ...(id === undefined ? {} : { id }),
    outputs: { webhookName: name, ...outputs },
  };
}
const created = (stack: string, service = SERVICE) => ({ how: "created", service, stack });

describe("the facts a state records of the stack's principal on a service", () => {
  const resources = [
    endpoint("own", "1", { creatorId: 11, provenance: created("shop/prod"), stackRoot: root("prod") }),
    endpoint("renamed", "2", { creatorId: 12, provenance: created("shop/dev"), stackRoot: root("prod") }),
    endpoint("earlier", "3", { creatorId: 13, provenance: created("shop/prod") }),
    endpoint("moved", "4", { creatorId: 14, provenance: created("shop/qa"), stackRoot: root("qa") }),
    endpoint("adopted", "5", { creatorId: 15, provenance: { ...created("shop/prod"), how: "adopted" } }),
    endpoint("elsewhere", "6", { creatorId: 16, provenance: created("shop/prod", "https://other.example") }),
    endpoint("secret-creator", "7", {
      creatorId: { [SIG_KEY]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:x" },
      provenance: created("shop/prod"),
    }),
    endpoint("no-id", undefined, { creatorId: 18, provenance: created("shop/prod") }),
    // A hand-edited state's resource with no outputs at all.
    { urn: `urn:pulumi:prod::shop::${TYPE}::bare`, type: TYPE, custom: true, id: "9" },
  ];

  it("are the endpoints it created there, renamed with it or recorded by name, each with its creator and resource", () => {
    expect(stackFacts({ resources }, SERVICE)).toEqual([
      { webhookId: 1, creatorId: 11, holder: `resource urn:pulumi:prod::shop::${TYPE}::own` },
      { webhookId: 2, creatorId: 12, holder: `resource urn:pulumi:prod::shop::${TYPE}::renamed` },
      { webhookId: 3, creatorId: 13, holder: `resource urn:pulumi:prod::shop::${TYPE}::earlier` },
    ]);
    expect([...stackCreators({ resources }, SERVICE)]).toEqual([11, 12, 13]);
    expect(stackFacts({ resources }, "https://other.example").map((f) => f.webhookId)).toEqual([6]);
    expect(stackFacts({ resources: [] }, SERVICE)).toEqual([]);
  });
});
