import type { WebhookEndpointRecord } from "../../client";
import type { CreatorFact } from "../../core/principal";
import {
  createdByItsStack,
  mayBeHeldEndpoint,
  provenanceOf,
  stateAfterCreate,
  stackRootOf,
  type Provenance,
} from "../../core/state";
import {
  ALWAYS_SECRET_OUTPUTS,
  DYNAMIC_FORCED_SECRET,
  ENDPOINT_TYPES,
  TYPE_TOKENS,
} from "../../core/resource";
import { showsTainted } from "../../core/taint";
import { SECRET_SIG, SIG_KEY, resourceReference, urnName } from "../../core/wire";
import { CliError, EXIT } from "../exit";
import type { SecretField, SecretFields } from "../output/output";

/**
 * Reading a stack's state as `pulumi stack export` prints it (and the checkpoints a file backend
 * keeps), and writing the one change `recover` makes. The state written back is built from the
 * export as it is (existing secrets stay ciphertext); where a command must know a secret value
 * (the service and token of an explicit provider, a secret name to match, a secret provenance), it
 * reads it from a `--show-secrets` export kept in memory and never printed.
 */
export const DYNAMIC_TYPE = TYPE_TOKENS.dynamic;
export const NATIVE_TYPE = TYPE_TOKENS.native;
export { ENDPOINT_TYPES };

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
    if (isObject(object.deployment))
      return { ...object, version: Number(object.version ?? 3), deployment: object.deployment as Deployment };
    const checkpoint = object.checkpoint;
    if (isObject(checkpoint)) {
      const latest = (checkpoint as Record<string, unknown>).latest;
      return {
        version: Number(object.version ?? 3),
        deployment: isObject(latest) ? (latest as Deployment) : {},
      };
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
  if (typeof resource.id === "string" && /^\d+$/.test(resource.id) && Number.isSafeInteger(fromId))
    return fromId;
  const fromOutputs = resource.outputs?.webhookId;
  return typeof fromOutputs === "number" && Number.isSafeInteger(fromOutputs) ? fromOutputs : undefined;
}

/**
 * Which names and URLs the stacks' states hold secret, per endpoint they hold or held: by id, with
 * the creator and creation time each state recorded. Ids are per service, so another service's
 * endpoint with the same id is told apart by what never changes about an endpoint
 * ({@link mayBeHeldEndpoint}), never by the spelling of a base URL (one service is reached at
 * several addresses, and may move). A state that recorded neither marks every endpoint with its id.
 */
export class SecretFieldIndex implements SecretFields {
  readonly #byId = new Map<
    number,
    { fields: Set<SecretField>; facts: Record<string, unknown> | undefined }[]
  >();

  /** Adds what an endpoint resource of a state (now or in history) holds secret, in its inputs or outputs. */
  add(resource: StateResource): void {
    const id = heldId(resource);
    if (id === undefined) return;
    const fields = new Set(
      (["webhookName", "webhookUrl"] as const).filter(
        (field) => isSecret(resource.outputs?.[field]) || isSecret(resource.inputs?.[field]),
      ),
    );
    if (fields.size === 0) return;
    this.#byId.set(id, [...(this.#byId.get(id) ?? []), { fields, facts: resource.outputs }]);
  }

  fieldsOf(record: WebhookEndpointRecord): ReadonlySet<SecretField> | undefined {
    const matching = (this.#byId.get(record.webhookId) ?? []).filter((entry) =>
      mayBeHeldEndpoint(entry.facts, record),
    );
    return matching.length === 0 ? undefined : new Set(matching.flatMap((entry) => [...entry.fields]));
  }
}

export function isSecret(value: unknown): boolean {
  return isObject(value) && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/**
 * A value of a `--show-secrets` export with its secret wrappers removed (their `plaintext` is JSON);
 * undefined where a wrapper holds only ciphertext (an export without `--show-secrets`, a history
 * checkpoint).
 */
export function revealed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revealed);
  if (!isObject(value)) return value;
  const object = value as Record<string, unknown>;
  if (object[SIG_KEY] === SECRET_SIG) {
    if (typeof object.plaintext !== "string") return undefined;
    try {
      return revealed(JSON.parse(object.plaintext));
    } catch {
      return undefined;
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(object)) out[key] = revealed(inner);
  return out;
}

/** A value in the form `pulumi stack import` encrypts: secret, given in plaintext. */
export function plaintextSecret(value: unknown): Record<string, unknown> {
  return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/** Every text a value holds inside secret wrappers (a `--show-secrets` export): what must stay secret. */
export function secretTexts(value: unknown, inside = false): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => secretTexts(item, inside));
  if (isObject(value)) {
    const object = value as Record<string, unknown>;
    if (object[SIG_KEY] === SECRET_SIG) return secretTexts(revealed(object), true);
    return Object.values(object).flatMap((inner) => secretTexts(inner, inside));
  }
  return inside && (typeof value === "string" || typeof value === "number") && String(value) !== ""
    ? [String(value)]
    : [];
}

/**
 * How the endpoint a resource holds entered the stack, as its state records it (undefined: not recorded, or
 * secret and not revealed).
 */
export function provenanceIn(resource: StateResource): Provenance | undefined {
  return provenanceOf({ provenance: revealed(resource.outputs?.provenance) });
}

/** A plain string property, or undefined when it is absent, secret or not a string. */
export function plainString(
  properties: Record<string, unknown> | undefined,
  key: string,
): string | undefined {
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
 * The endpoints this stack created on `service`, with their creators, as their provenance records
 * them: the facts of the stack's own principal there (principal.ts). Endpoints adopted, imported or
 * picked, moved in from another stack (`pulumi state move`: created, but by that stack; a stack
 * renamed since is still itself, see `stackRoot`), and those of earlier releases (no provenance:
 * unknown, never "created"), teach nothing: they may be anyone's.
 */
export function stackFacts(deployment: Deployment, service: string): CreatorFact[] {
  const facts: CreatorFact[] = [];
  for (const resource of endpointResources(deployment)) {
    const provenance = provenanceIn(resource);
    if (!createdByItsStack(provenance, resource.urn, resource.outputs?.stackRoot)) continue;
    if (provenance?.service !== service) continue;
    const creatorId = resource.outputs?.creatorId;
    const webhookId = heldId(resource);
    if (typeof creatorId === "number" && webhookId !== undefined)
      facts.push({ webhookId, creatorId, holder: `resource ${resource.urn}` });
  }
  return facts;
}

/** The creators the stack's facts on `service` record: its principal there, unless they disagree. */
export function stackCreators(deployment: Deployment, service: string): Set<number> {
  return new Set(stackFacts(deployment, service).map((fact) => fact.creatorId));
}

/** A pending create of an endpoint, as recover sees it. */
export interface PendingCreate {
  operation: PendingOperation;
  /** The same pending operation in the `--show-secrets` export (the plain one when there is none). */
  revealedResource: StateResource;
  urn: string;
  resourceName: string;
  face: "dynamic" | "native";
  /** The declared name and URL (revealed when they are secret: for matching only, never shown). */
  webhookName?: string | undefined;
  webhookUrl?: string | undefined;
  adoptWebhookId?: number | undefined;
  /** The inputs the state holds secret: never shown, and kept secret in what recover records. */
  secretInputs: string[];
  /** Why recover cannot look for it on the service (it is cleared, with this said). */
  unmatchable?: string | undefined;
}

/**
 * The state's pending creates, split into endpoints (ours) and anything else. `revealedState` is
 * the same state exported with `--show-secrets`, when there is one: secret names and URLs are then
 * matched too (and never shown).
 */
export function pendingCreates(
  deployment: Deployment,
  revealedState?: Deployment,
): { ours: PendingCreate[]; foreign: PendingOperation[] } {
  const ours: PendingCreate[] = [];
  const foreign: PendingOperation[] = [];
  const revealedOps = new Map(
    (revealedState?.pending_operations ?? [])
      .filter((op) => op.type === "creating")
      .map((op) => [op.resource.urn, op.resource]),
  );
  for (const operation of deployment.pending_operations ?? []) {
    if (operation.type !== "creating") continue;
    const resource = operation.resource;
    if (!ENDPOINT_TYPES.includes(resource.type)) {
      foreign.push(operation);
      continue;
    }
    const revealedResource = revealedOps.get(resource.urn) ?? resource;
    const inputs = resource.inputs ?? {};
    const shown = (revealed(revealedResource.inputs ?? {}) ?? {}) as Record<string, unknown>;
    const face = resource.type === DYNAMIC_TYPE ? "dynamic" : "native";
    const adopt = shown.adoptWebhookId;
    const pending: PendingCreate = {
      operation,
      revealedResource,
      urn: resource.urn,
      resourceName: urnName(resource.urn),
      face,
      webhookName:
        plainString(shown, "webhookName") ??
        (shown.webhookName === undefined && face === "native" ? urnName(resource.urn) : undefined),
      webhookUrl: plainString(shown, "webhookUrl"),
      adoptWebhookId: typeof adopt === "number" ? adopt : undefined,
      secretInputs: Object.keys(inputs).filter((key) => isSecret(inputs[key])),
    };
    if (pending.webhookName === undefined || pending.webhookUrl === undefined) {
      pending.unmatchable = pending.secretInputs.some((key) => key === "webhookName" || key === "webhookUrl")
        ? "its webhookName or webhookUrl is a secret that could not be decrypted (run recover where `pulumi stack export --show-secrets` works for this stack)"
        : "its inputs hold no plain webhookName and webhookUrl";
    }
    ours.push(pending);
  }
  return { ours, foreign };
}

/**
 * The resource the engine would have recorded had the create's answer arrived: the pending
 * operation's resource with the endpoint's ID and outputs (what the face's create returns: the
 * record, the echoed inputs, the provenance, `signSecret` as a secret; the dynamic face also keeps
 * `__provider`). Secret as the face would have made it: `signSecret` always; an output whose input
 * was secret, or that shows a secret value (`secretValues`: the pending inputs' secrets and those of
 * its provider or connection); on the dynamic face the remembered addresses always, and the
 * provenance when its base URL may be secret (`provenanceSecret`). Secrets are written in plaintext
 * form for `pulumi stack import`, which encrypts them; the deployment is handed to it on stdin and
 * never written to disk.
 */
export function recordedResource(
  pending: PendingCreate,
  record: WebhookEndpointRecord,
  now: Date,
  provenance: Provenance,
  secrecy: { secretValues?: readonly string[]; provenanceSecret?: boolean } = {},
): StateResource {
  const resource = pending.operation.resource;
  const inputs = resource.inputs ?? {};
  const secretInputs = inputs.__secretInputs;
  const declared = {
    webhookName: pending.webhookName ?? record.webhookName,
    webhookUrl: pending.webhookUrl ?? record.webhookUrl,
    ...(pending.adoptWebhookId === undefined ? {} : { adoptWebhookId: pending.adoptWebhookId }),
    ...(Array.isArray(secretInputs)
      ? { __secretInputs: secretInputs.filter((name): name is string => typeof name === "string") }
      : {}),
  };
  const state: Record<string, unknown> = { ...stateAfterCreate(record, declared, provenance) };
  // The stack it entered, as a resource reference that `pulumi stack rename` rewrites; never secret.
  const root = stackRootOf(state.stackRoot);
  delete state.stackRoot;
  const alwaysSecret = new Set<string>([
    ...(pending.face === "dynamic" ? DYNAMIC_FORCED_SECRET : ALWAYS_SECRET_OUTPUTS),
    ...(secrecy.provenanceSecret === true ? ["provenance"] : []),
  ]);
  const values = secrecy.secretValues ?? [];
  for (const [key, value] of Object.entries(state)) {
    if (alwaysSecret.has(key) || pending.secretInputs.includes(key) || showsTainted(value, values))
      state[key] = plaintextSecret(value);
  }
  if (root !== undefined) state.stackRoot = resourceReference(root);
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
export function recoveredDeployment(
  original: UntypedDeployment,
  recorded: readonly StateResource[],
): UntypedDeployment {
  const replacing = new Set(recorded.map((r) => r.urn));
  // A create that was a replacement's: the engine would have marked the old resource for deletion
  // once the new one existed (delete only prints a notice here: the API cannot delete).
  const kept = (original.deployment.resources ?? []).map((r) =>
    replacing.has(r.urn) && r.delete !== true ? { ...r, delete: true } : r,
  );
  const deployment: Deployment = { ...original.deployment, resources: [...kept, ...recorded] };
  delete deployment.pending_operations;
  return { ...original, deployment };
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
