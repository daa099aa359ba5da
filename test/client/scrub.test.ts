import { describe, expect, it } from "vitest";
import { WebhookApiError, WebhookCreateUncertainError } from "../../src/client";
import { ListedSecrets, scrubSecrets } from "../../src/client/scrub";
import { everythingVisible } from "../support/helpers";

/**
 * The client redacts the signing secrets a create's listings returned from the errors it throws
 * (docs/client.md). Some of the errors it holds are not its own: a cancel's reason is whatever the
 * caller passed, or Node's DOMException, whose `message` is a getter with no setter. Redacting must
 * never throw in their place, and what it cannot rewrite it must not show.
 */
const SECRET = "whsec_listed_4d1c9a7e";

describe("redacting listed secrets from errors that refuse writes", () => {
  it("Node's own abort reason, a DOMException with a getter-only message, is taken as it is", () => {
    const reason = new AbortController();
    reason.abort();
    const error: unknown = reason.signal.reason;
    expect(error).toBeInstanceOf(Error);
    expect(() => scrubSecrets(error, [SECRET])).not.toThrow();
    expect((error as Error).message).toBe("This operation was aborted");
  });

  it("a DOMException whose message holds a secret shows it no more", () => {
    const error = new DOMException(`stopped at ${SECRET}`, "AbortError");
    expect(() => scrubSecrets(error, [SECRET])).not.toThrow();
    expect(everythingVisible(error)).not.toContain(SECRET);
    expect(error.message).toContain("stopped at");
    expect(error.name).toBe("AbortError");
  });

  it("a frozen cause that holds a secret is replaced, in the error above it, by a copy without it", () => {
    const deepest = new Error(`deepest ${SECRET}`);
    const frozen = Object.freeze(
      Object.assign(new TypeError(`frozen ${SECRET}`, { cause: deepest }), { code: "E_X" }),
    );
    const error = new WebhookCreateUncertainError(`outer ${SECRET}`, { operation: "create", cause: frozen });
    // V8 words a stack when it is first read: read now, it holds the message as it was.
    expect(error.stack).toContain(SECRET);
    expect(() => scrubSecrets(error, [SECRET])).not.toThrow();
    expect(everythingVisible(error)).not.toContain(SECRET);
    expect(error.message).toContain("outer");
    const copy = error.cause as Error & { code?: string };
    expect(copy).not.toBe(frozen);
    expect(copy).toMatchObject({ name: "TypeError", code: "E_X" });
    expect(copy.message).toContain("frozen");
    expect((copy.cause as Error).message).toContain("deepest");
  });

  it("a frozen cause without a secret is kept, and so is what lies below it when clean", () => {
    const frozen = Object.freeze(new Error("plain words"));
    const error = new WebhookApiError(`outer ${SECRET}`, { operation: "list", cause: frozen });
    scrubSecrets(error, [SECRET]);
    expect(error.cause).toBe(frozen);
    expect(everythingVisible(error)).not.toContain(SECRET);
  });

  it("a cause with its own getter holding a secret is replaced too", () => {
    const stubborn = new Error("placeholder");
    Object.defineProperty(stubborn, "message", { get: () => `getter ${SECRET}`, configurable: false });
    const error = new WebhookApiError("outer", { operation: "create", cause: stubborn });
    expect(() => scrubSecrets(error, [SECRET])).not.toThrow();
    expect(everythingVisible(error)).not.toContain(SECRET);
    expect((error.cause as Error).message).toContain("getter");
  });

  it("the service's text fields are redacted and a trace id that holds a secret is absent", () => {
    const error = new WebhookApiError("refused", {
      operation: "create",
      msg: `duplicate of ${SECRET}`,
      serviceCode: `E${SECRET}`,
      traceId: `t-${SECRET}`,
    });
    scrubSecrets(error, [SECRET]);
    expect(everythingVisible(error)).not.toContain(SECRET);
    expect(error.msg).toContain("duplicate of");
    expect(error.traceId).toBeUndefined();
  });
});

describe("the secrets a listing operation has listed, against a documented trace id", () => {
  const trace = "0123456789abcdef00000000FEEDFACE";
  const listed = (...secrets: string[]) => {
    const all = new ListedSecrets();
    all.add(secrets.map((signSecret) => ({ signSecret })));
    return all;
  };
  it("one of 8 hex digits or more anywhere in it, in any letter case, shows; a shorter one is left to the sign_secret pattern", () => {
    expect(listed("feedface").inTraceId(trace)).toBe(true);
    expect(listed("CDEF0000").inTraceId(trace)).toBe(true);
    expect(listed("9abcdef").inTraceId(trace)).toBe(false);
    expect(listed("9abcdef").values).toEqual([]);
  });
  it("one that is not hex digits, or not in it, does not; each secret is kept once", () => {
    expect(listed("whsec_89abcdef").inTraceId(trace)).toBe(false);
    expect(listed("fedcba9876").inTraceId(trace)).toBe(false);
    expect(listed("whsec_listed_1", "whsec_listed_1").values).toEqual(["whsec_listed_1"]);
  });
});
