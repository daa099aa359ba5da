import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { WebhooksClient } from "../client/client";
import type { WebhookEndpointRecord } from "../client/types";
import {
  CONFIG_ACCESS_TOKEN,
  CONFIG_ADOPT_RECENT_MINUTES,
  CONFIG_ALLOW_INSECURE_HTTP,
  CONFIG_BASE_URL,
  adoptRecentWindowMs,
  clientFor,
  resolveConnection,
  type StackConfig,
} from "./connection";
import { isKnown, validateInputs, type ConnectionInputs, type WebhookEndpointInputs } from "./inputs";

/**
 * The implementation behind every `WebhookEndpoint`. State never holds this code: the serialized
 * shim (see shim.ts) requires this module from the installed package at run time, so a fix here
 * reaches resources created by older versions on their next refresh or destroy.
 *
 * Promises kept, per method:
 * - check never calls the API;
 * - create makes one create call, repeated only when the service certainly did not act (adopting
 *   makes none) and, if anything fails once the endpoint exists, fails with its id so the engine
 *   records it;
 * - read never trusts the service's filter and reports a vanished endpoint as gone;
 * - diff always answers explicitly, so package upgrades never show as changes;
 * - delete never calls the API (there is no delete) and says so once per endpoint.
 */

/** Outputs: the API record in camelCase, plus the inputs that must be echoed for diff and read. */
export interface WebhookEndpointOutputs extends WebhookEndpointRecord {
  adoptWebhookId?: number;
  connection?: ConnectionInputs;
}

let stackConfig: StackConfig = {};

/** An error that tells the engine the endpoint exists, so it lands in state instead of being lost. */
export class EndpointCreatedButFailedError extends Error {
  override name = "EndpointCreatedButFailedError";
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];
  constructor(message: string, id: string, properties: Record<string, unknown>) {
    super(message);
    this.id = id;
    this.properties = properties;
    this.reasons = [message];
  }
}

function clientForProps(props: { connection?: ConnectionInputs | undefined }): WebhooksClient {
  return clientFor(resolveConnection(props.connection, stackConfig));
}

function outputsOf(record: WebhookEndpointRecord, inputs: Partial<WebhookEndpointInputs>): WebhookEndpointOutputs {
  return {
    ...record,
    ...(inputs.adoptWebhookId === undefined ? {} : { adoptWebhookId: inputs.adoptWebhookId }),
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
  };
}

/** Lists with the name filter and matches on the id; the filter may be exact, partial or ignored. */
async function findByName(client: WebhooksClient, id: number, name: string | undefined): Promise<WebhookEndpointRecord | undefined> {
  if (!name) return undefined;
  const { records } = await client.scan({ webhookName: name });
  return records.find((record) => record.webhookId === id);
}

/** The name filter first; a full scan when it finds nothing (the name may have changed there). */
async function findAnywhere(client: WebhooksClient, id: number, name: string | undefined): Promise<WebhookEndpointRecord | undefined> {
  const byName = await findByName(client, id, name);
  if (byName) return byName;
  const { records } = await client.scan({});
  return records.find((record) => record.webhookId === id);
}

/**
 * What read just saw, per id, for the diff the engine sends right after it during a refresh: one
 * list call per endpoint instead of two. Kept only briefly, and used once.
 */
const justRead = new Map<string, { record: WebhookEndpointRecord | undefined; at: number }>();
const JUST_READ_MS = 10_000;

function takeJustRead(id: string): { record: WebhookEndpointRecord | undefined } | undefined {
  const entry = justRead.get(id);
  justRead.delete(id);
  return entry && Date.now() - entry.at <= JUST_READ_MS ? entry : undefined;
}

/**
 * The engine runs a preview's diffs one after another, so one list per endpoint puts N round
 * trips on the critical path (and a refresh of N endpoints makes N calls). Past a few lookups on
 * one connection, one paged scan of the whole service answers the rest of this command's lookups:
 * a few calls instead of N. The scan is kept briefly (a provider process lives for one command);
 * an id it does not hold is still looked up by name, since it may be newer than the scan; and a
 * service whose listing cannot be paged through keeps the by-name lookups.
 */
const SCAN_AFTER_LOOKUPS = 8;
const SCAN_FRESH_MS = 30_000;
interface Lookups {
  count: number;
  scan?: Promise<Map<number, WebhookEndpointRecord> | undefined>;
  scannedAt?: number;
}
const lookupsByClient = new WeakMap<WebhooksClient, Lookups>();

function sharedScan(client: WebhooksClient): Promise<Map<number, WebhookEndpointRecord> | undefined> | undefined {
  const lookups = lookupsByClient.get(client) ?? { count: 0 };
  lookupsByClient.set(client, lookups);
  lookups.count++;
  if (lookups.count <= SCAN_AFTER_LOOKUPS) return undefined;
  if (!lookups.scan || Date.now() - (lookups.scannedAt ?? 0) > SCAN_FRESH_MS) {
    lookups.scannedAt = Date.now();
    lookups.scan = client.scan({}).then(
      ({ records }) => new Map(records.map((record) => [record.webhookId, record])),
      () => undefined,
    );
  }
  return lookups.scan;
}

/**
 * Finds an endpoint by id for read (`anywhere`: a full scan when the name filter misses it, since
 * the name may have changed on the service) or for diff (the name filter only).
 */
async function lookup(client: WebhooksClient, id: number, name: string | undefined, anywhere: boolean): Promise<WebhookEndpointRecord | undefined> {
  const snapshot = await sharedScan(client);
  if (snapshot) return snapshot.get(id) ?? (await findByName(client, id, name));
  return anywhere ? findAnywhere(client, id, name) : findByName(client, id, name);
}

function idNumber(id: string): number {
  const value = Number(id);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`resource ID "${id}" is not a webhook_id; this state was not written by WebhookEndpoint`);
  }
  return value;
}

async function adopt(client: WebhooksClient, inputs: WebhookEndpointInputs, adoptId: number): Promise<WebhookEndpointRecord> {
  const record = await findAnywhere(client, adoptId, inputs.webhookName);
  if (!record) {
    throw new Error(
      `adoptWebhookId ${adoptId}: no endpoint with that webhook_id exists on the service; check the id, or remove adoptWebhookId to create a new endpoint`,
    );
  }
  const mismatches: string[] = [];
  if (record.webhookName !== inputs.webhookName) mismatches.push(`webhookName is "${inputs.webhookName}" but the endpoint's name is "${record.webhookName}"`);
  if (record.webhookUrl !== inputs.webhookUrl) mismatches.push(`webhookUrl is "${inputs.webhookUrl}" but the endpoint's URL is "${record.webhookUrl}"`);
  if (mismatches.length > 0) {
    throw new Error(
      `adoptWebhookId ${adoptId}: ${mismatches.join("; ")}. The API cannot update an endpoint, so declare exactly the endpoint's current name and URL to adopt it`,
    );
  }
  return record;
}

/**
 * Recovery after an interrupted run (opt-in): the engine forgets a create that was in flight when
 * the CLI was killed, so the next `up` would create the endpoint again. With a window set, one
 * endpoint with exactly the declared name and URL, created within the window, is adopted instead;
 * two or more are refused rather than guessed between.
 */
async function adoptRecent(client: WebhooksClient, inputs: WebhookEndpointInputs, windowMs: number): Promise<WebhookEndpointRecord | undefined> {
  if (windowMs <= 0) return undefined;
  const cutoff = Date.now() - windowMs;
  const { records } = await client.scan({ webhookName: inputs.webhookName });
  const matches = records.filter((r) => r.webhookName === inputs.webhookName && r.webhookUrl === inputs.webhookUrl && r.createTime >= cutoff);
  if (matches.length > 1) {
    throw new Error(
      `${matches.length} endpoints named "${inputs.webhookName}" with this URL were created within ${CONFIG_ADOPT_RECENT_MINUTES} (ids ${matches.map((r) => r.webhookId).join(", ")}); cannot tell which one to adopt: set adoptWebhookId on this resource to the right one`,
    );
  }
  const match = matches[0];
  if (match) {
    console.log(`webhook endpoint ${match.webhookId} ("${match.webhookName}") matched exactly and was created recently: adopted instead of creating a duplicate (${CONFIG_ADOPT_RECENT_MINUTES} is set).`);
  }
  return match;
}

export const provider: Required<dynamic.ResourceProvider<WebhookEndpointInputs, WebhookEndpointOutputs>> = {
  configure(request: dynamic.ConfigureRequest): Promise<void> {
    // Assigned synchronously: the provider host caches this provider before configure's promise
    // settles, so concurrent first calls must already see the config.
    const read = (key: string): string | undefined => {
      try {
        return request.config.get(key);
      } catch {
        // The host hands over no config at all when Configure was never called.
        return undefined;
      }
    };
    stackConfig = {
      [CONFIG_BASE_URL]: read(CONFIG_BASE_URL),
      [CONFIG_ACCESS_TOKEN]: read(CONFIG_ACCESS_TOKEN),
      [CONFIG_ALLOW_INSECURE_HTTP]: read(CONFIG_ALLOW_INSECURE_HTTP),
      [CONFIG_ADOPT_RECENT_MINUTES]: read(CONFIG_ADOPT_RECENT_MINUTES),
    };
    return Promise.resolve();
  },

  async check(_olds, news) {
    const failures = validateInputs(news as unknown as Record<string, unknown>);
    return failures.length > 0 ? { inputs: news, failures } : { inputs: news };
  },

  async create(inputs) {
    const client = clientForProps(inputs);
    let record: WebhookEndpointRecord;
    if (inputs.adoptWebhookId !== undefined) {
      record = await adopt(client, inputs, inputs.adoptWebhookId);
    } else {
      const recovered = await adoptRecent(client, inputs, adoptRecentWindowMs(stackConfig));
      record = recovered ?? (await client.create({ webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl })).record;
    }
    const id = String(record.webhookId);
    const outs = outputsOf(record, inputs);
    if (record.webhookName !== inputs.webhookName || record.webhookUrl !== inputs.webhookUrl) {
      // The endpoint exists, so it must reach state even though this run fails: otherwise the
      // next run would create a second one, and nothing can delete either.
      throw new EndpointCreatedButFailedError(
        `endpoint ${id} was created, but the service stored it as name "${record.webhookName}", URL "${record.webhookUrl}" instead of what was declared; it is recorded in state. Declare exactly those values to stop further replacements`,
        id,
        { ...outs, __provider: (inputs as unknown as Record<string, unknown>).__provider },
      );
    }
    return { id, outs };
  },

  async read(id, props) {
    const old = props ?? ({} as Partial<WebhookEndpointOutputs>);
    const client = clientForProps(old);
    const record = await lookup(client, idNumber(id), old.webhookName, true);
    justRead.set(id, { record, at: Date.now() });
    if (!record) return { id: "" };
    const outs = outputsOf(record, old);
    const inputs: Partial<WebhookEndpointInputs> = {
      webhookName: record.webhookName,
      webhookUrl: record.webhookUrl,
      ...(old.adoptWebhookId === undefined ? {} : { adoptWebhookId: old.adoptWebhookId }),
      ...(old.connection === undefined ? {} : { connection: old.connection }),
    };
    return { id, props: outs, inputs: inputs as WebhookEndpointOutputs };
  },

  async diff(id, olds, news) {
    const replaces: string[] = [];
    for (const key of ["webhookName", "webhookUrl"] as const) {
      if (!isKnown(news[key]) || news[key] !== olds[key]) replaces.push(key);
    }
    const adoptId = news.adoptWebhookId;
    if (adoptId !== undefined && (!isKnown(adoptId) || adoptId !== Number(id))) replaces.push("adoptWebhookId");
    const connectionChanged = JSON.stringify(news.connection ?? null) !== JSON.stringify(olds.connection ?? null);
    const adoptChanged = adoptId !== olds.adoptWebhookId;

    if (replaces.length === 0) {
      // Drift: an endpoint removed on the service must be recreated, and preview should say so
      // without --refresh. The filter may be partial or ignored, so match on the id.
      const client = clientForProps({ connection: isKnown(news.connection) ? news.connection : olds.connection });
      const seen = takeJustRead(id);
      const current = seen ? seen.record : await lookup(client, idNumber(id), olds.webhookName, false);
      if (!current) replaces.push("webhookId");
      else if (current.webhookName !== olds.webhookName || current.webhookUrl !== olds.webhookUrl) replaces.push("webhookName");
    }
    return {
      changes: replaces.length > 0 || connectionChanged || adoptChanged,
      replaces,
      deleteBeforeReplace: false,
    };
  },

  async update(_id, olds, news) {
    // Only changes that need no API call reach update (connection, adoptWebhookId bookkeeping, a
    // new provider version): every output is kept.
    const outs: WebhookEndpointOutputs = { ...olds };
    delete outs.adoptWebhookId;
    delete outs.connection;
    return { outs: outputsOf(outs, news) };
  },

  async delete(id, props) {
    const name = typeof props.webhookName === "string" ? ` ("${props.webhookName}")` : "";
    console.log(
      `webhook endpoint ${id}${name} still exists on the service: this API cannot delete endpoints. Remove it there if it is no longer needed.`,
    );
  },
};
