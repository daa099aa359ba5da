/**
 * The webhook endpoint resource, written once: its type tokens, inputs and outputs, and which
 * outputs are always secret. The faces, the CLI and the schema derive from it or are tested against
 * it (test/core/resource.test.ts); the docs' tables of outputs are checked against it
 * (test/docs/tables.test.ts). It imports nothing, so that the program side of the dynamic
 * resource can read it without loading the client.
 */

/** The Pulumi package of the native face, and the config namespace of both faces (`webhooks:baseUrl`). */
export const PACKAGE = "webhooks";

/** Type tokens, as the engine records them in state. */
export const TYPE_TOKENS = {
  /** The dynamic resource: registered as `pulumi.dynamic.Resource` registers one, under its own name. */
  dynamic: "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
  /** The native provider's resource (schema, SDKs, Pulumi YAML, `pulumi import`). */
  native: "webhooks:index:WebhookEndpoint",
  /** The native provider itself (explicit providers, and the default provider in state). */
  provider: "pulumi:providers:webhooks",
} as const;

/** Both faces' resource types: what a state holds an endpoint under. */
export const ENDPOINT_TYPES: readonly string[] = [TYPE_TOKENS.dynamic, TYPE_TOKENS.native];

export type Face = "dynamic" | "native";

export interface PropertySpec {
  /** The type as the schema writes it. */
  type: "string" | "integer" | "number" | "boolean" | "object";
  /** The API record's field it comes from, when it does. */
  api?: string;
  /** Only the service can tell it: unknown during the preview of a create. */
  computed?: boolean;
  /** Always secret, whatever the program marked. */
  alwaysSecret?: boolean;
  /** The faces that have it (both when absent). */
  faces?: readonly Face[];
}

/**
 * The resource's outputs that users read: the API record in camelCase, the echoed input, the
 * provenance. (State also keeps, internally, the remembered `declared` and `createdAs` addresses,
 * `stackRoot`, the stack the endpoint entered as a reference to its root resource (state.ts), and,
 * on the dynamic face, the `connection` input: see {@link DYNAMIC_FORCED_SECRET}.)
 */
export const OUTPUTS = {
  webhookId: { type: "integer", api: "webhook_id", computed: true },
  webhookName: { type: "string", api: "webhook_name" },
  webhookUrl: { type: "string", api: "webhook_url" },
  signSecret: { type: "string", api: "sign_secret", computed: true, alwaysSecret: true },
  creatorId: { type: "integer", api: "creator_id", computed: true },
  creatorName: { type: "string", api: "creator_name", computed: true },
  createTime: { type: "number", api: "create_time", computed: true },
  operatorId: { type: "integer", api: "operator_id", computed: true },
  operatorName: { type: "string", api: "operator_name", computed: true },
  operateTime: { type: "number", api: "operate_time", computed: true },
  adoptWebhookId: { type: "integer" },
  provenance: { type: "object" },
} as const satisfies Record<string, PropertySpec>;

export type OutputName = keyof typeof OUTPUTS;
export const OUTPUT_NAMES = Object.keys(OUTPUTS) as OutputName[];

/** The resource's inputs; `connection` is the dynamic face's (the native face's provider holds it). */
export const INPUTS = {
  webhookName: { type: "string" },
  webhookUrl: { type: "string" },
  adoptWebhookId: { type: "integer" },
  connection: { type: "object", faces: ["dynamic"] },
} as const satisfies Record<string, PropertySpec>;

export type InputName = keyof typeof INPUTS;

/**
 * Inputs a program may pass as secrets and the provider keeps out of every message (the connection is
 * always secret).
 */
export const SECRET_CAPABLE_INPUTS = [
  "webhookName",
  "webhookUrl",
  "adoptWebhookId",
] as const satisfies readonly InputName[];

/** Outputs secret whatever the program marked: the signing secret. */
export const ALWAYS_SECRET_OUTPUTS: readonly OutputName[] = OUTPUT_NAMES.filter(
  (name) => (OUTPUTS[name] as PropertySpec).alwaysSecret === true,
);

/**
 * Outputs that name a principal by its id: secret wherever the program holds that principal's id
 * secret (`webhooks:principalId` set with `--secret`), or a secret value equal to it.
 */
export const PRINCIPAL_OUTPUTS = ["creatorId", "operatorId"] as const satisfies readonly OutputName[];

/** Outputs only the service can tell: unknown in the preview of a create. */
export const COMPUTED_OUTPUTS: readonly OutputName[] = OUTPUT_NAMES.filter(
  (name) => (OUTPUTS[name] as PropertySpec).computed === true,
);

/**
 * What the dynamic face makes secret in state whatever the program passed: the always-secret
 * outputs, the `connection` input (it may hold the token), and the remembered `declared` and
 * `createdAs` addresses (they may hold a name or URL the program marked secret, and the engine
 * carries secrecy only from an input to the output of the same name). `provenance` too when its
 * base URL may be secret (decided per resource).
 */
export const DYNAMIC_FORCED_SECRET: readonly string[] = [
  ...ALWAYS_SECRET_OUTPUTS,
  "connection",
  "declared",
  "createdAs",
];
