import type { WebhookEndpointRecord } from "../client/types";
import { stateAfterCreate } from "../core/state";
import { CliError, EXIT } from "./exit";

/**
 * Reading a stack's state as `pulumi stack export` prints it (and the checkpoints a file backend
 * keeps), and writing the one change `recover` makes. Values that are secret in state stay as the
 * export gives them (ciphertext); nothing here ever needs `--show-secrets`.
 */
export const DYNAMIC_TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";
export const NATIVE_TYPE = "webhooks:index:WebhookEndpoint";
export const ENDPOINT_TYPES: readonly string[] = [DYNAMIC_TYPE, NATIVE_TYPE];
/** The marker of a secret value in a deployment (and its value for a secret). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface PendingOperation {
  type: string;
  resource: StateResource;
  [field: string]: unknown;
}

export interface Deployment {
  resources?: StateResource[] | null;
  pending_operations?: PendingOperation[] | null;
  [field: string]: unknown;
}

/** `pulumi stack export` output: `{ version, deployment }`. */
export interface UntypedDeployment {
  version: number;
  deployment: Deployment;
  [field: string]: unknown;
}

/**
 * Parses a state: a `pulumi stack export`, or a checkpoint as a file backend stores it
 * (`{ version, checkpoint: { latest } }`). `what` names it in errors.
 */
export function parseState(text: string, what: string): UntypedDeployment {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(EXIT.config, `${what} is not JSON: give the output of \`pulumi stack export\``);
  }
  if (typeof parsed === "object" && parsed !== null) {
    const object = parsed as Record<string, unknown>;
    if (isObject(object.deployment)) return { ...object, version: Number(object.version ?? 3), deployment: object.deployment as Deployment };
    const checkpoint = object.checkpoint;
    if (isObject(checkpoint)) {
      const latest = (checkpoint as Record<string, unknown>).latest;
      return { version: Number(object.version ?? 3), deployment: isObject(latest) ? (latest as Deployment) : {} };
    }
  }
  throw new CliError(EXIT.config, `${what} is not a stack state: give the output of \`pulumi stack export\``);
}

/** The endpoint resources (either face) in a state. */
export function endpointResources(deployment: Deployment): StateResource[] {
  return (deployment.resources ?? []).filter((r) => ENDPOINT_TYPES.includes(r.type));
}

/** The webhook_id an endpoint resource holds, from its ID or its outputs. */
export function heldId(resource: StateResource): number | undefined {
  const fromId = Number(resource.id);
  if (typeof resource.id === "string" && /^\d+$/.test(resource.id) && Number.isSafeInteger(fromId)) return fromId;
  const fromOutputs = resource.outputs?.webhookId;
  return typeof fromOutputs === "number" && Number.isSafeInteger(fromOutputs) ? fromOutputs : undefined;
}

/** The resource name at the end of a URN. */
export function urnName(urn: string): string {
  const at = urn.lastIndexOf("::");
  return at >= 0 ? urn.slice(at + 2) : urn;
}

/** `urn:pulumi:<stack>::<project>::...`: the stack and project of a URN. */
export function urnStackProject(urn: string): { stack: string; project: string } | undefined {
  const match = /^urn:pulumi:([^:]+)::([^:]+)::/.exec(urn);
  return match ? { stack: match[1]!, project: match[2]! } : undefined;
}

export function isSecret(value: unknown): boolean {
  return isObject(value) && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** A plain string property, or undefined when it is absent, secret or not a string. */
export function plainString(properties: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = properties?.[key];
  return typeof value === "string" ? value : undefined;
}

/** Every name a state knows an endpoint resource by: its resource name and the names in its inputs and outputs. */
export function namesOf(resource: StateResource): string[] {
  const names = new Set<string>([urnName(resource.urn)]);
  for (const source of [resource.inputs, resource.outputs]) {
    const name = plainString(source, "webhookName");
    if (name !== undefined) names.add(name);
  }
  return [...names];
}

/**
 * The creators of the endpoints this stack created (not adopted): the stack's own principal on the
 * service, when the state shows it.
 */
export function stackCreators(deployment: Deployment): Set<number> {
  const creators = new Set<number>();
  for (const resource of endpointResources(deployment)) {
    const outputs = resource.outputs ?? {};
    if (outputs.adoptWebhookId !== undefined) continue;
    if (typeof outputs.creatorId === "number") creators.add(outputs.creatorId);
  }
  return creators;
}

/** A pending create of an endpoint, as recover sees it. */
export interface PendingCreate {
  operation: PendingOperation;
  urn: string;
  resourceName: string;
  face: "dynamic" | "native";
  /** The declared name and URL, when they are plain in state. */
  webhookName?: string | undefined;
  webhookUrl?: string | undefined;
  adoptWebhookId?: number | undefined;
  /** Why recover cannot look for it on the service (it is cleared, with this said). */
  unmatchable?: string | undefined;
}

/** The state's pending creates, split into endpoints (ours) and anything else. */
export function pendingCreates(deployment: Deployment): { ours: PendingCreate[]; foreign: PendingOperation[] } {
  const ours: PendingCreate[] = [];
  const foreign: PendingOperation[] = [];
  for (const operation of deployment.pending_operations ?? []) {
    if (operation.type !== "creating") continue;
    const resource = operation.resource;
    if (!ENDPOINT_TYPES.includes(resource.type)) {
      foreign.push(operation);
      continue;
    }
    const inputs = resource.inputs ?? {};
    const face = resource.type === DYNAMIC_TYPE ? "dynamic" : "native";
    const adopt = inputs.adoptWebhookId;
    const pending: PendingCreate = {
      operation,
      urn: resource.urn,
      resourceName: urnName(resource.urn),
      face,
      webhookName: plainString(inputs, "webhookName") ?? (inputs.webhookName === undefined && face === "native" ? urnName(resource.urn) : undefined),
      webhookUrl: plainString(inputs, "webhookUrl"),
      adoptWebhookId: typeof adopt === "number" ? adopt : undefined,
    };
    if (isSecret(inputs.webhookName) || isSecret(inputs.webhookUrl)) pending.unmatchable = "its webhookName or webhookUrl is a secret, which recover does not decrypt";
    else if (inputs.connection !== undefined) pending.unmatchable = "it has its own connection input, which recover does not decrypt, so its service may not be the one recover lists";
    else if (pending.webhookName === undefined || pending.webhookUrl === undefined) pending.unmatchable = "its inputs hold no plain webhookName and webhookUrl";
    ours.push(pending);
  }
  return { ours, foreign };
}

/**
 * The resource the engine would have recorded had the create's answer arrived: the pending
 * operation's resource with the endpoint's ID and outputs (what the face's create returns: the
 * record, the echoed inputs, `signSecret` as a secret; the dynamic face also keeps `__provider`).
 * The sign secret is written in plaintext form for `pulumi stack import`, which encrypts it; the
 * deployment is handed to it on stdin and never written to disk.
 */
export function recordedResource(pending: PendingCreate, record: WebhookEndpointRecord, now: Date): StateResource {
  const resource = pending.operation.resource;
  const inputs = resource.inputs ?? {};
  const declared = {
    webhookName: pending.webhookName ?? record.webhookName,
    webhookUrl: pending.webhookUrl ?? record.webhookUrl,
    ...(pending.adoptWebhookId === undefined ? {} : { adoptWebhookId: pending.adoptWebhookId }),
  };
  const state: Record<string, unknown> = { ...stateAfterCreate(record, declared) };
  state.signSecret = { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(record.signSecret) };
  if (pending.face === "dynamic") {
    if (inputs.connection !== undefined) state.connection = inputs.connection;
    if (inputs.__provider !== undefined) state.__provider = inputs.__provider;
  }
  const time = now.toISOString();
  return { ...resource, id: String(record.webhookId), outputs: state, created: time, modified: time };
}

/**
 * The state after recovery: the recorded resources appended (everything they refer to is already
 * in the list), and no pending operations left (`pulumi stack import` drops them all, saying so).
 */
export function recoveredDeployment(original: UntypedDeployment, recorded: readonly StateResource[]): UntypedDeployment {
  const replacing = new Set(recorded.map((r) => r.urn));
  // A create that was a replacement's: the engine would have marked the old resource for deletion
  // once the new one existed (delete only prints a notice here: the API cannot delete).
  const kept = (original.deployment.resources ?? []).map((r) => (replacing.has(r.urn) && r.delete !== true ? { ...r, delete: true } : r));
  const deployment: Deployment = { ...original.deployment, resources: [...kept, ...recorded] };
  delete deployment.pending_operations;
  return { ...original, deployment };
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
