import type * as Zod from "zod";
import type { z } from "zod";
import { baseUrlProblem, nameProblems, urlProblems } from "../client";
import type { ConnectionInputs } from "./settings";
import { UNKNOWN } from "./wire";

/** The provider's view of a resource's inputs (after the name default is applied). */
export interface WebhookEndpointInputs {
  webhookName: string;
  webhookUrl: string;
  adoptWebhookId?: number;
  /** Dynamic resource only: per-resource connection settings. */
  connection?: ConnectionInputs;
  /**
   * Dynamic resource only, set by the resource class: which inputs (and `webhooks:*` config keys)
   * the program marked secret. The dynamic-provider host hands the provider plain values, so this
   * is how the provider knows what to keep out of its messages.
   */
  __secretInputs?: string[];
  /** Dynamic resource only, set by the resource class: `<project>/<stack>` of the program, recorded in a new endpoint's provenance. */
  __stack?: string;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

/** Which inputs a face accepts: the dynamic resource takes a `connection`, the native one does not. */
export interface InputShape {
  connection: boolean;
}

export function isKnown(value: unknown): boolean {
  return value !== UNKNOWN;
}

function typeOfInput(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

/**
 * A schema as this module's callers see it: only whether a candidate passes. No exported declaration
 * names a zod type, so the package's declarations never pull zod into a user's program.
 */
export interface InputSchema {
  safeParse(candidate: unknown): { success: boolean };
}

/** The input schemas of both faces (see {@link zodSchemas}). */
export function inputSchemas(): { dynamic: InputSchema; native: InputSchema } {
  return zodSchemas();
}

let built: { dynamic: z.ZodType; native: z.ZodType } | undefined;
/**
 * The input schemas, built when a check first needs them rather than when the package loads: inputs
 * {@link passesSchema} vouches for never need them, refresh and destroy check none, and loading zod
 * costs the provider host 50-100 ms.
 */
function zodSchemas(): { dynamic: z.ZodType; native: z.ZodType } {
  if (built !== undefined) return built;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  const { z } = require("zod") as typeof Zod;
  /** Passes the engine's unknown marker through: nothing can be said of it until it is known. */
  function orUnknown<T extends z.ZodType>(schema: T) {
    return z.union([z.literal(UNKNOWN), schema]);
  }

  const nameSchema = z
    .string({ error: (issue) => `webhookName must be a string, got ${typeOfInput(issue.input)}` })
    .superRefine((value, ctx) => {
      for (const message of nameMessages(value, false)) ctx.addIssue({ code: "custom", message });
    });

  const urlSchema = z
    .string({ error: (issue) => `webhookUrl must be a string, got ${typeOfInput(issue.input)}` })
    .superRefine((value, ctx) => {
      for (const message of urlProblems(value)) ctx.addIssue({ code: "custom", message });
    });

  const adoptSchema = z
    .number({
      error: (issue) =>
        `adoptWebhookId must be a number (the endpoint's webhook_id), got ${typeOfInput(issue.input)}`,
    })
    .refine(
      (id) => Number.isSafeInteger(id) && id > 0,
      "adoptWebhookId must be a positive whole number: the webhook_id of the endpoint to take over",
    );

  const connectionSchema = z
    .object(
      {
        baseUrl: orUnknown(
          z.string({ error: "connection.baseUrl must be a string" }).superRefine((value, ctx) => {
            // The structure of the URL here; whether plain http is allowed is decided with every
            // setting resolved, when the connection is used.
            const problem = baseUrlProblem(value, true, "connection.baseUrl");
            if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
          }),
        ).optional(),
        accessToken: orUnknown(
          z
            .string({ error: "connection.accessToken must be a string" })
            .refine(
              (v) => v.trim() !== "",
              "connection.accessToken is empty: set it or leave it out to use the provider's configuration or WEBHOOKS_ACCESS_TOKEN",
            ),
        ).optional(),
        allowInsecureHttp: orUnknown(
          z.boolean({ error: "connection.allowInsecureHttp must be true or false" }),
        ).optional(),
      },
      { error: "connection must be an object { baseUrl?, accessToken?, allowInsecureHttp? }" },
    )
    .strict();

  function inputsSchema(shape: InputShape) {
    const base = {
      webhookName: orUnknown(nameSchema),
      webhookUrl: orUnknown(urlSchema),
      adoptWebhookId: orUnknown(adoptSchema).optional(),
    };
    return shape.connection
      ? z.object({ ...base, connection: orUnknown(connectionSchema).optional() })
      : z.object(base);
  }
  built = { dynamic: inputsSchema({ connection: true }), native: inputsSchema({ connection: false }) };
  return built;
}

function nameMessages(value: string, secret: boolean): string[] {
  return nameProblems(value, "webhookName", { secret }).map((message) =>
    message.replace(
      /^webhookName is empty: give the endpoint a name$/,
      "webhookName is empty: give the endpoint a name, or omit webhookName to use the resource name",
    ),
  );
}

/**
 * Validates the inputs without calling the API and returns every failure, one or more per
 * property. Unknown values (preview) pass. For an input in `secret` (a program marked it secret),
 * no message shows its value or any form of it (the canonical URL, the NFC name, a prefix).
 */
export function validateInputs(
  news: Record<string, unknown>,
  shape: InputShape = { connection: true },
  secret: readonly string[] = [],
): CheckFailure[] {
  const failures = validateAll(news, shape);
  const rewrite: Record<string, (value: string) => string[]> = {
    webhookName: (value) => nameMessages(value, true),
    webhookUrl: (value) => urlProblems(value, "webhookUrl", { secret: true }),
  };
  const out: CheckFailure[] = [];
  for (const failure of failures) {
    const value = news[failure.property];
    const again = rewrite[failure.property];
    if (secret.includes(failure.property) && again !== undefined && typeof value === "string") {
      for (const reason of again(value))
        if (!out.some((f) => f.property === failure.property && f.reason === reason))
          out.push({ property: failure.property, reason });
    } else out.push(failure);
  }
  return out;
}

function validateAll(news: Record<string, unknown>, shape: InputShape): CheckFailure[] {
  const failures: CheckFailure[] = [];
  if (news.webhookName === undefined || news.webhookName === null) {
    failures.push({ property: "webhookName", reason: "webhookName is missing: give the endpoint a name" });
  }
  if (news.webhookUrl === undefined || news.webhookUrl === null) {
    failures.push({
      property: "webhookUrl",
      reason:
        "webhookUrl is required: the address that receives the notifications, e.g. https://example.com/hooks/orders",
    });
  }
  const candidate = Object.fromEntries(Object.entries(news).filter(([, v]) => v !== null));
  if (passesSchema(candidate)) return failures;
  const result = (shape.connection ? zodSchemas().dynamic : zodSchemas().native).safeParse(candidate);
  if (result.success) return failures;
  for (const issue of result.error.issues) {
    const property = issue.path.length > 0 ? issue.path.map(String).join(".") : "(inputs)";
    const topLevelMissing =
      property.split(".").length === 1 && (news[property] === undefined || news[property] === null);
    if (topLevelMissing && failures.some((f) => f.property === property)) continue;
    const reason = unionReason(issue) ?? issue.message;
    if (!failures.some((f) => f.property === property && f.reason === reason))
      failures.push({ property, reason });
  }
  return failures;
}

/**
 * Whether the inputs certainly pass the input schema (either face's), checked by hand for the common
 * case: a valid name and URL (or not known yet), a valid adoptWebhookId or none, and no `connection`
 * (an input of the dynamic face only; the native face's schema ignores it, and one given is left to the
 * schema). False means "let the schema decide": zod then loads and names every problem. A whole `up` of
 * valid endpoints so never loads zod in the provider host (50-100 ms of its CPU, measured).
 * test/core/inputs-schema.test.ts holds this to the schemas.
 */
export function passesSchema(candidate: Record<string, unknown>): boolean {
  const { webhookName, webhookUrl, adoptWebhookId, connection } = candidate;
  return (
    (webhookName === UNKNOWN ||
      (typeof webhookName === "string" && nameProblems(webhookName, "webhookName").length === 0)) &&
    (webhookUrl === UNKNOWN || (typeof webhookUrl === "string" && urlProblems(webhookUrl).length === 0)) &&
    (adoptWebhookId === undefined ||
      adoptWebhookId === UNKNOWN ||
      (typeof adoptWebhookId === "number" && Number.isSafeInteger(adoptWebhookId) && adoptWebhookId > 0)) &&
    connection === undefined
  );
}

/** For `literal(UNKNOWN) | schema`, report the schema's own messages, not the literal's. */
function unionReason(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "invalid_union") return undefined;
  const messages = messagesOf(issue);
  return messages.length > 0 ? [...new Set(messages)].join("; ") : undefined;
}

function messagesOf(issue: z.core.$ZodIssue): string[] {
  if (issue.code !== "invalid_union") return [issue.message];
  return issue.errors
    .filter(
      (branch) =>
        !branch.some(
          (i) => i.code === "invalid_value" && (i as { values?: unknown[] }).values?.includes(UNKNOWN),
        ),
    )
    .flat()
    .flatMap(messagesOf);
}
