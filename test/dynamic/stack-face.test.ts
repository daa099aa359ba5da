import { describe, expect, it } from "vitest";
import { provider, stackFace, type DynamicWebhookProvider } from "../../src/dynamic/provider";

/**
 * The stored text (src/dynamic/stored-provider.js) calls the package's provider through its face for
 * the text's stack, and that face hands the stack to the provider as `__stack` in the program's
 * inputs (docs/dynamic-resource.md, "The provider text stored in state"): `check(olds, news)`,
 * `diff(id, olds, news)`, `create(inputs)` and `update(id, olds, news)` carry the program's inputs in
 * `news` and `inputs`; the other arguments, and `read`'s and `delete`'s, hold what the state recorded,
 * which may be another stack's (a resource `pulumi state move` brought in), and are left as they are.
 */
const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;

/** A provider that answers every call with the arguments it was given. */
function recording(): DynamicWebhookProvider {
  return Object.fromEntries(
    METHODS.map((method) => [method, (...args: unknown[]) => Promise.resolve(args)]),
  ) as unknown as DynamicWebhookProvider;
}

describe("the provider's face for a stack", () => {
  const olds = { webhookName: "old", __provider: "old text" };
  const news = { webhookName: "new", __provider: "this text" };
  const withStack = { ...news, __stack: "orders/prod" };

  it("hands the stack in the program's inputs, and nowhere else", async () => {
    const face = stackFace(recording(), "orders/prod") as unknown as Record<
      (typeof METHODS)[number],
      (...args: unknown[]) => Promise<unknown[]>
    >;
    expect(await face.check({ ...olds }, { ...news })).toEqual([olds, withStack]);
    expect(await face.diff("1", { ...olds }, { ...news })).toEqual(["1", olds, withStack]);
    expect(await face.create({ ...news })).toEqual([withStack]);
    expect(await face.update("1", { ...olds }, { ...news })).toEqual(["1", olds, withStack]);
    expect(await face.read("1", { ...olds })).toEqual(["1", olds]);
    expect(await face.delete("1", { ...olds })).toEqual(["1", olds]);
    expect(await face.configure({ config: "c" })).toEqual([{ config: "c" }]);
  });

  it("leaves the host's objects as they are", async () => {
    const face = stackFace(recording(), "orders/prod");
    const given = { ...news };
    await face.create(given as never);
    await face.check({} as never, given as never);
    expect(given).toEqual(news);
  });

  it("is one face per stack for the process, each with its own stack", () => {
    expect(provider.forStack("orders/prod")).toBe(provider.forStack("orders/prod"));
    expect(provider.forStack("orders/dev")).not.toBe(provider.forStack("orders/prod"));
    // Every method the host calls is there, on the provider and on each face.
    for (const method of METHODS) {
      expect(typeof provider[method]).toBe("function");
      expect(typeof provider.forStack("orders/dev")[method]).toBe("function");
    }
  });
});
