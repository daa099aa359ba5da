import { sameEndpoint, type EndpointAddress } from "../client/rules";
import type { WebhookEndpointRecord } from "../client/types";
import type { WebhookEndpointInputs } from "./inputs";
import type { ConnectionInputs } from "./settings";

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
  declared?: EndpointAddress;
  createdAs?: EndpointAddress;
}

function addressOf(value: EndpointAddress): EndpointAddress {
  return { webhookName: value.webhookName, webhookUrl: value.webhookUrl };
}

function strictlyEqual(a: EndpointAddress, b: EndpointAddress): boolean {
  return a.webhookName === b.webhookName && a.webhookUrl === b.webhookUrl;
}

/** The state after a create or an adoption of `record` for `inputs`. */
export function stateAfterCreate(record: WebhookEndpointRecord, inputs: WebhookEndpointInputs): WebhookEndpointOutputs {
  return {
    ...record,
    ...echoedInputs(inputs),
    ...(strictlyEqual(record, inputs) ? {} : { declared: addressOf(inputs) }),
  };
}

/** The state after a read found `record`; the remembered addresses carry over. */
export function stateAfterRead(record: WebhookEndpointRecord, old: Partial<WebhookEndpointOutputs>): WebhookEndpointOutputs {
  const declared = declaredAddress(old);
  const createdAs = createdAddress(old);
  return {
    ...record,
    ...echoedInputs(old),
    ...(declared === undefined || strictlyEqual(declared, createdAs ?? record) ? {} : { declared }),
    ...(createdAs === undefined || strictlyEqual(createdAs, record) ? {} : { createdAs }),
  };
}

/** The state after an update (no API call): the record and remembered addresses kept, inputs echoed anew. */
export function stateAfterUpdate(old: WebhookEndpointOutputs, inputs: Partial<WebhookEndpointInputs>): WebhookEndpointOutputs {
  const { adoptWebhookId: _adopt, connection: _connection, ...kept } = old;
  return { ...kept, ...echoedInputs(inputs) };
}

function echoedInputs(inputs: Partial<WebhookEndpointInputs>): Pick<WebhookEndpointOutputs, "adoptWebhookId" | "connection"> {
  return {
    ...(inputs.adoptWebhookId === undefined ? {} : { adoptWebhookId: inputs.adoptWebhookId }),
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
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

/** Whether the service's current record still is the endpoint that was created: the same address, or the declared one. */
export function stillAsCreated(current: EndpointAddress, state: Partial<WebhookEndpointOutputs>): boolean {
  const created = createdAddress(state);
  const declared = declaredAddress(state);
  return (created !== undefined && sameEndpoint(current, created)) || (declared !== undefined && sameEndpoint(current, declared));
}

function isAddress(value: unknown): value is EndpointAddress {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as EndpointAddress).webhookName === "string" &&
    typeof (value as EndpointAddress).webhookUrl === "string"
  );
}
