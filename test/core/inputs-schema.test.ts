// The hand-written check of valid inputs (passesSchema, which spares the provider host loading zod)
// against the zod input schemas that define them, for both faces: on generated inputs, from valid to
// hostile, whatever the check lets through the schema accepts, and ordinary valid inputs are let through.
// Seeds are fixed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inputSchemas, passesSchema, validateInputs } from "../../src/core/inputs";
import { UNKNOWN } from "../../src/core/wire";

const text = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9 _-]{0,20}$/), weight: 4 },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 4 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 10 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      "",
      " ",
      " orders",
      "orders ",
      "a\u0000b",
      "a\nb",
      "x".repeat(128),
      "x".repeat(129),
      "😀".repeat(64),
      "😀".repeat(65),
      "e\u0301",
    ),
    weight: 2,
  },
);
const url = fc.oneof(
  { arbitrary: fc.webUrl(), weight: 4 },
  { arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      "https://example.com/hooks/orders",
      "http://example.com",
      "https://user:pw@example.com/x",
      "ftp://example.com/x",
      "javascript:alert(1)",
      "/relative",
      "https://",
      "https://exa mple.com",
      `https://example.com/${"x".repeat(2040)}`,
      `https://example.com/${"x".repeat(2050)}`,
      "HTTPS://EXAMPLE.COM/X",
    ),
    weight: 2,
  },
  { arbitrary: text, weight: 1 },
);
const other = fc.constantFrom<unknown>(undefined, null, 0, 1, -1, 1.5, true, [], {}, UNKNOWN, "1");
const adoptId = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 4 },
  { arbitrary: fc.maxSafeInteger(), weight: 2 },
  { arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, NaN, Infinity, "12", UNKNOWN), weight: 1 },
);
const connection = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 4 },
  {
    arbitrary: fc.record(
      { baseUrl: fc.oneof(url, other), accessToken: fc.oneof(text, other), allowInsecureHttp: other },
      { requiredKeys: [] },
    ),
    weight: 1,
  },
  { arbitrary: other, weight: 1 },
);
const inputs = fc
  .record({
    webhookName: fc.oneof({ arbitrary: text, weight: 6 }, { arbitrary: other, weight: 1 }),
    webhookUrl: fc.oneof({ arbitrary: url, weight: 6 }, { arbitrary: other, weight: 1 }),
    adoptWebhookId: adoptId,
    connection,
    __secretInputs: fc.constantFrom<unknown>(undefined, ["webhooks:accessToken"]),
    __provider: fc.constantFrom<unknown>(undefined, "exports.handler = () => ({})"),
  })
  .map((news) => Object.fromEntries(Object.entries(news).filter(([, v]) => v !== undefined)));

describe("the hand-written check of valid inputs", () => {
  it("lets through only inputs that both faces' schemas accept", () => {
    let passed = 0;
    fc.assert(
      fc.property(inputs, (news) => {
        const candidate = Object.fromEntries(Object.entries(news).filter(([, v]) => v !== null));
        if (!passesSchema(candidate)) return;
        passed++;
        expect(inputSchemas().dynamic.safeParse(candidate).success).toBe(true);
        expect(inputSchemas().native.safeParse(candidate).success).toBe(true);
        expect(validateInputs(news, { connection: true })).toEqual([]);
        expect(validateInputs(news, { connection: false })).toEqual([]);
      }),
      { seed: 28_11, numRuns: 4000 },
    );
    // The generator reaches the passing side often enough for the property to say something.
    expect(passed).toBeGreaterThan(500);
  });

  it("lets through ordinary valid inputs, known or not yet known", () => {
    for (const news of [
      { webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" },
      { webhookName: UNKNOWN, webhookUrl: UNKNOWN },
      { webhookName: "orders", webhookUrl: "http://localhost:8080/x", adoptWebhookId: 42 },
      { webhookName: "orders", webhookUrl: "https://example.com/x", adoptWebhookId: UNKNOWN, __stack: "p/s" },
    ])
      expect(passesSchema(news)).toBe(true);
  });
});
