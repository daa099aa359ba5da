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
import { EndpointLookups, type Lookup, type LookupStats } from "./lookups";
import {
  contradiction,
  contradictionMessage,
  secretSetting,
  principalsOf,
  type CreatorFact,
  type PrincipalClaim,
} from "./principal";
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
  declaresRecord,
  declaredAddress,
  enteredStack,
  mayBeHeldEndpoint,
  provenanceOf,
  stateAfterCreate,
  stateAfterRead,
  stateAfterUpdate,
  stillAsCreated,
  type Provenance,
  type WebhookEndpointOutputs,
} from "./state";
import { SeenSecrets } from "./seen-secrets";
import { ALWAYS_SECRET_SETTINGS, configKey } from "./settings-table";
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
 * - read never trusts the service's filter and reports a vanished endpoint as gone, only when a
 *   listing that proved itself complete lacks it (else it keeps the endpoint and warns);
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
  /** Where warnings go (an endpoint kept because no listing could tell). @default `notify`, prefixed "warning: " */
  warn?: (message: string) => void;
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
  justRead: Map<string, { lookup: Lookup; at: number }>;
  /**
   * What the state records of the stack's principal on this connection (see principal.ts): the
   * endpoints this stack created on its service (their provenance says so), by webhook_id, with
   * their creators, learnt from each diff and refresh of the run as the engine sends it, before any
   * lookup. Empty until then: the API cannot say which principal a token is.
   */
  facts: Map<number, CreatorFact>;
  /**
   * The token's principal as its configuration names it (`principalId`): checked against the facts
   * before anything is sent, then it alone judges a create's answer.
   */
  principal?: PrincipalClaim;
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
  readonly #warn: (message: string) => void;
  readonly #connections = new Map<string, PerConnection>();
  /** Secrets earlier calls showed this process: kept out of every later message and refused in a read. */
  readonly #seen = new SeenSecrets();
  /** The last connection resolved and every value its resolution read (see #resolve). */
  #lastResolved: { config: ProviderConfig; read: unknown[]; connection: Connection } | undefined;

  constructor(options: ProviderCoreOptions) {
    this.face = options.face;
    this.#envOverride = options.env;
    const notify = options.notify ?? ((message: string) => console.log(message));
    this.#notify = (message) => notify(this.withoutRemembered(message));
    // A face's own warn (the native plugin logs warnings apart) is kept out of what was seen too.
    const warn = options.warn;
    this.#warn =
      warn === undefined
        ? (message) => this.#notify(`warning: ${message}`)
        : (message) => warn(this.withoutRemembered(message));
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

  /**
   * Create (or adopt); `stack` is `<project>/<stack>` of the resource, recorded in its provenance;
   * `resource`, its URN when the face knows it (named in advice to import the endpoint).
   */
  async create(
    inputs: WebhookEndpointInputs,
    taint: Taint = NO_TAINT,
    stack = "unknown",
    resource?: string,
  ): Promise<{ id: string; state: WebhookEndpointOutputs }> {
    this.#seen.remember(taint.values);
    try {
      const made = await this.#create(inputs, taint, stack, resource);
      this.#seen.remember([made.state.signSecret]);
      return made;
    } catch (error) {
      throw scrubbedError(error, this.#scrubbing(taint, error));
    }
  }

  async #create(
    inputs: WebhookEndpointInputs,
    taint: Taint,
    stack: string,
    resource: string | undefined,
  ): Promise<{ id: string; state: WebhookEndpointOutputs }> {
    const connection = this.#connection(inputs.connection);
    const secrets = [...connection.secrets, ...taint.values];
    const quote = (text: string, property?: "webhookName" | "webhookUrl") =>
      shown(text, property, taint, secrets);
    const adopting = inputs.adoptWebhookId !== undefined;
    // Checks before effects: a principalId the state's facts contradict would refuse the answer
    // of every create this token makes, and nothing can delete what it made.
    if (!adopting) refuseContradiction(connection, "nothing was sent to the service", taint);
    const record =
      inputs.adoptWebhookId === undefined
        ? await this.#createEndpoint(connection.client, inputs, taint, ourPrincipals(connection)).catch(
            (error: unknown) => this.#answerRefused(connection, inputs, error, resource, taint),
          )
        : await this.#adopt(inputs, inputs.adoptWebhookId, taint);
    const id = String(record.webhookId);
    const state = stateAfterCreate(record, inputs, {
      how: adopting ? "adopted" : "created",
      service: serviceOf(connection.client.baseUrl),
      stack,
    });
    if (!adopting) this.#judgeAnswer(connection, record, state, resource, taint);
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
    // The endpoint's own signing secret too: the dynamic face's taint holds only its secret inputs.
    this.#seen.remember([...taint.values, old?.signSecret]);
    try {
      const outcome = await this.#read(id, old, taint, stack);
      this.#seen.remember([outcome?.state.signSecret]);
      return outcome;
    } catch (error) {
      throw scrubbedError(error, this.#scrubbing(taint, error, old?.signSecret));
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
    const lookup = await connection.lookups.find(
      webhookId,
      { webhookName: old?.webhookName, webhookUrl: old?.webhookUrl, redact: taint.values },
      true,
    );
    connection.justRead.set(id, { lookup, at: Date.now() });
    if (lookup.kind === "absent") return undefined;
    if (lookup.kind === "unknown") {
      // Kept as the state holds it: what the state records of it is still a fact.
      if (old !== undefined) learnFact(connection, id, old, stack, this.#holder(old, connection, taint));
      return this.#unknownOnRead(id, old, lookup.reason, taint, connection);
    }
    const record = lookup.record;
    // An import (`pulumi import`, the import option of either face: no outputs recorded yet) writes
    // the service's name and URL into the program and the state, a refresh into the state: the same
    // policy as `webhooks adopt`.
    refuseShowingSecrets(
      id,
      record,
      [
        ...connection.secrets,
        // Another resource's secrets; this one's own are secret in its state.
        ...[...this.#seen.in(record.webhookName), ...this.#seen.in(record.webhookUrl)].filter(
          (value) => !taint.values.includes(value),
        ),
      ],
      old === undefined || typeof old.webhookId !== "number",
      {
        webhookName: ownSecretsElsewhere("webhookName", record, old, taint),
        webhookUrl: ownSecretsElsewhere("webhookUrl", record, old, taint),
      },
    );
    const stranger = old === undefined ? undefined : anotherEndpoint(id, old, record);
    if (stranger !== undefined)
      throw new ProviderError(
        `${stranger}; refresh cannot see the stack's endpoint from here, and records nothing of this one: restore the connection the endpoint was made with, or run \`pulumi up\` without --refresh, which replaces it`,
      );
    if (old !== undefined) learnFact(connection, id, old, stack, this.#holder(old, connection, taint));
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

  /**
   * A read whose listings could not tell whether the endpoint exists: an import fails, saying how
   * to narrow the listing; a refresh keeps what the state holds, and warns.
   */
  #unknownOnRead(
    id: string,
    old: Partial<WebhookEndpointOutputs> | undefined,
    reason: string,
    taint: Taint,
    connection: PerConnection,
  ): ReadOutcome {
    const secrets = [...connection.secrets, ...taint.values];
    const why = scrubbed(reason, secrets);
    if (old === undefined) {
      throw new ProviderError(
        `endpoint ${id} was not found, and the service's listing cannot prove that it does not exist: ${why}. Import cannot narrow the listing (it knows only the id); declare the resource with adoptWebhookId: ${id} and the endpoint's exact name and URL instead (\`webhooks adopt --id ${id} --name <name>\` prints it), which lists by name`,
      );
    }
    this.#warn(
      `refresh could not tell whether webhook endpoint ${id} still exists, so it is kept in state as it was: ${why}`,
    );
    const inputs: WebhookEndpointInputs = {
      webhookName: String(old.webhookName),
      webhookUrl: String(old.webhookUrl),
      ...(old.adoptWebhookId === undefined ? {} : { adoptWebhookId: old.adoptWebhookId }),
      ...(old.connection === undefined ? {} : { connection: old.connection }),
      ...(Array.isArray(old.__secretInputs) ? { __secretInputs: old.__secretInputs } : {}),
    };
    return { id, state: old as WebhookEndpointOutputs, inputs };
  }

  /** Diff: inputs compared with what was declared, then the service asked whether the endpoint drifted. */
  async diff(
    id: string,
    olds: WebhookEndpointOutputs,
    news: Partial<WebhookEndpointInputs>,
    taint: Taint = NO_TAINT,
    stack = "unknown",
  ): Promise<DiffOutcome> {
    this.#seen.remember([...taint.values, olds.signSecret]);
    try {
      return await this.#diff(id, olds, news, taint, stack);
    } catch (error) {
      throw scrubbedError(error, this.#scrubbing(taint, error, olds.signSecret));
    }
  }

  async #diff(
    id: string,
    olds: WebhookEndpointOutputs,
    news: Partial<WebhookEndpointInputs>,
    taint: Taint,
    stack: string,
  ): Promise<DiffOutcome> {
    const { replaces, updates, takesUpRecord } = declaredChanges(id, olds, news);
    const connectionChanged =
      this.face === "dynamic" &&
      JSON.stringify(news.connection ?? null) !== JSON.stringify(olds.connection ?? null);
    if (connectionChanged) updates.push("connection");
    // Refresh and destroy know what the program holds secret only from the list the outputs keep:
    // a list that changed (a config key set with --secret since) is written there by an update.
    if (this.face === "dynamic" && markedSecretChanged(olds, news)) updates.push("__secretInputs");
    // The new connection input, absent included (settings then come from config and the
    // environment); the old one only while the new one, or any setting in it, is not known yet (the
    // engine's marker must never be sent as a token or used as a URL). A replacement needs no
    // connection to be answered: one that cannot be resolved then only teaches nothing.
    const connectionInput = fullyKnown(news.connection) ? news.connection : olds.connection;
    let connection: PerConnection | undefined;
    try {
      connection = this.#connection(connectionInput);
    } catch (error) {
      if (replaces.length === 0) throw error;
    }
    // Facts before claims: what the state records of the stack's own endpoint, on the connection it
    // was made with, is learnt as the engine sends it, and a principalId it contradicts is refused
    // here: before this diff, or any create of the run, sends anything (preview fails the same way).
    if (connection !== undefined && !connectionChanged) {
      learnFact(connection, id, olds, stack, this.#holder(olds, connection, taint));
      refuseContradiction(connection, "nothing was sent to the service", taint);
    }
    const drift =
      replaces.length === 0
        ? await this.#drift(id, olds, taint, connection!, connectionChanged, takesUpRecord)
        : undefined;
    if (drift !== undefined) {
      // Ids are per service: another service's endpoint is replaced there, never taken.
      const at = updates.indexOf("connection");
      if (drift.stranger === true && at >= 0) updates.splice(at, 1);
      replaces.push(drift.replace);
    }
    return {
      changes: replaces.length > 0 || updates.length > 0,
      replaces,
      updates,
      // Printed by the face: without a secret another resource showed this process either.
      ...(drift === undefined ? {} : { drift: this.withoutRemembered(drift.why) }),
    };
  }

  /**
   * Drift: an endpoint removed or changed on the service must be recreated, and preview should say
   * so without --refresh. The filter may be partial or ignored, so match on the id. Undefined when
   * the service still holds the endpoint as it was created.
   */
  async #drift(
    id: string,
    olds: WebhookEndpointOutputs,
    taint: Taint,
    connection: PerConnection,
    connectionChanged: boolean,
    takesUpRecord = false,
  ): Promise<{ replace: string; why: string; stranger?: true } | undefined> {
    const seen = takeJustRead(connection, id);
    const lookup = seen
      ? seen.lookup
      : await connection.lookups.find(
          idNumber(id),
          { webhookName: olds.webhookName, redact: taint.values },
          false,
        );
    if (lookup.kind === "absent")
      return { replace: "webhookId", why: `endpoint ${id} no longer exists on the service under its name` };
    if (lookup.kind === "unknown") {
      // No listing proved it gone: nothing is replaced on a guess, and the user is told.
      this.#warn(
        `could not tell whether webhook endpoint ${id} still exists under its name, so no change is assumed: ${scrubbed(lookup.reason, [...connection.secrets, ...taint.values])}`,
      );
      return undefined;
    }
    const current = lookup.record;
    const stranger = anotherEndpoint(id, olds, current);
    if (stranger !== undefined) {
      // The connection now reaches another service, where this id is another endpoint (often
      // another team's): what the state records of the stack's endpoint says nothing of this one.
      connection.facts.delete(Number(id));
      return { replace: connectionChanged ? "connection" : "webhookId", why: stranger, stranger: true };
    }
    if (stillAsCreated(current, olds)) return undefined;
    // Declared as the state's record holds it, and the service still holds it so.
    if (takesUpRecord && sameEndpoint(current, olds)) return undefined;
    const created = createdAddress(olds);
    // The endpoint's own signing secret too: a name or URL changed to hold it is never printed.
    const secrets = [...connection.secrets, ...taint.values, current.signSecret];
    return {
      replace:
        created !== undefined && !sameName(current.webhookName, created.webhookName)
          ? "webhookName"
          : "webhookUrl",
      why: `endpoint ${id} was changed on the service to name ${shown(current.webhookName, "webhookName", taint, secrets)}, URL ${shown(current.webhookUrl, "webhookUrl", taint, secrets)}`,
    };
  }

  /**
   * `text` with every secret value this process was shown by earlier calls (every resource's secret
   * inputs and signing secret, {@link SeenSecrets}) that it holds, as a reader reads it, and each of
   * `also` (the call's own secrets), redacted: for what a face prints or stores from a service's text
   * outside the core's own messages.
   */
  withoutRemembered(text: string, also: readonly string[] = []): string {
    return scrubbed(text, [...also, ...this.#seen.in(text)]);
  }

  /** How a fact names the endpoint's holder: by the endpoint's recorded name, unless the program holds it secret. */
  #holder(olds: Partial<WebhookEndpointOutputs>, connection: PerConnection, taint: Taint): () => string {
    const name = olds.webhookName;
    if (typeof name !== "string" || taint.names.includes("webhookName")) return () => "";
    // Quoted only if a refusal names it: every diff learns a fact, few are ever shown.
    const { secrets } = connection;
    const { values } = taint;
    return () => `named ${quoteServiceText(name, [...secrets, ...values], 100)}`;
  }

  /**
   * A create whose answer the client refused as another principal's (`answeredBy`), judged here. A
   * fact learnt while the create was in flight may make that creator the stack's: the endpoint is
   * then read back by its id and judged as the answer (recorded, and the run fails on the claim).
   */
  async #answerRefused(
    connection: PerConnection,
    inputs: WebhookEndpointInputs,
    error: unknown,
    resource: string | undefined,
    taint: Taint,
  ): Promise<WebhookEndpointRecord> {
    if (!(error instanceof WebhookEndpointExistsError) || error.answeredBy === undefined) throw error;
    const webhookId = error.existingIds[0] ?? 0;
    if (judging(connection).principals.has(error.answeredBy)) {
      const params = { webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl, redact: taint.values };
      const lookup = await connection.lookups.find(webhookId, params, true);
      if (lookup.kind === "found") return lookup.record;
    }
    this.#judgeAnswer(connection, { webhookId, creatorId: error.answeredBy }, undefined, resource, taint);
    throw error;
  }

  /**
   * Whether a create's answer is the stack's: created by its principal (the claim, else the creators
   * the facts record). A service that keeps names unique may answer a create with the endpoint that
   * has the name: when another principal made the same name and URL while the create was in flight,
   * that endpoint is theirs, new since the attempt began, and only its creator tells; it is refused
   * and nothing is recorded. A fact learnt while the create was in flight that contradicts the claim
   * discredits it: the facts judge, and an answer by a creator they record is the stack's,
   * recorded, while the run fails on the claim, whether or not they disagree among themselves.
   */
  #judgeAnswer(
    connection: PerConnection,
    record: Pick<WebhookEndpointRecord, "webhookId" | "creatorId">,
    /** What would be recorded; undefined for an answer the client refused as another principal's. */
    state: WebhookEndpointOutputs | undefined,
    resource: string | undefined,
    taint: Taint,
  ): void {
    const { facts, conflict, claim, principals } = judging(connection);
    const id = String(record.webhookId);
    const secret = claimIsSecret(connection, taint);
    if (state !== undefined && conflict !== undefined && principals.has(record.creatorId))
      throw new EndpointCreatedButFailedError(
        `endpoint ${id} was created and is recorded in state, but while it was in flight ${lowerFirst(contradictionMessage(conflict, "this run stops", secret))}`,
        id,
        state as unknown as Record<string, unknown>,
      );
    this.#refuseOthersAnswer(record, { claim, facts, principals, secret, resource });
  }

  /**
   * Refuses an answer another principal created (see `#judgeAnswer`), saying what to do. The client,
   * given the principals, refuses it first (`answeredBy`): its refusal is judged here too.
   */
  #refuseOthersAnswer(
    record: Pick<WebhookEndpointRecord, "webhookId" | "creatorId">,
    judged: {
      claim: PrincipalClaim | undefined;
      facts: readonly unknown[];
      principals: ReadonlySet<number>;
      secret: boolean;
      resource: string | undefined;
    },
  ): void {
    const { claim, facts, principals, secret, resource } = judged;
    const id = String(record.webhookId);
    if (principals.size === 0 || principals.has(record.creatorId)) return;
    const answered = `the service answered this create with endpoint ${id}, created by creator ${record.creatorId}`;
    const race =
      "another principal may have created the same name and URL while this create was in flight (a service that keeps names unique answers with the endpoint it has), so it is not taken and nothing is recorded";
    if (claim !== undefined && facts.length === 0) {
      // Held secret, the claim is not shown, nor the creator that may be the token's real principal.
      const fix = secret
        ? secretSetting(claim.howToSet).replace("<value>", "<creatorId>")
        : claim.howToSet.replace("<value>", String(record.creatorId));
      throw new ProviderError(
        `${secret ? `the service answered this create with endpoint ${id}, created by another creator than principalId` : answered}, but ${claim.source} is ${secret ? "[secret]" : claim.id}, and the state records no endpoint this stack created on this service to check it against: either principalId is wrong, or ${race}. If principalId is wrong, endpoint ${id} is this stack's: correct it (\`${fix}\`${secret ? ", its creatorId as `webhooks list --name <name>` shows it" : ""}) and take the endpoint over: ${this.#takeOver(record.webhookId, resource)}; otherwise change webhookName or webhookUrl`,
      );
    }
    const whose =
      claim !== undefined
        ? `${claim.source} is ${claim.id}, as the endpoints this stack created on this service record`
        : `the endpoints this stack created on this service were created by ${[...principals].sort((a, b) => a - b).join(", ")}`;
    throw new ProviderError(
      `${answered}, but ${whose}: ${race}. If endpoint ${id} is this stack's (its access token now belongs to another principal), ${lowerFirst(this.#adoptAdvice([record.webhookId]))}; otherwise change webhookName or webhookUrl`,
    );
  }

  /** The one step that takes endpoint `id` over into the resource being created. */
  #takeOver(id: number, resource: string | undefined): string {
    if (this.face === "dynamic")
      return `set \`adoptWebhookId: ${id}\` on the resource (\`webhooks adopt --id ${id}\` prints the declaration)`;
    const name =
      resource === undefined ? "<resource name>" : shellQuote(resource.slice(resource.lastIndexOf("::") + 2));
    return `\`pulumi import webhooks:index:WebhookEndpoint ${name} ${id}\``;
  }

  /**
   * Only changes that need no API call reach update (connection, adoptWebhookId bookkeeping, a new provider
   * version).
   */
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
    // The id is a webhook_id in any state this provider wrote; anything else (a hand-edited state) is quoted
    // and redacted.
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
    ourCreatorIds: readonly number[],
  ): Promise<WebhookEndpointRecord> {
    const params = { webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl };
    try {
      const options = {
        ...(taint.values.length === 0 ? {} : { redact: taint.values }),
        ...(ourCreatorIds.length === 0 ? {} : { ourCreatorIds }),
      };
      return (await client.create(params, options)).record;
    } catch (error) {
      // The client's own words quote the name, the URL and the forms the service stored them in; for
      // a secret name or URL they are said without them.
      const secret = taint.names.includes("webhookName") || taint.names.includes("webhookUrl");
      // An answer refused as another principal's is judged by the caller, which knows why.
      if (error instanceof WebhookEndpointExistsError && error.answeredBy === undefined) {
        const said = secret
          ? `an endpoint with this name and URL already exists (id ${error.existingIds.join(", ")}); nothing was created, since a second one could never be deleted`
          : error.message;
        // The engine tells a provider nothing of a replacement it forces (`--target-replace`,
        // `--replace`, a tainted resource: Check without the old inputs, no Diff, then Create), so
        // whether the state holds the endpoint found cannot be known here: both cases are said.
        const which = error.existingIds.length === 1 ? `endpoint ${error.existingIds[0]}` : "one of them";
        throw new ProviderError(
          `${said}. If this stack's state holds ${which}, this create is a replacement that keeps its name and URL (\`pulumi up --target-replace\` or \`--replace\`, or a tainted resource): that cannot be done on this API, since a replacement is created before the old endpoint is deleted and would be a second endpoint with the same name and URL, which this check refuses, and the old one can never be deleted; change webhookName or webhookUrl to replace it, or, to read it afresh from the service, run \`pulumi refresh\` instead. Otherwise: ${lowerFirst(this.#adoptAdvice(error.existingIds))}; or, to have a separate endpoint, change webhookName or webhookUrl`,
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
    const lookup = await lookups.find(
      adoptId,
      { webhookName: inputs.webhookName, webhookUrl: inputs.webhookUrl, redact: taint.values },
      true,
    );
    if (lookup.kind === "absent") {
      throw new ProviderError(
        `adoptWebhookId ${adoptId}: no endpoint with that webhook_id exists on the service; check the id, or remove adoptWebhookId to create a new endpoint`,
      );
    }
    if (lookup.kind === "unknown") {
      throw new ProviderError(
        `adoptWebhookId ${adoptId}: not found by its name, its URL or a listing of the service, and that listing cannot prove it does not exist: ${scrubbed(lookup.reason, [...secrets, ...taint.values])}. Check the id and that webhookName and webhookUrl are exactly the endpoint's (\`webhooks list --name <name>\` shows it): the listing by name finds it even where the service's full listing cannot`,
      );
    }
    const record = lookup.record;
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
  #scrubbing(taint: Taint, error: unknown, signSecret?: unknown): readonly string[] {
    const services = new Set([...this.#connections.values()].map((state) => serviceOf(state.client.baseUrl)));
    const baseUrls = taint.values.filter((value) => services.has(serviceOf(value)));
    const message = error instanceof Error ? error.message : String(error);
    return [
      ...taint.values,
      ...baseUrls.flatMap((value) => secretForms(value)),
      ...(typeof signSecret === "string" && signSecret !== "" ? [signSecret] : []),
      ...this.#seen.in(message),
    ];
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
      facts: new Map(),
      ...(connection.principal === undefined ? {} : { principal: connection.principal }),
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
 * Refuses to import or refresh an endpoint whose name or URL holds the access token this provider
 * connects with, or the endpoint's own signing secret (a service that echoes one there, a person who
 * renamed it so on the service's console): `pulumi import` would print it in the code it generates,
 * and the state would hold it as a plain output and input. Decided by the text policy `webhooks
 * adopt` uses (src/text/policy.ts). A refresh refused so keeps what the state held.
 */
function refuseShowingSecrets(
  id: string,
  record: WebhookEndpointRecord,
  secrets: readonly string[],
  importing: boolean,
  own: Record<"webhookName" | "webhookUrl", readonly string[]> = { webhookName: [], webhookUrl: [] },
): void {
  const what =
    "the access token this provider connects with, the endpoint's own signing secret, or a value this stack holds secret";
  const why =
    pasteRefusal(
      [{ label: "name", text: record.webhookName }],
      { inText: [...secrets, ...own.webhookName, record.signSecret] },
      what,
    ) ??
    pasteRefusal(
      [{ label: "URL", text: record.webhookUrl }],
      { inText: [...secrets, ...own.webhookUrl, record.signSecret] },
      what,
    );
  if (why === undefined) return;
  throw new ProviderError(
    importing
      ? `endpoint ${id} cannot be imported: ${why}`
      : `endpoint ${id} cannot be refreshed: ${why}. The state keeps what it held`,
  );
}

/**
 * The resource's own secret values (its secret inputs, the secret settings of its call) that a field
 * the service changed must not hold: the field's own value is secret in state as its input is, every
 * other one would be stored in plain text there (a name changed on the service to hold the secret URL
 * or base URL). A field the service did not change holds what the state already did.
 */
function ownSecretsElsewhere(
  field: "webhookName" | "webhookUrl",
  record: WebhookEndpointRecord,
  old: Partial<WebhookEndpointOutputs> | undefined,
  taint: Taint,
): string[] {
  // A field the program holds secret is secret in state whatever it holds.
  if (old === undefined || record[field] === old[field] || taint.names.includes(field)) return [];
  // What the field held before the service changed it, in every form the state records, the state
  // holds already: a secret in it came from the program's own declaration, not from the change.
  const before = [old[field], old.declared?.[field], old.createdAs?.[field]]
    .filter((form): form is string => typeof form === "string")
    .map((form) => form.toLowerCase());
  return taint.values.filter(
    (value) =>
      // A secret setting's number (a principal's id, a retry count) may be any number a name or URL
      // holds, as the field's own digits.
      !/^\s*\d+\s*$/.test(value) && !before.some((form) => form.includes(value.toLowerCase())),
  );
}

/**
 * What the declaration changed: a name or URL not equivalent to what was declared (or not known
 * yet) is a replacement (there is no update call), as is another adoptWebhookId than the
 * endpoint's own; adding or removing the endpoint's own is bookkeeping. So is a name or URL that
 * now declares what a refresh saw the service change them to (`takesUpRecord`): an update that makes
 * them the endpoint's address (state.ts, stateAfterUpdate), not a new endpoint.
 */
function declaredChanges(
  id: string,
  olds: WebhookEndpointOutputs,
  news: Partial<WebhookEndpointInputs>,
): { replaces: string[]; updates: string[]; takesUpRecord: boolean } {
  const replaces: string[] = [];
  const updates: string[] = [];
  const declared = declaredAddress(olds);
  const changed: string[] = [];
  if (
    !isKnown(news.webhookName) ||
    declared === undefined ||
    !sameName(String(news.webhookName), declared.webhookName)
  )
    changed.push("webhookName");
  if (
    !isKnown(news.webhookUrl) ||
    declared === undefined ||
    !sameUrl(String(news.webhookUrl), declared.webhookUrl)
  )
    changed.push("webhookUrl");
  // Only a changed name or URL can take up what a refresh recorded (declaresRecord is false when both
  // are as declared): asked only then, as most diffs change neither.
  const takesUpRecord = changed.length > 0 && declaresRecord(olds, news);
  (takesUpRecord ? updates : replaces).push(...changed);
  const adoptId = news.adoptWebhookId;
  if (adoptId !== undefined && (!isKnown(adoptId) || adoptId !== Number(id))) replaces.push("adoptWebhookId");
  else if (adoptId !== olds.adoptWebhookId) updates.push("adoptWebhookId");
  return { replaces, updates, takesUpRecord };
}

/** The config keys of the settings secret wherever they are set (`webhooks:accessToken`). */
const ALWAYS_SECRET_CONFIG: ReadonlySet<string> = new Set(ALWAYS_SECRET_SETTINGS.map(configKey));

/**
 * Whether the program marks other inputs or config keys secret than the outputs record (dynamic face,
 * `__secretInputs`; absent is none). The settings secret wherever they are set are not compared: the
 * provider keeps them out of its messages either way, and earlier releases listed them. A list not
 * known yet changes nothing, nor does one against the state of a release that recorded none.
 */
function markedSecretChanged(olds: WebhookEndpointOutputs, news: Partial<WebhookEndpointInputs>): boolean {
  if (news.__secretInputs !== undefined && !Array.isArray(news.__secretInputs)) return false;
  // 0.2.0 recorded neither a provenance nor the list: what it held secret is not known, and a stack it
  // wrote previews with no changes.
  if (olds.provenance === undefined) return false;
  const marked = (list: unknown): Set<unknown> =>
    new Set((Array.isArray(list) ? list : []).filter((name) => !ALWAYS_SECRET_CONFIG.has(name as string)));
  const before = marked(olds.__secretInputs);
  const after = marked(news.__secretInputs);
  return before.size !== after.size || [...after].some((name) => !before.has(name));
}

/** Whether a value and, for an object, each of its fields is known (not the engine's unknown marker). */
function fullyKnown(value: unknown): boolean {
  if (!isKnown(value)) return false;
  return typeof value !== "object" || value === null || Object.values(value).every((field) => isKnown(field));
}

function takeJustRead(connection: PerConnection, id: string): { lookup: Lookup } | undefined {
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
 * Learns what the state records of an endpoint the stack holds, as a fact about its principal on a
 * connection: only one its provenance says was created on this very service, in this very stack
 * ({@link enteredStack}: its `stackRoot` follows a `pulumi stack rename`, while one `pulumi state
 * move` brought in from another stack still names that one). Adopted, imported and picked
 * endpoints, and those of earlier releases, which record no provenance, may be anyone's; with the
 * stack unknown (a refresh of the dynamic face before any other call), nothing is learnt.
 */
function learnFact(
  connection: PerConnection,
  id: string,
  olds: Partial<WebhookEndpointOutputs>,
  stack: string,
  holder: CreatorFact["holder"],
): void {
  const provenance = provenanceOf(olds);
  if (provenance?.how !== "created" || provenance.service !== serviceOf(connection.client.baseUrl)) return;
  if (stack === "unknown" || enteredStack(olds) !== stack) return;
  const webhookId = Number(id);
  if (
    typeof olds.creatorId === "number" &&
    Number.isSafeInteger(olds.creatorId) &&
    Number.isSafeInteger(webhookId)
  )
    connection.facts.set(webhookId, { webhookId, creatorId: olds.creatorId, holder });
}

/**
 * Who judges a create's answer: the claim, unless a fact contradicts it, and the creators the facts
 * record (see `#judgeAnswer`).
 */
function judging(connection: PerConnection) {
  const facts = [...connection.facts.values()];
  const conflict = contradiction(connection.principal, facts);
  const claim = conflict === undefined ? connection.principal : undefined;
  return { facts, conflict, claim, principals: principalsOf(claim, facts) };
}

/**
 * The stack's principal on the connection as the client may rely on it to settle a lost answer: the
 * principalId (checked against the facts before the create), else the creators the facts record.
 */
function ourPrincipals(connection: PerConnection): number[] {
  return [...principalsOf(connection.principal, connection.facts.values())];
}

/** Refuses, before anything is sent, a principalId that a fact learnt on the connection contradicts (principal.ts). */
function refuseContradiction(connection: PerConnection, done: string, taint: Taint): void {
  const conflict = contradiction(connection.principal, connection.facts.values());
  if (conflict !== undefined)
    throw new ProviderError(contradictionMessage(conflict, done, claimIsSecret(connection, taint)));
}

/**
 * Whether the program holds the principalId secret (set with `--secret`): then so are the creators
 * the state records (PRINCIPAL_OUTPUTS), and a message names neither.
 */
function claimIsSecret(connection: PerConnection, taint: Taint): boolean {
  return connection.principal !== undefined && taint.values.includes(String(connection.principal.id));
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
