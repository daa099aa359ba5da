import {
  CLIENT_DEFAULTS,
  WebhookCreateUncertainError,
  WebhookEndpointExistsError,
  WebhooksClient,
  sameEndpoint,
  sameName,
  sameUrl,
  type WebhookEndpointRecord,
} from "../client";
import { pasteRefusal, quoteServiceText, secretForms, shellQuote } from "../text";
import { EndpointCreatedButFailedError, ProviderError } from "./errors";
import { isKnown, validateInputs, type CheckFailure, type WebhookEndpointInputs } from "./inputs";
import { EndpointLookups, type LookupStats } from "./lookups";
import {
  EMPTY_CONFIG,
  SETTING_NAMES,
  SETTINGS,
  accessTokensIn,
  resolveConnection,
  serviceOf,
  type Connection,
  type ConnectionInputs,
  type ProviderConfig,
} from "./settings";
import {
  createdAddress,
  declaredAddress,
  mayBeHeldEndpoint,
  provenanceOf,
  stateAfterCreate,
  stateAfterRead,
  stateAfterUpdate,
  stillAsCreated,
  type Provenance,
  type WebhookEndpointOutputs,
} from "./state";
import { NO_TAINT, scrubbed, scrubbedError, type Taint } from "./taint";

/**
 * The provider core: the lifecycle of a webhook endpoint on a list-and-create API, written once
 * for both faces (the dynamic resource in `src/dynamic`, the native plugin in `src/native`).
 *
 * Promises kept, per method:
 * - check never calls the API;
 * - create makes one create call, preceded by one listing (nothing that may be the same endpoint
 *   exists, else it fails naming it); repeated only when the service certainly did not act; never
 *   settles on an endpoint that existed before; if the endpoint exists but something after fails,
 *   fails with its id so that it lands in state (adopting makes no create call);
 * - read never trusts the service's filter and reports a vanished endpoint as gone;
 * - diff always answers explicitly (an SDK upgrade never shows as a change), compares inputs up to
 *   the forms a service may store, and looks at the service so drift shows without `--refresh`;
 * - update and delete never call the API (there is none) and delete says so once per endpoint.
 *
 * It holds its configuration and, per connection (base URL and token), a client and that
 * connection's lookups: nothing is shared between connections, and there is no module-level state.
 *
 * Every method takes the call's taint (what the program marked secret, see `taint.ts`): its values
 * never appear in a message, a notice or an error the call makes, whatever field or service text
 * they show up in. Each face works out the taint from what the engine tells it.
 */
export interface ProviderCoreOptions {
  /** Which face: decides the input shape (the dynamic resource has `connection`) and the advice in messages. */
  face: "dynamic" | "native";
  /** Environment for fallback settings. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Where notices go (delete, stored forms). @default console.log */
  notify?: (message: string) => void;
}

/** How the core answers a diff; each face translates it. */
export interface DiffOutcome {
  changes: boolean;
  /** Properties whose change forces a replacement (`webhookId` when the endpoint vanished on the service). */
  replaces: string[];
  /** Properties that changed without a replacement. */
  updates: string[];
  /** Why, in words, when the service's endpoint drifted or vanished. */
  drift?: string;
}

/** What both faces tell the user when a diff found the endpoint drifted or vanished on the service. */
export function driftNotice(outcome: DiffOutcome): string | undefined {
  return outcome.drift === undefined
    ? undefined
    : `${outcome.drift}: it will be replaced (${outcome.replaces.join(", ")})`;
}

export interface ReadOutcome {
  id: string;
  state: WebhookEndpointOutputs;
  inputs: WebhookEndpointInputs;
}

interface PerConnection {
  client: WebhooksClient;
  /** The token, redacted from every message built from service text. */
  secrets: readonly string[];
  lookups: EndpointLookups;
  /** What a read just saw, reused once by the diff that follows it in a refresh. */
  justRead: Map<string, { record: WebhookEndpointRecord | undefined; at: number }>;
  /**
   * The stack's principal on this connection, as recorded facts show it: the creators of the
   * endpoints this stack created on its service (their provenance says so), seen in this process
   * by a diff or a refresh. Empty until then: the API cannot say which principal a token is.
   */
  principals: Set<number>;
  /** The token's principal as configured (`principalId`): when set, it alone decides. */
  principalId?: number;
}

/** Most connections kept at once; the least recently used one is closed past it. */
const MAX_CONNECTIONS = 32;
/** How long a read's result may stand in for the diff that follows it. */
const JUST_READ_MS = 10_000;

export class ProviderCore {
  readonly face: "dynamic" | "native";
  #config: ProviderConfig = EMPTY_CONFIG;
  readonly #envOverride: NodeJS.ProcessEnv | undefined;
  readonly #notify: (message: string) => void;
  readonly #connections = new Map<string, PerConnection>();
  /** The last connection resolved and every value its resolution read (see #resolve). */
  #lastResolved: { config: ProviderConfig; read: unknown[]; connection: Connection } | undefined;

  constructor(options: ProviderCoreOptions) {
    this.face = options.face;
    this.#envOverride = options.env;
    this.#notify = options.notify ?? ((message) => console.log(message));
  }

  /** Replaces the provider configuration (stack config, or an explicit provider's arguments). */
  configure(config: ProviderConfig): void {
    this.#config = config;
  }

  check(
    news: Record<string, unknown>,
    taint: Taint = NO_TAINT,
  ): { inputs: Record<string, unknown>; failures: CheckFailure[] } {
    const failures = validateInputs(news, { connection: this.face === "dynamic" }, taint.names).map(
      (failure) => ({ property: failure.property, reason: scrubbed(failure.reason, taint.values) }),
    );
    if (
      taint.names.includes("adoptWebhookId") &&
      news.adoptWebhookId !== undefined &&
      news.adoptWebhookId !== null
    ) {
      failures.push({
        property: "adoptWebhookId",
        reason:
          "adoptWebhookId is a secret, but the id becomes the resource's ID, which Pulumi stores and shows in plaintext: pass it as a plain number (a webhook_id is not secret; the endpoint's signSecret stays secret)",
      });
    }
    return { inputs: news, failures };
  }

  /** Create (or adopt); `stack` is `<project>/<stack>` of the resource, recorded in its provenance. */
  async create(
    inputs: WebhookEndpointInputs,
    taint: Taint = NO_TAINT,
    stack = "unknown",
  ): Promise<{ id: string; state: WebhookEndpointOutputs }> {
    try {
      return await this.#create(inputs, taint, stack);
    } catch (error) {
      throw scrubbedError(error, this.#scrubbing(taint));
    }
  }

  async #create(
    inputs: WebhookEndpointInputs,
    taint: Taint,
    stack: string,
  ): Promise<{ id: string; state: WebhookEndpointOutputs }> {
    const connection = this.#connection(inputs.connection);
    const secrets = [...connection.secrets, ...taint.values];
    const quote = (text: string, property?: "webhookName" | "webhookUrl") =>
      shown(text, property, taint, secrets);
    const adopting = inputs.adoptWebhookId !== undefined;
    const record =
      inputs.adoptWebhookId === undefined
        ? await this.#createEndpoint(connection.client, inputs, taint)
        : await this.#adopt(inputs, inputs.adoptWebhookId, taint);
    const id = String(record.webhookId);
    const principals =
      connection.principalId !== undefined ? new Set([connection.principalId]) : connection.principals;
    if (!adopting && principals.size > 0 && !principals.has(record.creatorId)) {
      // A service that keeps names unique may answer a create with the endpoint that has the name:
      // when another principal made the same name and URL while this create was in flight, that
      // endpoint is theirs, new since the attempt began, and only its creator tells.
      const ours = [...principals].sort((a, b) => a - b).join(", ");
      const whose =
        connection.principalId !== undefined
          ? `the principal configured for this token (principalId) is creator ${ours}`
          : `the endpoints this stack created on this service were created by ${ours}`;
      throw new ProviderError(
        `the service answered this create with endpoint ${id}, created by creator ${record.creatorId}, but ${whose}: another principal may have created the same name and URL while this create was in flight (a service that keeps names unique answers with the endpoint it has), so it is not taken and nothing is recorded. If endpoint ${id} is this stack's (its access token now belongs to another principal${connection.principalId !== undefined ? ", or principalId is wrong" : ""}), ${lowerFirst(this.#adoptAdvice([record.webhookId]))}; otherwise change webhookName or webhookUrl`,
      );
    }
    const state = stateAfterCreate(record, inputs, {
      how: adopting ? "adopted" : "created",
      service: serviceOf(connection.client.baseUrl),
      stack,
    });
    if (!sameEndpoint(record, inputs)) {
      // The endpoint exists, so it must reach state even though this run fails: otherwise the
      // next run would create a second one, and nothing can delete either.
      throw new EndpointCreatedButFailedError(
        `endpoint ${id} was created, but the service stored it as name ${quote(record.webhookName, "webhookName")}, URL ${quote(record.webhookUrl, "webhookUrl")} instead of what was declared. It is recorded in state, and later runs will not create another for this declaration; check that the stored address receives your notifications, or declare the stored values`,
        id,
        state as unknown as Record<string, unknown>,
      );
    }
    if (record.webhookName !== inputs.webhookName || record.webhookUrl !== inputs.webhookUrl) {
      this.#notify(
        `webhook endpoint ${id}: the service stored ${quote(inputs.webhookName, "webhookName")} ${quote(inputs.webhookUrl, "webhookUrl")} as ${quote(record.webhookName, "webhookName")} ${quote(record.webhookUrl, "webhookUrl")}, the same address in its own form; nothing else to do.`,
      );
    }
    return { id, state };
  }

  /** Read; with no `old` state, an import (`pulumi import`, the `import` option), recorded as such. */
  async read(
    id: string,
    old: Partial<WebhookEndpointOutputs> | undefined,
    taint: Taint = NO_TAINT,
    stack = "unknown",
  ): Promise<ReadOutcome | undefined> {
    try {
      return await this.#read(id, old, taint, stack);
    } catch (error) {
      throw scrubbedError(error, this.#scrubbing(taint));
    }
  }

  async #read(
    id: string,
    old: Partial<WebhookEndpointOutputs> | undefined,
    taint: Taint,
    stack: string,
  ): Promise<ReadOutcome | undefined> {
    const webhookId = idNumber(id);
    const connection = this.#connection(old?.connection);
    const record = await connection.lookups.find(
      webhookId,
      { webhookName: old?.webhookName, webhookUrl: old?.webhookUrl, redact: taint.values },
      true,
    );
    connection.justRead.set(id, { record, at: Date.now() });
    if (record === undefined) return undefined;
    // An import (`pulumi import`, the import option of either face: no outputs recorded yet) writes
    // the service's name and URL into the program and the state: the same policy as `webhooks adopt`.
    if (old === undefined || typeof old.webhookId !== "number") refuseImportShowing(id, record, connection);
    const stranger = old === undefined ? undefined : anotherEndpoint(id, old, record);
    if (stranger !== undefined)
      throw new ProviderError(
        `${stranger}; refresh cannot see the stack's endpoint from here, and records nothing of this one: restore the connection the endpoint was made with, or run \`pulumi up\` without --refresh, which replaces it`,
      );
    if (old !== undefined) learnPrincipal(connection, old, stack);
    const imported: Provenance | undefined =
      old === undefined
        ? { how: "imported", service: serviceOf(connection.client.baseUrl), stack }
        : undefined;
    const state = stateAfterRead(record, old ?? {}, imported);
    const inputs: WebhookEndpointInputs = {
      webhookName: record.webhookName,
      webhookUrl: record.webhookUrl,
      ...(old?.adoptWebhookId === undefined ? {} : { adoptWebhookId: old.adoptWebhookId }),
      ...(old?.connection === undefined ? {} : { connection: old.connection }),
      ...(Array.isArray(old?.__secretInputs) ? { __secretInputs: old.__secretInputs } : {}),
    };
    return { id, state, inputs };
  }

  /** Diff: inputs compared with what was declared, then the service asked whether the endpoint drifted. */
  async diff(
    id: string,
    olds: WebhookEndpointOutputs,
    news: Partial<WebhookEndpointInputs>,
    taint: Taint = NO_TAINT,
    stack = "unknown",
  ): Promise<DiffOutcome> {
    try {
      return await this.#diff(id, olds, news, taint, stack);
    } catch (error) {
      throw scrubbedError(error, this.#scrubbing(taint));
    }
  }

  async #diff(
    id: string,
    olds: WebhookEndpointOutputs,
    news: Partial<WebhookEndpointInputs>,
    taint: Taint,
    stack: string,
  ): Promise<DiffOutcome> {
    const replaces: string[] = [];
    const updates: string[] = [];
    const declared = declaredAddress(olds);
    if (
      !isKnown(news.webhookName) ||
      declared === undefined ||
      !sameName(String(news.webhookName), declared.webhookName)
    )
      replaces.push("webhookName");
    if (
      !isKnown(news.webhookUrl) ||
      declared === undefined ||
      !sameUrl(String(news.webhookUrl), declared.webhookUrl)
    )
      replaces.push("webhookUrl");
    const adoptId = news.adoptWebhookId;
    if (adoptId !== undefined && (!isKnown(adoptId) || adoptId !== Number(id)))
      replaces.push("adoptWebhookId");
    else if (adoptId !== olds.adoptWebhookId) updates.push("adoptWebhookId");
    const connectionChanged =
      this.face === "dynamic" &&
      JSON.stringify(news.connection ?? null) !== JSON.stringify(olds.connection ?? null);
    if (connectionChanged) updates.push("connection");

    let drift: string | undefined;
    if (replaces.length === 0) {
      // Drift: an endpoint removed or changed on the service must be recreated, and preview should
      // say so without --refresh. The filter may be partial or ignored, so match on the id.
      // The new connection input, absent included (settings then come from config and the
      // environment); the old one only while the new one, or any setting in it, is not known yet
      // (the engine's marker must never be sent as a token or used as a URL).
      const connection = this.#connection(fullyKnown(news.connection) ? news.connection : olds.connection);
      const seen = takeJustRead(connection, id);
      const current = seen
        ? seen.record
        : await connection.lookups.find(
            idNumber(id),
            { webhookName: olds.webhookName, redact: taint.values },
            false,
          );
      const stranger = current === undefined ? undefined : anotherEndpoint(id, olds, current);
      if (current === undefined) {
        replaces.push("webhookId");
        drift = `endpoint ${id} no longer exists on the service under its name`;
      } else if (stranger !== undefined) {
        // Ids are per service: the connection now reaches another service, where this id is
        // another endpoint (often another team's). It is replaced there, never taken.
        const at = updates.indexOf("connection");
        if (at >= 0) updates.splice(at, 1);
        replaces.push(connectionChanged ? "connection" : "webhookId");
        drift = stranger;
      } else {
        // The stack's own endpoint, on the connection it was made with: it may show the stack's principal.
        if (!connectionChanged) learnPrincipal(connection, olds, stack);
        if (!stillAsCreated(current, olds)) {
          const created = createdAddress(olds);
          replaces.push(
            created !== undefined && !sameName(current.webhookName, created.webhookName)
              ? "webhookName"
              : "webhookUrl",
          );
          const secrets = [...connection.secrets, ...taint.values];
          drift = `endpoint ${id} was changed on the service to name ${shown(current.webhookName, "webhookName", taint, secrets)}, URL ${shown(current.webhookUrl, "webhookUrl", taint, secrets)}`;
        }
      }
    }
    return {
      changes: replaces.length > 0 || updates.length > 0,
      replaces,
      updates,
      ...(drift === undefined ? {} : { drift }),
    };
  }

  /** Only changes that need no API call reach update (connection, adoptWebhookId bookkeeping, a new provider version). */
  update(olds: WebhookEndpointOutputs, news: Partial<WebhookEndpointInputs>): WebhookEndpointOutputs {
    return stateAfterUpdate(olds, news);
  }

  delete(id: string, olds: Partial<WebhookEndpointOutputs>, taint: Taint = NO_TAINT): void {
    // Delete calls nothing, so it needs no connection (and makes no client: destroy never loads the
    // HTTP stack) and succeeds with none configured; every token the settings hold is kept out of
    // the notice, whether or not a connection would resolve from them.
    const secrets = [
      ...accessTokensIn(this.#config, olds.connection, this.#envOverride ?? process.env),
      ...taint.values,
    ];
    const name =
      typeof olds.webhookName === "string"
        ? ` (${taint.names.includes("webhookName") ? "[secret]" : quoteServiceText(olds.webhookName, secrets, 100)})`
        : "";
    // The id is a webhook_id in any state this provider wrote; anything else (a hand-edited state) is quoted and redacted.
    const shownId = /^\d{1,20}$/.test(id) ? id : quoteServiceText(id, secrets, 60);
    this.#notify(
      `webhook endpoint ${shownId}${name} still exists on the service: this API cannot delete endpoints. Remove it there if it is no longer needed.`,
    );
  }

  /** Lookup counters per connection (keyed by base URL), for tests and the benchmark. */
  lookupStats(): Record<string, LookupStats> {
    const out: Record<string, LookupStats> = {};
    for (const state of this.#connections.values()) out[state.client.baseUrl] = { ...state.lookups.stats };
    return out;
  }

  /** Closes every connection's keep-alive sockets. */
  async close(): Promise<void> {
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(all.map((state) => state.client.close()));
  }

  async #createEndpoint(
    client: WebhooksClient,
    inputs: WebhookEndpointInputs,
    taint: Taint,
  ): Promise<WebhookEndpointRecord> {
    const params = { webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl };
    try {
      return (await client.create(params, taint.values.length === 0 ? {} : { redact: taint.values })).record;
    } catch (error) {
      // The client's own words quote the name, the URL and the forms the service stored them in; for
      // a secret name or URL they are said without them.
      const secret = taint.names.includes("webhookName") || taint.names.includes("webhookUrl");
      if (error instanceof WebhookEndpointExistsError) {
        const said = secret
          ? `an endpoint with this name and URL already exists (id ${error.existingIds.join(", ")}); nothing was created, since a second one could never be deleted`
          : error.message;
        throw new ProviderError(
          `${said}. This stack's state does not hold it. ${this.#adoptAdvice(error.existingIds)}; or, to have a separate endpoint, change webhookName or webhookUrl`,
          secret ? undefined : error,
        );
      }
      if (error instanceof WebhookCreateUncertainError) {
        const ids = error.candidateIds;
        const said = secret
          ? `create got no usable answer and could not be settled: ${ids.length > 0 ? `endpoint ${ids.join(", ")} with this name and URL appeared meanwhile and may be ours or someone else's` : "the endpoint may exist"}, so none was taken`
          : error.message;
        throw new ProviderError(
          `${said}. Running \`pulumi up\` again will not create a duplicate: create refuses while an endpoint with this name and URL exists. ${ids.length > 0 ? this.#adoptAdvice(ids) : `See which endpoint is ours with \`webhooks list --name ${taint.names.includes("webhookName") ? "<name>" : shellQuote(inputs.webhookName)}\`. ${this.#adoptAdvice([])}`}`,
          secret ? undefined : error,
        );
      }
      throw error;
    }
  }

  #adoptAdvice(ids: readonly number[]): string {
    const id = ids.length === 1 ? String(ids[0]) : "<id>";
    const which =
      ids.length > 1
        ? `the one that is yours among ids ${ids.join(", ")}`
        : ids.length === 1
          ? `endpoint ${id}`
          : "it";
    const native =
      this.face === "native"
        ? ` (or \`pulumi import webhooks:index:WebhookEndpoint <resource name> ${id}\`)`
        : "";
    return `To manage ${which} from this stack, set \`adoptWebhookId: ${id}\` on the resource${native}; if an interrupted run created it, \`webhooks recover\` in the project records it`;
  }

  async #adopt(inputs: WebhookEndpointInputs, adoptId: number, taint: Taint): Promise<WebhookEndpointRecord> {
    const { lookups, secrets } = this.#connection(inputs.connection);
    const quote = (text: string, property: "webhookName" | "webhookUrl") =>
      shown(text, property, taint, [...secrets, ...taint.values]);
    const record = await lookups.find(
      adoptId,
      { webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl, redact: taint.values },
      true,
    );
    if (record === undefined) {
      throw new ProviderError(
        `adoptWebhookId ${adoptId}: no endpoint with that webhook_id exists on the service; check the id, or remove adoptWebhookId to create a new endpoint`,
      );
    }
    const mismatches: string[] = [];
    if (!sameName(record.webhookName, inputs.webhookName)) {
      mismatches.push(
        `webhookName is ${quote(inputs.webhookName, "webhookName")} but the endpoint's name is ${quote(record.webhookName, "webhookName")}`,
      );
    }
    if (!sameUrl(record.webhookUrl, inputs.webhookUrl)) {
      mismatches.push(
        `webhookUrl is ${quote(inputs.webhookUrl, "webhookUrl")} but the endpoint's URL is ${quote(record.webhookUrl, "webhookUrl")}`,
      );
    }
    if (mismatches.length > 0) {
      throw new ProviderError(
        `adoptWebhookId ${adoptId}: ${mismatches.join("; ")}. The API cannot update an endpoint, so declare exactly the endpoint's current name and URL to adopt it`,
      );
    }
    return record;
  }

  #resolve(resource: ConnectionInputs | undefined): Connection {
    // The environment is read at each call: a long-lived process may have it changed under it.
    // Every value the resolution reads is compared with the last call's; when all are the same,
    // so is the connection (resolving parses the URL and hashes the token: measured 0.1 ms, a
    // tenth of a refresh's provider time per endpoint).
    const env = this.#envOverride ?? process.env;
    const config = this.#config;
    const read = [
      resource?.baseUrl,
      resource?.accessToken,
      resource?.allowInsecureHttp,
      ...SETTING_NAMES.map((name) => env[SETTINGS[name].env]),
    ];
    const last = this.#lastResolved;
    if (
      last !== undefined &&
      last.config === config &&
      last.read.length === read.length &&
      last.read.every((value, i) => value === read[i])
    )
      return last.connection;
    const connection = resolveConnection(
      config,
      resource,
      env,
      this.face === "dynamic" ? "the resource's connection" : undefined,
    );
    this.#lastResolved = { config, read, connection };
    return connection;
  }

  /**
   * What a failure's message is scrubbed of: the tainted values and, for a base URL among them (one
   * of this provider's connections), its origin and host, which is how a failed request names it
   * ("list request to <host> failed: ENOTFOUND <host>"). A secret webhook URL is not cut into its
   * host: that would redact every other URL on the same host.
   */
  #scrubbing(taint: Taint): readonly string[] {
    const services = new Set([...this.#connections.values()].map((state) => serviceOf(state.client.baseUrl)));
    const baseUrls = taint.values.filter((value) => services.has(serviceOf(value)));
    return baseUrls.length === 0
      ? taint.values
      : [...taint.values, ...baseUrls.flatMap((value) => secretForms(value))];
  }

  #connection(resource: ConnectionInputs | undefined): PerConnection {
    const connection = this.#resolve(resource);
    let state = this.#connections.get(connection.key);
    if (state !== undefined) {
      // Most recently used last.
      this.#connections.delete(connection.key);
      this.#connections.set(connection.key, state);
      return state;
    }
    const client = new WebhooksClient(connection.client);
    state = {
      client,
      secrets: [connection.client.accessToken],
      lookups: new EndpointLookups(client, connection.client.ascending ?? CLIENT_DEFAULTS.ascending),
      justRead: new Map(),
      principals: new Set(),
      ...(connection.principalId === undefined ? {} : { principalId: connection.principalId }),
    };
    this.#connections.set(connection.key, state);
    if (this.#connections.size > MAX_CONNECTIONS) {
      const [oldestKey, oldest] = this.#connections.entries().next().value as [string, PerConnection];
      this.#connections.delete(oldestKey);
      void oldest.client.close().catch(() => undefined);
    }
    return state;
  }
}

/**
 * Service or declared text quoted in a message, unless the program marked that property secret:
 * then not even a form of it is shown (the service may store it lower-cased, with a slash added),
 * which no search for the value itself would find.
 */
function shown(
  text: string,
  property: "webhookName" | "webhookUrl" | undefined,
  taint: Taint,
  secrets: readonly string[],
): string {
  return property !== undefined && taint.names.includes(property)
    ? "[secret]"
    : quoteServiceText(text, secrets);
}

/**
 * Refuses to import an endpoint whose name or URL holds the access token this provider connects with
 * (a service that stores or echoes it there): `pulumi import` would print it in the code it
 * generates, and the state would hold it as a plain input. Decided by the text policy `webhooks
 * adopt` uses (src/text/policy.ts).
 */
function refuseImportShowing(id: string, record: WebhookEndpointRecord, connection: PerConnection): void {
  const why = pasteRefusal(
    [
      { label: "name", text: record.webhookName },
      { label: "URL", text: record.webhookUrl },
    ],
    { inText: connection.secrets },
    "the access token this provider connects with",
  );
  if (why !== undefined) throw new ProviderError(`endpoint ${id} cannot be imported: ${why}`);
}

/** Whether a value and, for an object, each of its fields is known (not the engine's unknown marker). */
function fullyKnown(value: unknown): boolean {
  if (!isKnown(value)) return false;
  return typeof value !== "object" || value === null || Object.values(value).every((field) => isKnown(field));
}

function takeJustRead(
  connection: PerConnection,
  id: string,
): { record: WebhookEndpointRecord | undefined } | undefined {
  const entry = connection.justRead.get(id);
  connection.justRead.delete(id);
  return entry && Date.now() - entry.at <= JUST_READ_MS ? entry : undefined;
}

function idNumber(id: string): number {
  const value = Number(id);
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(value) || value <= 0) {
    throw new ProviderError(
      `resource ID ${quoteServiceText(id, [], 60)} is not a webhook_id (a positive whole number): this state was not written by WebhookEndpoint, or the ID given to import is wrong`,
    );
  }
  // One endpoint, one ID: "08" and "8" would otherwise be two resources holding the same endpoint.
  if (id !== String(value))
    throw new ProviderError(
      `resource ID ${quoteServiceText(id, [], 60)} is not written as a webhook_id is: use ${value}`,
    );
  return value;
}

/**
 * Why `current` (the endpoint with the state's id on the service connected to) is not the endpoint
 * the state holds: its creator or creation time differ, and neither ever changes (the API
 * document: the principal that created it, and when). So this is another service's endpoint with
 * the same id: the connection reaches another service than the endpoint was made on. The same
 * service at a new address (a renamed host, an emulator on a new port) still matches. No base URL is
 * named: one may be a secret.
 */
function anotherEndpoint(
  id: string,
  olds: Partial<WebhookEndpointOutputs>,
  current: WebhookEndpointRecord,
): string | undefined {
  if (mayBeHeldEndpoint(olds, current)) return undefined;
  const creator = typeof olds.creatorId === "number" && current.creatorId !== olds.creatorId;
  const differs = creator
    ? `was created by creator ${current.creatorId}, not ${olds.creatorId} as the stack's endpoint ${id}`
    : `was created at another time than the stack's endpoint ${id}`;
  return `endpoint ${id} on the service connected to ${differs}: it is another endpoint (ids are per service, and the connection reaches another service than the endpoint was made on)`;
}

/**
 * Learns the stack's principal on a connection from an endpoint the stack holds: only one its
 * provenance says this stack created on this very service (adopted, imported and picked endpoints,
 * and those of earlier releases, which record no provenance, may be anyone's).
 */
function learnPrincipal(
  connection: PerConnection,
  olds: Partial<WebhookEndpointOutputs>,
  stack: string,
): void {
  const provenance = provenanceOf(olds);
  if (provenance?.how !== "created" || provenance.service !== serviceOf(connection.client.baseUrl)) return;
  if (stack !== "unknown" && provenance.stack !== stack) return;
  if (typeof olds.creatorId === "number" && Number.isSafeInteger(olds.creatorId))
    connection.principals.add(olds.creatorId);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
