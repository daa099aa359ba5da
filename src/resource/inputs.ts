import { z } from "zod";

/** The engine's marker for a value not known yet (preview): see @pulumi/pulumi/runtime/rpc. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const MAX_NAME_LENGTH = 128;
export const MAX_URL_LENGTH = 2048;
// Control characters (C0, DEL, C1) have no place in a name or URL and hide in terminals and logs.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Connection settings given on the resource itself; they override stack config and environment. */
export interface ConnectionInputs {
  baseUrl?: string;
  accessToken?: string;
  /** Allow plain http:// to a non-loopback host. @default false */
  allowInsecureHttp?: boolean;
}

/** The provider's view of the resource's inputs (after defaults applied by the resource class). */
export interface WebhookEndpointInputs {
  webhookName: string;
  webhookUrl: string;
  adoptWebhookId?: number;
  connection?: ConnectionInputs;
}

const isUnknown = (value: unknown): boolean => value === UNKNOWN;

/** Passes the engine's unknown marker through: nothing can be said of it until it is known. */
function orUnknown<T extends z.ZodType>(schema: T) {
  return z.union([z.literal(UNKNOWN), schema]);
}

const nameSchema = z
  .string({ error: (issue) => `webhookName must be a string, got ${typeOfInput(issue.input)}` })
  .refine((name) => name.trim() !== "", "webhookName is empty: give the endpoint a name, or omit webhookName to use the resource name")
  .refine((name) => name.length <= MAX_NAME_LENGTH, `webhookName is longer than ${MAX_NAME_LENGTH} characters: shorten it`)
  .refine((name) => !CONTROL_CHARS.test(name), "webhookName contains a control character (such as a newline or tab): remove it")
  .refine((name) => name === name.trim(), "webhookName starts or ends with white space: remove it, since the service compares names exactly");

/** The URL rules shared by webhookUrl; `what` names the property in messages. */
export function urlProblems(value: string, what: string): string[] {
  const problems: string[] = [];
  if (value.length > MAX_URL_LENGTH) problems.push(`${what} is longer than ${MAX_URL_LENGTH} characters: shorten it`);
  if (CONTROL_CHARS.test(value) || /\s/.test(value)) {
    problems.push(`${what} contains white space or a control character: remove it (percent-encode spaces as %20)`);
    return problems;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${what} "${value.slice(0, 100)}" is not an absolute URL: use the form https://example.com/hooks/orders`);
    return problems;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problems.push(`${what} must use https:// or http://, not ${url.protocol}//`);
  }
  if (url.username !== "" || url.password !== "") {
    problems.push(
      `${what} contains credentials (user:password@): they would be stored in Pulumi state and returned by every list call; remove them and authenticate deliveries with signSecret instead`,
    );
  }
  if (url.hostname === "") problems.push(`${what} has no host: use the form https://example.com/hooks/orders`);
  return problems;
}

const urlSchema = z
  .string({ error: (issue) => `webhookUrl must be a string, got ${typeOfInput(issue.input)}` })
  .superRefine((value, ctx) => {
    for (const message of urlProblems(value, "webhookUrl")) ctx.addIssue({ code: "custom", message });
  });

const adoptSchema = z
  .number({ error: (issue) => `adoptWebhookId must be a number (the endpoint's webhook_id), got ${typeOfInput(issue.input)}` })
  .refine((id) => Number.isSafeInteger(id) && id > 0, "adoptWebhookId must be a positive whole number: the webhook_id of the endpoint to take over");

const connectionSchema = z
  .object(
    {
      baseUrl: orUnknown(
        z
          .string({ error: "connection.baseUrl must be a string" })
          .refine((v) => {
            try {
              const url = new URL(v);
              return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "";
            } catch {
              return false;
            }
          }, "connection.baseUrl must be an absolute http(s) URL without credentials, e.g. https://api.example.com"),
      ).optional(),
      accessToken: orUnknown(
        z.string({ error: "connection.accessToken must be a string" }).refine((v) => v.trim() !== "", "connection.accessToken is empty: set it or leave it out to use stack config or WEBHOOKS_ACCESS_TOKEN"),
      ).optional(),
      allowInsecureHttp: orUnknown(z.boolean({ error: "connection.allowInsecureHttp must be true or false" })).optional(),
    },
    { error: "connection must be an object { baseUrl?, accessToken?, allowInsecureHttp? }" },
  )
  .strict();

export const inputsSchema = z.object({
  webhookName: orUnknown(nameSchema),
  webhookUrl: orUnknown(urlSchema),
  adoptWebhookId: orUnknown(adoptSchema).optional(),
  connection: orUnknown(connectionSchema).optional(),
});

export interface CheckFailure {
  property: string;
  reason: string;
}

/**
 * Validates the inputs without calling the API and returns every failure, one or more per
 * property. Unknown values (preview) pass.
 */
export function validateInputs(news: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  if (news.webhookName === undefined || news.webhookName === null) {
    failures.push({ property: "webhookName", reason: "webhookName is missing: give the endpoint a name" });
  }
  if (news.webhookUrl === undefined || news.webhookUrl === null) {
    failures.push({ property: "webhookUrl", reason: "webhookUrl is required: the address that receives the notifications, e.g. https://example.com/hooks/orders" });
  }
  const candidate = Object.fromEntries(Object.entries(news).filter(([, v]) => v !== null));
  const result = inputsSchema.safeParse(candidate);
  if (result.success) return failures;
  for (const issue of result.error.issues) {
    const property = issue.path.length > 0 ? issue.path.map(String).join(".") : "(inputs)";
    if (failures.some((f) => f.property === property && property.split(".").length === 1 && (news[property] === undefined || news[property] === null))) continue;
    const reason = unionReason(issue) ?? issue.message;
    if (!failures.some((f) => f.property === property && f.reason === reason)) failures.push({ property, reason });
  }
  return failures;
}

/** For `literal(UNKNOWN) | schema`, report the schema's own messages, not the literal's. */
function unionReason(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "invalid_union") return undefined;
  const messages = messagesOf(issue);
  return messages.length > 0 ? [...new Set(messages)].join("; ") : undefined;
}

function messagesOf(issue: z.core.$ZodIssue): string[] {
  if (issue.code !== "invalid_union") return [issue.message];
  return (issue).errors
    .filter((branch) => !branch.some((i) => i.code === "invalid_value" && (i as { values?: unknown[] }).values?.includes(UNKNOWN)))
    .flat()
    .flatMap(messagesOf);
}

function typeOfInput(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

export function isKnown(value: unknown): boolean {
  return !isUnknown(value);
}
