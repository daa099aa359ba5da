import { maySameEndpoint, sameEndpoint, type EndpointAddress, type WebhookEndpointRecord } from "../client";
import type { WebhookEndpointInputs } from "./inputs";
import { OUTPUT_NAMES, type OutputName } from "./resource";
import type { ConnectionInputs } from "./settings";
import { referencedUrn, rootStackUrn, stackOfUrn } from "./wire";

/**
 * What the state holds for one endpoint: the API record in camelCase (the outputs users read),
 * plus the inputs that must be echoed for the next diff, plus two remembered addresses kept only
 * when they differ from the record:
 * - `declared`: the name and URL the program declared, when the service stored another form of
 *   them. Diff compares new inputs against these, so a service that rewrites what it stores
 *   never turns one declaration into a new endpoint per run.
 * - `createdAs`: the name and URL the service held when the endpoint was created or adopted, when
 *   a refresh has since seen it change. Drift is measured against these.
 */
export interface WebhookEndpointOutputs extends WebhookEndpointRecord {
  adoptWebhookId?: number;
  connection?: ConnectionInputs;
  /** Dynamic resource only: which of its inputs (and `webhooks:*` config keys) the program marked secret. */
  __secretInputs?: string[];
  declared?: EndpointAddress;
  createdAs?: EndpointAddress;
  /** How the endpoint entered the stack and on which service; absent in states of earlier releases (unknown). */
  provenance?: Provenance;
  /**
   * The URN of the root resource (`pulumi:pulumi:Stack`) of the stack the endpoint entered, recorded
   * with the provenance. Each face stores it as a resource reference, never secret: `pulumi stack
   * rename` rewrites the references in a state to the stack's new name (Pulumi 3.254 and later),
   * `pulumi state move` leaves those of the resources it moves as they were. So it names the stack
   * itself across a rename, and still names the stack a moved endpoint came from ({@link
   * enteredStack}). Absent in states of earlier releases, which the provenance's `stack` name alone
   * identifies.
   */
  stackRoot?: string;
}

/**
 * How an endpoint entered a stack, recorded when it did (a fact, never inferred later):
 * - `created`: this stack's create call made it (`recovered: true` when `webhooks recover` recorded
 *   a create a killed run made, matched by the stack's own principal);
 * - `adopted`: taken over with `adoptWebhookId`;
 * - `imported`: brought in by `pulumi import` or the `import` resource option (native face);
 * - `picked`: recorded by `webhooks recover --pick`, a person's choice.
 * `service` is the connection's base URL in one form ({@link serviceOf}), never its token; `stack`
 * is the stack (`<project>/<stack>`, as its URNs name it) that the endpoint entered. Only an endpoint
 * created by the very stack that holds it ({@link createdByItsStack}: not one a `pulumi state move`
 * brought from another stack) teaches `webhooks recover` the stack's principal, or counts, in
 * `webhooks orphans`, as left behind by the stack.
 */
export interface Provenance {
  how: ProvenanceHow;
  service: string;
  stack: string;
  recovered?: boolean;
}
/** The provenance's fields, each `true` when every provenance records it (the schema's type follows it). */
export const PROVENANCE_FIELDS = {
  how: true,
  service: true,
  stack: true,
  recovered: false,
} as const satisfies Record<keyof Provenance, boolean>;
export const PROVENANCE_HOWS = ["created", "adopted", "imported", "picked"] as const;
export type ProvenanceHow = (typeof PROVENANCE_HOWS)[number];

/** The provenance a state records, or undefined when it records none or one this release cannot read. */
export function provenanceOf(state: { provenance?: unknown } | undefined): Provenance | undefined {
  const value = state?.provenance;
  if (typeof value !== "object" || value === null) return undefined;
  const { how, service, stack, recovered } = value as Record<string, unknown>;
  if (
    typeof how !== "string" ||
    !(PROVENANCE_HOWS as readonly string[]).includes(how) ||
    typeof service !== "string" ||
    typeof stack !== "string"
  )
    return undefined;
  return { how: how as ProvenanceHow, service, stack, ...(recovered === true ? { recovered: true } : {}) };
}

export { stackOfUrn } from "./wire";

/**
 * The URN a stored `stackRoot` holds: a resource reference as the state and the native face see it,
 * or the URN alone, as the engine hands it to a provider that does not accept references (the
 * dynamic-provider host); undefined for anything else.
 */
export function stackRootOf(value: unknown): string | undefined {
  const urn = typeof value === "string" ? value : referencedUrn(value);
  return urn !== undefined && stackOfUrn(urn) !== undefined ? urn : undefined;
}

/**
 * The stack (`<project>/<stack>`) an endpoint entered: the one its `stackRoot` names now (renamed
 * with the stack), else, for states of earlier releases, the name its provenance recorded.
 */
export function enteredStack(state: { provenance?: unknown; stackRoot?: unknown }): string | undefined {
  const root = stackRootOf(state.stackRoot);
  return root === undefined ? provenanceOf(state)?.stack : stackOfUrn(root);
}

/**
 * Whether the resource at `urn` holds an endpoint its own stack created: its provenance says
 * `created`, in the stack its URN names ({@link enteredStack}: across a `pulumi stack rename`, by its
 * `stackRoot`). An endpoint moved in from another stack (`pulumi state move`), adopted, imported or
 * picked, or recorded by an earlier release, was not.
 */
export function createdByItsStack(
  provenance: Provenance | undefined,
  urn: string,
  stackRoot?: unknown,
): boolean {
  return provenance?.how === "created" && enteredStack({ provenance, stackRoot }) === stackOfUrn(urn);
}

function addressOf(value: EndpointAddress): EndpointAddress {
  return { webhookName: value.webhookName, webhookUrl: value.webhookUrl };
}

function strictlyEqual(a: EndpointAddress, b: EndpointAddress): boolean {
  return a.webhookName === b.webhookName && a.webhookUrl === b.webhookUrl;
}

/** The state after a create or an adoption of `record` for `inputs`. */
export function stateAfterCreate(
  record: WebhookEndpointRecord,
  inputs: WebhookEndpointInputs,
  provenance: Provenance,
): WebhookEndpointOutputs {
  const stackRoot = rootStackUrn(provenance.stack);
  return {
    ...record,
    ...echoedInputs(inputs),
    ...(strictlyEqual(record, inputs) ? {} : { declared: addressOf(inputs) }),
    provenance,
    ...(stackRoot === undefined ? {} : { stackRoot }),
  };
}

/**
 * The state after a read found `record`; the remembered addresses and the provenance carry over
 * (`imported` gives the provenance of an endpoint read with no state: `pulumi import`). Outputs a
 * later release wrote, which this one does not know, are kept as they were: a refresh by an older
 * release must never drop what a newer one recorded (a provenance this release cannot read included).
 */
export function stateAfterRead(
  record: WebhookEndpointRecord,
  old: Partial<WebhookEndpointOutputs>,
  imported?: Provenance,
): WebhookEndpointOutputs {
  const declared = declaredAddress(old);
  const createdAs = createdAddress(old);
  const provenance = imported ?? provenanceOf(old) ?? old.provenance;
  const stackRoot = imported === undefined ? stackRootOf(old.stackRoot) : rootStackUrn(imported.stack);
  return {
    ...laterOutputs(old),
    ...record,
    ...echoedInputs(old),
    ...(declared === undefined || strictlyEqual(declared, createdAs ?? record) ? {} : { declared }),
    ...(createdAs === undefined || strictlyEqual(createdAs, record) ? {} : { createdAs }),
    ...(provenance === undefined ? {} : { provenance }),
    ...(stackRoot === undefined ? {} : { stackRoot }),
  };
}

/**
 * What an endpoint's outputs hold in this release: the outputs users read (the resource's
 * definition, the record's fields among them), and what state keeps internally besides
 * (`__provider`: the dynamic face's stored provider text); a later release may record more.
 */
const INTERNAL_OUTPUTS = [
  "connection",
  "__secretInputs",
  "declared",
  "createdAs",
  "stackRoot",
] as const satisfies Exclude<keyof WebhookEndpointOutputs, OutputName>[];
const OWN_OUTPUTS: ReadonlySet<string> = new Set([...OUTPUT_NAMES, ...INTERNAL_OUTPUTS, "__provider"]);
// Every field of the outputs' type is one of the two: a field added to the type and to neither
// list would be taken for a later release's output. Fails to compile otherwise.
const everyOutputOwned: [
  Exclude<keyof WebhookEndpointOutputs, OutputName | (typeof INTERNAL_OUTPUTS)[number]>,
] extends [never]
  ? true
  : never = true;
void everyOutputOwned;

/** The outputs of `state` that this release does not write: a later release's, to be kept as they are. */
export function laterOutputs(state: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(state).filter(([key]) => !OWN_OUTPUTS.has(key)));
}

/**
 * The state after an update (no API call): the record, the remembered addresses and the provenance
 * kept (how an endpoint entered the stack does not change when `adoptWebhookId` is removed), as is
 * every output a later release wrote; inputs echoed anew. A program that now declares the name and
 * URL the service holds (after a refresh saw them changed there: {@link declaresRecord}) makes them
 * the endpoint's address from now on: what was declared and created before is forgotten.
 */
export function stateAfterUpdate(
  old: WebhookEndpointOutputs,
  inputs: Partial<WebhookEndpointInputs>,
): WebhookEndpointOutputs {
  const {
    adoptWebhookId: _adopt,
    connection: _connection,
    __secretInputs: _secretInputs,
    stackRoot: storedRoot,
    ...kept
  } = old;
  const stackRoot = stackRootOf(storedRoot);
  if (declaresRecord(old, inputs)) {
    delete kept.declared;
    delete kept.createdAs;
    if (!strictlyEqual(old, inputs as EndpointAddress)) kept.declared = addressOf(inputs as EndpointAddress);
  }
  return { ...kept, ...(stackRoot === undefined ? {} : { stackRoot }), ...echoedInputs(inputs) };
}

/**
 * Whether `inputs` declare the name and URL the state's record holds (in a form the service may
 * store), where they differ from what was declared before: the program took up a change the
 * service made, which a refresh recorded. Nothing to create, and nothing drifted.
 */
export function declaresRecord(
  state: Partial<WebhookEndpointOutputs>,
  inputs: Partial<WebhookEndpointInputs>,
): boolean {
  if (typeof inputs.webhookName !== "string" || typeof inputs.webhookUrl !== "string") return false;
  if (!isAddress(state)) return false;
  const declared = declaredAddress(state);
  const address = { webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl };
  // Up to the forms a service may store (case, trailing slashes), as a create takes the form it stored.
  return maySameEndpoint(address, state) && (declared === undefined || !sameEndpoint(address, declared));
}

function echoedInputs(
  inputs: Partial<WebhookEndpointInputs>,
): Pick<WebhookEndpointOutputs, "adoptWebhookId" | "connection" | "__secretInputs"> {
  return {
    ...(inputs.adoptWebhookId === undefined ? {} : { adoptWebhookId: inputs.adoptWebhookId }),
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
    ...(Array.isArray(inputs.__secretInputs) ? { __secretInputs: inputs.__secretInputs } : {}),
  };
}

/** The name and URL the service held at creation (or adoption). */
export function createdAddress(state: Partial<WebhookEndpointOutputs>): EndpointAddress | undefined {
  if (isAddress(state.createdAs)) return addressOf(state.createdAs);
  return isAddress(state) ? addressOf(state) : undefined;
}

/** The name and URL that were declared when the endpoint was created or adopted. */
export function declaredAddress(state: Partial<WebhookEndpointOutputs>): EndpointAddress | undefined {
  if (isAddress(state.declared)) return addressOf(state.declared);
  return createdAddress(state);
}

/**
 * Whether the service's current record still is the endpoint that was created: the same address, or the
 * declared one.
 */
export function stillAsCreated(current: EndpointAddress, state: Partial<WebhookEndpointOutputs>): boolean {
  const created = createdAddress(state);
  const declared = declaredAddress(state);
  return (
    (created !== undefined && sameEndpoint(current, created)) ||
    (declared !== undefined && sameEndpoint(current, declared))
  );
}

/**
 * The facts an endpoint keeps for life, by the API document: the principal that created it and
 * when. Ids are per service, so the same id on another service (another team's, often with the same
 * name and URL) differs in one of them. Whether `record` may be the endpoint a state holds: every
 * fact the state recorded (as a plain number) equals the record's; a state that recorded none (or
 * holds them secret) cannot tell, and answers yes.
 */
export function mayBeHeldEndpoint(
  state: { creatorId?: unknown; createTime?: unknown } | undefined,
  record: Pick<WebhookEndpointRecord, "creatorId" | "createTime">,
): boolean {
  return (
    (typeof state?.creatorId !== "number" || state.creatorId === record.creatorId) &&
    (typeof state?.createTime !== "number" || state.createTime === record.createTime)
  );
}

function isAddress(value: unknown): value is EndpointAddress {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as EndpointAddress).webhookName === "string" &&
    typeof (value as EndpointAddress).webhookUrl === "string"
  );
}
