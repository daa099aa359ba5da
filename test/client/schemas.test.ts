// The hand-written checks of the documented success responses (CREATE_RESPONSE.match and
// LIST_RESPONSE.match, which spare the provider host loading zod) against the zod schemas that define
// them: on thousands of generated answers, from documented to hostile, a check that accepts returns
// exactly what the schema's parse returns, and every documented answer is accepted by it. Seeds are fixed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CREATE_RESPONSE,
  LIST_RESPONSE,
  RECORD_FIELD_LIMITS,
  type ResponseShape,
} from "../../src/client/schemas";

/** Object keys a hostile JSON body may hold besides the documented ones (JSON.parse makes `__proto__` an own key). */
const oddKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "toString",
  "extra",
  "next_cursor",
  "has_more",
  "",
);

/** An object with these own entries, as JSON.parse builds it (an own `__proto__` included). */
function object(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.string(),
  fc.constant([]),
  fc.constant({}),
);

const integer = fc.oneof(
  { arbitrary: fc.maxSafeInteger(), weight: 6 },
  {
    arbitrary: fc.constantFrom(0, -0, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1.5, -1.5, Infinity, NaN, 1e21),
    weight: 2,
  },
  { arbitrary: fc.constantFrom("1", "200", true, null, [], {}), weight: 1 },
);

/** Text around a length limit, in UTF-16 code units and in characters (an astral character is two units). */
function textAround(min: number, max: number): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.string({ maxLength: 40 }), weight: 6 },
    {
      arbitrary: fc.constantFrom(
        "",
        "x".repeat(Math.max(0, min - 1)),
        "x".repeat(min),
        "x".repeat(max),
        "x".repeat(max + 1),
        "😀".repeat(max / 2),
        `${"😀".repeat(max / 2)}x`,
      ),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(1, null, true, [], {}), weight: 1 },
  );
}

const FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  webhook_id: integer,
  webhook_name: textAround(0, RECORD_FIELD_LIMITS.name),
  webhook_url: textAround(0, RECORD_FIELD_LIMITS.url),
  sign_secret: textAround(1, RECORD_FIELD_LIMITS.secret),
  creator_id: integer,
  creator_name: textAround(0, RECORD_FIELD_LIMITS.principal),
  create_time: integer,
  operator_id: integer,
  operator_name: textAround(0, RECORD_FIELD_LIMITS.principal),
  operate_time: integer,
};

const documentedRecord = fc
  .record({
    webhook_id: fc.maxSafeInteger(),
    webhook_name: fc.string({ maxLength: 60 }),
    webhook_url: fc.webUrl(),
    sign_secret: fc.string({ minLength: 1, maxLength: 60 }),
    creator_id: fc.maxSafeInteger(),
    creator_name: fc.string({ maxLength: 30 }),
    create_time: fc.maxSafeInteger(),
    operator_id: fc.maxSafeInteger(),
    operator_name: fc.string({ maxLength: 30 }),
    operate_time: fc.maxSafeInteger(),
  })
  .chain((r) =>
    fc
      .array(fc.tuple(oddKey, anyJson), { maxLength: 2 })
      .map((extras) => object([...Object.entries(r), ...extras])),
  );

/** A record: documented, or with a field or two given a value of any kind or left out, or anything; odd extra keys. */
const record: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: documentedRecord, weight: 3 },
  {
    arbitrary: fc
      .tuple(
        documentedRecord,
        fc.array(
          fc
            .constantFrom(...Object.keys(FIELDS))
            .chain((key) => fc.option(FIELDS[key]!, { freq: 4 }).map((value) => [key, value] as const)),
          { minLength: 1, maxLength: 2 },
        ),
      )
      .map(([base, changes]) => {
        const entries = Object.entries(base);
        for (const [key, value] of changes) {
          const at = entries.findIndex(([k]) => k === key);
          if (value === null) entries.splice(at, 1);
          else entries[at] = [key, value];
        }
        return object(entries);
      }),
    weight: 8,
  },
  {
    arbitrary: fc
      .tuple(
        fc.tuple(
          ...Object.entries(FIELDS).map(([key, value]) =>
            fc.option(
              value.map((v) => [key, v] as [string, unknown]),
              { freq: 12 },
            ),
          ),
        ),
        fc.array(fc.tuple(oddKey, anyJson), { maxLength: 3 }),
      )
      .map(([fields, extras]) => object([...fields.filter((f) => f !== null), ...extras])),
    weight: 2,
  },
  { arbitrary: anyJson, weight: 1 },
);

const code = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>("200", 200), weight: 6 },
  { arbitrary: fc.constantFrom<unknown>("201", "200 ", 201, 200.5, null, "SUCCESS"), weight: 1 },
);

/** An envelope around `data`: the documented fields mostly right, sometimes wrong or missing, odd extra keys. */
function envelope(data: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.option(
        code.map((v) => ["code", v] as [string, unknown]),
        { freq: 10 },
      ),
      fc.option(
        fc.oneof(fc.string(), anyJson).map((v) => ["msg", v] as [string, unknown]),
        { freq: 10 },
      ),
      fc.option(
        fc
          .oneof({ arbitrary: hex32, weight: 6 }, { arbitrary: anyJson, weight: 1 })
          .map((v) => ["trace_id", v] as [string, unknown]),
        { freq: 10 },
      ),
      fc.option(
        data.map((v) => ["data", v] as [string, unknown]),
        { freq: 10 },
      ),
      fc.array(fc.tuple(oddKey, anyJson), { maxLength: 3 }),
    )
    .map(([c, m, t, d, extras]) => object([...extras, ...[c, m, t, d].filter((f) => f !== null)]));
}

function documentedEnvelope(data: fc.Arbitrary<unknown>, msg: string): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.constantFrom<unknown>("200", 200),
      hex32,
      data,
      fc.array(fc.tuple(oddKey, anyJson), { maxLength: 2 }),
    )
    .map(([c, trace, d, extras]) =>
      object([...extras, ["code", c], ["msg", msg], ["trace_id", trace], ["data", d]]),
    );
}

const listPayload = (records: fc.Arbitrary<unknown>) =>
  fc.oneof(
    {
      arbitrary: fc
        .tuple(fc.array(records, { maxLength: 5 }), fc.array(fc.tuple(oddKey, anyJson), { maxLength: 3 }))
        .map(([data, extras]) => object([...extras, ["data", data]])),
      weight: 10,
    },
    { arbitrary: fc.array(records, { maxLength: 2 }), weight: 1 },
    { arbitrary: anyJson, weight: 1 },
  );

/** A check that accepts returns what the schema's parse returns; returns how many it accepted. */
function agrees<T>(shape: ResponseShape<T>, answers: fc.Arbitrary<unknown>, seed: number): number {
  let accepted = 0;
  fc.assert(
    fc.property(answers, (json) => {
      const matched = shape.match(json);
      if (matched === undefined) return;
      accepted++;
      const parsed = shape.schema().safeParse(json);
      expect(parsed.success).toBe(true);
      expect(matched).toStrictEqual(parsed.data);
    }),
    { seed, numRuns: 3000 },
  );
  return accepted;
}

describe("hand-written checks of the documented answers", () => {
  it("create: an answer the check accepts is parsed exactly as the schema parses it", () => {
    const accepted = agrees(CREATE_RESPONSE, envelope(record), 28_01);
    // The generator reaches the accepting side often enough for the property to say something.
    expect(accepted).toBeGreaterThan(100);
  });

  it("list: an answer the check accepts is parsed exactly as the schema parses it", () => {
    const accepted = agrees(LIST_RESPONSE, envelope(listPayload(record)), 28_02);
    expect(accepted).toBeGreaterThan(100);
  });

  it("every documented answer is accepted by the check (zod never loads for it)", () => {
    fc.assert(
      fc.property(documentedEnvelope(documentedRecord, "Success"), (json) => {
        expect(CREATE_RESPONSE.match(json)).toBeDefined();
      }),
      { seed: 28_03, numRuns: 500 },
    );
    fc.assert(
      fc.property(
        documentedEnvelope(
          listPayload(documentedRecord).filter(
            (p) => !Array.isArray(p) && typeof p === "object" && p !== null && "data" in p,
          ),
          "SUCCESS",
        ),
        (json) => {
          expect(LIST_RESPONSE.match(json)).toBeDefined();
        },
      ),
      { seed: 28_04, numRuns: 500 },
    );
  });

  it("an own __proto__ key is dropped as the schema drops it, and sets no prototype", () => {
    const json = JSON.parse(
      `{"__proto__":{"polluted":1},"code":"200","msg":"SUCCESS","trace_id":"","data":{"__proto__":{"next_cursor":"x"},"data":[]}}`,
    ) as unknown;
    const matched = LIST_RESPONSE.match(json) as Record<string, unknown> & { data: Record<string, unknown> };
    expect(matched).toStrictEqual(LIST_RESPONSE.schema().parse(json));
    expect(Object.getPrototypeOf(matched)).toBe(Object.prototype);
    expect(matched.data.next_cursor).toBeUndefined();
  });
});
