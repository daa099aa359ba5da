import type * as Zod from "zod";
import type { z } from "zod";
import { redact } from "../text";
import type { WebhookEndpointRecord } from "./types";

/**
 * Schemas for what the service sends back. Every documented field is checked; fields the
 * document does not mention are tolerated (loose objects), because a server may add some.
 */

/**
 * Upper bounds on the text fields of a record. The document gives no limits; these are far above
 * anything a real service stores and keep a hostile page from holding gigabytes (a record past
 * them is an invalid response, not a truncated one).
 */
export const RECORD_FIELD_LIMITS = { name: 4096, url: 16_384, secret: 4096, principal: 4096 } as const;

/** Builds the schemas (see `schemas`). */
function build() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see schemas()
  const { z } = require("zod") as typeof Zod;
  // zod 4's int() accepts only safe integers, so ids and times survive JSON round trips exactly.
  const integer = z.number().int();
  /**
   * The webhook endpoint record as the API sends it (section 2 of the API document). Fields the
   * document does not list are accepted and dropped (a strip object validates a page of records
   * about 20% faster than a loose one, and nothing reads them).
   */
  const apiRecord = z.object({
    webhook_id: integer,
    webhook_name: z.string().max(RECORD_FIELD_LIMITS.name),
    webhook_url: z.string().max(RECORD_FIELD_LIMITS.url),
    sign_secret: z.string().min(1).max(RECORD_FIELD_LIMITS.secret),
    creator_id: integer,
    creator_name: z.string().max(RECORD_FIELD_LIMITS.principal),
    create_time: integer,
    operator_id: integer,
    operator_name: z.string().max(RECORD_FIELD_LIMITS.principal),
    operate_time: integer,
  });
  /** The success code is documented as the string "200"; a bare number 200 means the same. */
  const successCode = z.union([z.literal("200"), z.literal(200)]);

  const createEnvelope = z.looseObject({
    code: successCode,
    msg: z.string(),
    trace_id: z.string(),
    data: apiRecord,
  });

  /**
   * The list payload: `data.data` is the array of records. Whatever continuation the server gives is
   * read separately (see `readContinuation`), since its name and shape are not documented.
   */
  const listEnvelope = z.looseObject({
    code: successCode,
    msg: z.string(),
    trace_id: z.string(),
    data: z.looseObject({ data: z.array(apiRecord) }),
  });

  /**
   * An envelope that may describe an error. The error shape is undocumented, so only the envelope
   * fields are read, leniently: a numeric code is taken as its string form.
   */
  const looseEnvelope = z.looseObject({
    code: z.unknown().optional(),
    msg: z.unknown().optional(),
    message: z.unknown().optional(),
    trace_id: z.unknown().optional(),
  });
  return { apiRecord, createEnvelope, listEnvelope, looseEnvelope };
}

let built: ReturnType<typeof build> | undefined;
/**
 * The response schemas, built when a response first needs them rather than with the package: a
 * documented answer never does (see {@link ResponseShape}), a Pulumi program that only declares
 * resources reads none, and loading zod costs 50-100 ms of CPU.
 */
export function schemas(): ReturnType<typeof build> {
  return (built ??= build());
}

export type ApiRecord = z.infer<ReturnType<typeof build>["apiRecord"]>;
export type CreateEnvelope = z.infer<ReturnType<typeof build>["createEnvelope"]>;
export type ListEnvelope = z.infer<ReturnType<typeof build>["listEnvelope"]>;

/**
 * A documented success response: how it is checked. `match` is the schema's check written by hand, for
 * the answer that passes it (nearly every one): it returns exactly what the schema's parse returns, or
 * undefined, and then the schema decides and names the first problem. So the provider host loads zod
 * only for an answer that does not match (measured: zod's loading was 50-120 ms of the host's CPU in
 * every up, preview and refresh). test/client/schemas.test.ts holds each `match` to its schema.
 */
export interface ResponseShape<T> {
  match(json: unknown): T | undefined;
  schema(): z.ZodType<T>;
}

export const CREATE_RESPONSE: ResponseShape<CreateEnvelope> = {
  match: (json) => {
    const envelope = matchEnvelope(json);
    const data = envelope === undefined ? undefined : matchRecord(envelope.data);
    return data === undefined ? undefined : ({ ...envelope, data } as CreateEnvelope);
  },
  schema: () => schemas().createEnvelope,
};

export const LIST_RESPONSE: ResponseShape<ListEnvelope> = {
  match: (json) => {
    const envelope = matchEnvelope(json);
    const payload = envelope === undefined ? undefined : looseCopy(envelope.data);
    if (payload === undefined || !Array.isArray(payload.data)) return undefined;
    const records: ApiRecord[] = [];
    for (const value of payload.data as unknown[]) {
      const record = matchRecord(value);
      if (record === undefined) return undefined;
      records.push(record);
    }
    return { ...envelope, data: { ...payload, data: records } } as ListEnvelope;
  },
  schema: () => schemas().listEnvelope,
};

/** The envelope's documented fields as the schemas check them (`data` is checked by the caller), its others kept. */
function matchEnvelope(json: unknown): Record<string, unknown> | undefined {
  const envelope = looseCopy(json);
  if (envelope === undefined) return undefined;
  const { code, msg, trace_id } = envelope;
  return (code === "200" || code === 200) && typeof msg === "string" && typeof trace_id === "string"
    ? envelope
    : undefined;
}

/**
 * A copy of a JSON object's own fields, as zod's loose objects return it: an own `__proto__` field (which
 * JSON.parse makes) is left out; not an object (or an array): undefined.
 */
function looseCopy(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key !== "__proto__") copy[key] = (value as Record<string, unknown>)[key];
  }
  return copy;
}

/** The record's ten fields, checked as `apiRecord` checks them, the others dropped; undefined if one fails. */
function matchRecord(value: unknown): ApiRecord | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  const limits = RECORD_FIELD_LIMITS;
  if (
    !Number.isSafeInteger(r.webhook_id) ||
    !isText(r.webhook_name, 0, limits.name) ||
    !isText(r.webhook_url, 0, limits.url) ||
    !isText(r.sign_secret, 1, limits.secret) ||
    !Number.isSafeInteger(r.creator_id) ||
    !isText(r.creator_name, 0, limits.principal) ||
    !Number.isSafeInteger(r.create_time) ||
    !Number.isSafeInteger(r.operator_id) ||
    !isText(r.operator_name, 0, limits.principal) ||
    !Number.isSafeInteger(r.operate_time)
  )
    return undefined;
  return {
    webhook_id: r.webhook_id as number,
    webhook_name: r.webhook_name as string,
    webhook_url: r.webhook_url as string,
    sign_secret: r.sign_secret as string,
    creator_id: r.creator_id as number,
    creator_name: r.creator_name as string,
    create_time: r.create_time as number,
    operator_id: r.operator_id as number,
    operator_name: r.operator_name as string,
    operate_time: r.operate_time as number,
  };
}

function isText(value: unknown, min: number, max: number): boolean {
  return typeof value === "string" && value.length >= min && value.length <= max;
}

// Here rather than in client.ts: client.ts's declarations are public, and a signature naming
// ApiRecord there would make every user program load zod's declaration files.
/**
 * The API's record in the package's camelCase, with `secrets` (the client's access token) redacted
 * from the principal names: a service may name its principal after the key
 * (`creator_name: "key <token>"`), and records reach tables, JSON output and Pulumi state, where
 * only `signSecret` is kept secret.
 *
 * The name and URL are returned exactly as stored: they are compared with the declared values
 * (the create checks, adoption, drift), so a redacted form would no longer match an endpoint that
 * exists and could lead to a duplicate that can never be deleted. The token is in them only if
 * the endpoint itself was declared or stored with it. `signSecret` is the record's own secret.
 */
export function toRecord(api: ApiRecord, secrets: readonly string[] = []): WebhookEndpointRecord {
  return {
    webhookId: api.webhook_id,
    webhookName: api.webhook_name,
    webhookUrl: api.webhook_url,
    signSecret: api.sign_secret,
    creatorId: api.creator_id,
    creatorName: redact(api.creator_name, secrets),
    createTime: api.create_time,
    operatorId: api.operator_id,
    operatorName: redact(api.operator_name, secrets),
    operateTime: api.operate_time,
  };
}

/** Formats the first schema issue as `path: problem`, never including the offending value. */
export function describeIssue(error: z.ZodError): { field: string; problem: string } {
  const issue = error.issues[0];
  if (!issue) return { field: "(body)", problem: "does not match the documented shape" };
  const field = issue.path.reduce<string>((acc, part) => {
    if (typeof part === "number") return `${acc}[${part}]`;
    return acc === "" ? String(part) : `${acc}.${String(part)}`;
  }, "");
  return { field: field === "" ? "(body)" : field, problem: problemOf(issue) };
}

function problemOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected}`;
    case "invalid_value":
      return "has an unexpected value";
    case "too_small":
      return "is too small or empty";
    case "too_big":
      return "is too long";
    case "invalid_union":
      return "has an unexpected type or value";
    default:
      return "is invalid";
  }
}
