import type * as Zod from "zod";
import type { z } from "zod";
import { redactRecordText } from "../text";
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
 * The response schemas, built when the first response is read rather than with the package: a
 * Pulumi program that only declares resources never reads one, and loading zod costs it about
 * 0.08 s of CPU on every run.
 */
export function schemas(): ReturnType<typeof build> {
  return (built ??= build());
}

export type ApiRecord = z.infer<ReturnType<typeof build>["apiRecord"]>;

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
    creatorName: redactRecordText(api.creator_name, secrets),
    createTime: api.create_time,
    operatorId: api.operator_id,
    operatorName: redactRecordText(api.operator_name, secrets),
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
