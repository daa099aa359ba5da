// Pulumi's wire formats as the engine writes them (the URN form of Pulumi's documentation:
// urn:pulumi:<stack>::<project>::<qualified type>::<name>), read in one place for every face and
// the CLI.
import { describe, expect, it } from "vitest";
import { configString, parseUrn, stackOfUrn, unwrapSecrets, urnName } from "../../src/core/wire";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

describe("URNs", () => {
  it("a resource's stack, project, type and name", () => {
    expect(parseUrn("urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::orders")).toEqual({
      stack: "dev",
      project: "shop",
      type: "webhooks:index:WebhookEndpoint",
      name: "orders",
    });
    expect(stackOfUrn("urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::orders")).toBe("shop/dev");
  });

  it("a child's qualified type, and a name that holds '::' (names may; types may not)", () => {
    const urn = "urn:pulumi:prod::shop::my:Component$pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::a::b";
    expect(parseUrn(urn)).toMatchObject({
      type: "my:Component$pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
      name: "a::b",
    });
    expect(urnName(urn)).toBe("a::b");
  });

  it("text that is no URN: no parts, and the text as its own name", () => {
    expect(parseUrn("orders")).toBeUndefined();
    expect(stackOfUrn("urn:pulumi:dev")).toBeUndefined();
    expect(urnName("orders")).toBe("orders");
  });
});

describe("property values", () => {
  it("secrets unwrapped at any depth, the rest as it is", () => {
    const wrapped = { a: { [SIG]: SECRET, value: { b: [{ [SIG]: SECRET, value: "x" }] } }, c: 1 };
    expect(unwrapSecrets(wrapped)).toEqual({ a: { b: ["x"] }, c: 1 });
  });

  it("a config value as text, and none for an unknown or absent one", () => {
    expect(configString({ [SIG]: SECRET, value: 8 })).toBe("8");
    expect(configString(true)).toBe("true");
    expect(configString("04da6b54-80e4-46f7-96ec-b56ff0331ba9")).toBeUndefined();
    expect(configString(null)).toBeUndefined();
  });
});
