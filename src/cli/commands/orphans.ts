import type { Command } from "../command";
import { resolveStacksConnection } from "../stack/config";
import { readFileSync } from "node:fs";
import { sameName, type ListingEnd, type WebhookEndpointRecord } from "../../client";
import { EMPTY_CONFIG, serviceOf } from "../../core/settings";
import { createdByItsStack, mayBeHeldEndpoint, type Provenance } from "../../core/state";
import {
  SecretFieldIndex,
  endpointResources,
  heldId,
  namesOf,
  parseState,
  provenanceIn,
  stackCreators,
  type StateResource,
  type UntypedDeployment,
} from "../stack/deployment";
import { usageError } from "../exit";
import {
  keepFirst,
  listEndpoints,
  mayBeIncomplete,
  sortedById,
  type Listed,
  type ListingClient,
} from "./listing";
import { historyCheckpoints } from "../stack/history";
import { shownValue, type ShownSecrets } from "../../text";
import {
  MAX_CELL,
  Progress,
  cell,
  jsonText,
  principal,
  recordView,
  table,
  textCell,
  timeCell,
  type Sink,
} from "../output/output";
import { backendUrl, pulumiOk, type PulumiRunner } from "../stack/pulumi";
import { heldService, serviceTarget, type HomeSettings } from "../stack/services";

/**
 * `webhooks orphans`: the endpoints on the service that none of the given stacks holds, and which of
 * them the operator may take to the service's console to remove (the API cannot delete). Only facts
 * recorded in state decide that: an endpoint is ours to remove only when a resource of those stacks
 * held this very id on this service and its provenance says the stack created it (a replacement
 * or a destroy left it behind). Everything else is listed apart, "not ours to remove":
 * - `formerly-held`: a resource held this id, but adopted, imported or picked it (someone else's
 *   endpoint the stack managed for a while), or records no provenance (an earlier release);
 * - `name-match`: its name is the name of a resource of those stacks: a hint, not a fact (another
 *   team may use the same name);
 * - `unrelated`: neither.
 * History is read from a `file://` backend's checkpoints (secrets there stay encrypted: a secret
 * provenance there is unknown); the current state of each `--stack` with `--show-secrets`, in
 * memory, never shown.
 */
export interface OrphansOptions {
  stacks: string[];
  stateFiles: string[];
  /** What nothing printed may show (the token, the stack's secret values): see src/text/policy.ts. */
  secrets?: ShownSecrets;
  json: boolean;
  progress: boolean;
}

export interface OrphansDeps {
  /**
   * The service's clients: one per connection the stacks configure for it (a token each); their
   * listings are merged by id, so which stack's token lists decides nothing.
   */
  client: ListingClient | readonly ListingClient[];
  /**
   * The service listed (its base URL's {@link serviceOf}) and the settings a state file's resources
   * are judged with; default: the client's own `baseUrl`, no configuration.
   */
  home?: HomeSettings;
  /**
   * Each `--stack`'s own settings (its config: `principalId`, a default provider's), by stack name;
   * default: `home`'s.
   */
  stackSettings?: ReadonlyMap<string, HomeSettings>;
  pulumi: PulumiRunner;
  sink: Sink;
  cwd: string;
}

export const ORPHANS_USAGE = `Usage: webhooks orphans (--stack S ... | --state-file F ...) [--json]

Lists the endpoints on the service that none of the given stacks holds there, with their creator:
  left-behind    ours to remove: a resource of those stacks created this very endpoint on this
                 service (its recorded provenance says so), its creator is the one creator of
                 everything that stack created there, and the stack no longer holds it (a
                 replacement or a destroy): remove it on the service if nothing uses it
and apart, not ours to remove:
  formerly-held  a resource held this id, but adopted, imported or picked it (someone else's),
                 records no provenance (written by an earlier release: unknown), or recorded it
                 as created while the stack's endpoints there name more than one creator
                 ("disputed": a service may have answered a create with another's endpoint)
  name-match     its name is the name (or webhookName) of a resource of those stacks: a hint only
  unrelated      neither
  --stack S         a stack of the current backend (exported with \`pulumi stack export --stack S\`,
                    secrets read in memory and never shown; on a file:// backend its history
                    checkpoints are read too); repeat for several. Each stack's own config is
                    read (its principalId judges its endpoints; its secrets are shown by no
                    line), so the order of the flags changes nothing; the stacks must name one
                    service (else pass --base-url), listed with each token they configure
  --state-file F    a file written by \`pulumi stack export\` (or a backend checkpoint); repeat
  --json            {"sources": [...], "held": n, "complete": true|false, "orphans": [record +
                    relation + ours + provenance + resources]}; "complete": false (with
                    "incompleteReason") when the service's listing may hold more than it showed
Endpoints the stacks hold on other services (explicit providers, connection inputs) are not
compared with this service's.`;

type Relation = "left-behind" | "formerly-held" | "name-match" | "unrelated";

export interface Orphan {
  record: WebhookEndpointRecord;
  relation: Relation;
  /** Whether the operator may remove it: the stacks created it, and no longer hold it. */
  ours: boolean;
  /** How the resource that held it got it, when one did and its state records it. */
  provenance?: Provenance["how"] | "unknown";
  /**
   * Created by the stack that held it, by its provenance, but its creator is not the one creator of
   * everything that stack created on this service.
   */
  disputed?: true;
  /** Its fields a state of those stacks holds secret: shown as `[secret]`, never as the service has them. */
  secretFields: ("webhookName" | "webhookUrl")[];
  resources: { source: string; urn: string; name: string }[];
}

interface Source {
  label: string;
  current: UntypedDeployment;
  history: UntypedDeployment[];
  /** What its resources are judged with: its stack's own settings (a state file: the command's). */
  settings: HomeSettings;
}

/** What a resource of the states held or holds under an id on the service listed. */
interface Holding {
  source: string;
  urn: string;
  name: string;
  provenance: Provenance | undefined;
  facts: Record<string, unknown> | undefined;
  /** The principal its own configuration names (`principalId`), when it names one. */
  principalId: number | undefined;
}

/** What the states say, gathered once, to judge each listed endpoint by. */
interface StatesIndex {
  /** The endpoints held now: by id, with the facts recorded of each and whether it is on this service. */
  holders: { id: number; facts: Record<string, unknown> | undefined; here: boolean | undefined }[];
  /** What the states hold or held on this service, by id. */
  formerly: Map<number, Holding[]>;
  /** Every name a resource of the states goes by. */
  named: { name: string; source: string; urn: string }[];
  /** Names and URLs a state marks secret, now or in history. */
  secretFields: SecretFieldIndex;
  /**
   * Each source's principal on this service when its configuration names none: the creators of what it
   * created here.
   */
  creatorsBySource: Map<string, Set<number>>;
}

export async function runOrphans(deps: OrphansDeps, options: OrphansOptions): Promise<Orphan[]> {
  if (options.stacks.length === 0 && options.stateFiles.length === 0)
    throw usageError("orphans needs at least one --stack or --state-file");
  const home: HomeSettings = deps.home ?? {
    service: serviceOf((firstClient(deps.client) as { baseUrl?: string }).baseUrl ?? ""),
    config: EMPTY_CONFIG,
    env: {},
    secretConfigKeys: [],
  };
  const sources = await readSources(deps, options, home);
  const index = indexStates(sources, home.service);
  const { records, end } = await listService(deps, options);
  // What a listing that cannot prove itself complete did not show is unknown: said, never taken as absent.
  if (!end.complete)
    deps.sink.stderr(
      `warning: ${mayBeIncomplete(end)}: endpoints past the ${records.length} listed are neither counted nor shown\n`,
    );
  const isHeld = (record: WebhookEndpointRecord) =>
    index.holders.some(
      (h) =>
        h.id === record.webhookId &&
        (recordsFacts(h.facts) ? mayBeHeldEndpoint(h.facts, record) : h.here !== false),
    );
  // Held: the service's endpoints the stacks hold now (seen on it).
  const held = records.filter(isHeld).length;
  const orphans = records
    .filter((record) => !isHeld(record))
    .map((record) => judge(record, index, home.service));
  const secrets = options.secrets ?? { inText: [] };
  if (options.json) deps.sink.stdout(orphansJson(sources, held, end, orphans, secrets));
  else printOrphans(deps.sink, sources, held, records.length, orphans, secrets);
  return orphans;
}

function firstClient(client: OrphansDeps["client"]): ListingClient {
  return Array.isArray(client) ? (client as readonly ListingClient[])[0]! : (client as ListingClient);
}

/** Whether a state recorded the facts that tell an endpoint from another service's with the same id. */
function recordsFacts(facts: Record<string, unknown> | undefined): boolean {
  return typeof facts?.creatorId === "number" || typeof facts?.createTime === "number";
}

/**
 * The states to compare with: each state file, and each stack's current state (read with
 * `--show-secrets`, in memory, never shown: secret provenances and provider settings decide) with
 * its file backend's history; each judged with its own settings.
 */
async function readSources(
  deps: OrphansDeps,
  options: OrphansOptions,
  home: HomeSettings,
): Promise<Source[]> {
  const sources: Source[] = [];
  for (const file of options.stateFiles) {
    const shownFile = cell(file, MAX_CELL.url, options.secrets?.inText);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      // The path as a cell (it is the caller's text); Node's message would repeat it, its code does not.
      throw usageError(
        `--state-file ${shownFile}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`,
      );
    }
    const current = parseState(text, shownFile);
    sources.push({ label: `state file ${file}`, current, history: [], settings: home });
  }
  const backend = options.stacks.length > 0 ? await backendUrl(deps.pulumi) : undefined;
  for (const stack of [...new Set(options.stacks)]) {
    const revealedRun = await deps.pulumi
      .run(["stack", "export", "--stack", stack, "--show-secrets"])
      .catch(() => undefined);
    const text =
      revealedRun !== undefined && revealedRun.code === 0
        ? revealedRun.stdout
        : await pulumiOk(deps.pulumi, ["stack", "export", "--stack", stack], `exporting stack ${stack}`);
    const current = parseState(text, `the export of stack ${stack}`);
    sources.push({
      label: `stack ${stack}`,
      current,
      history: backend === undefined ? [] : historyCheckpoints(backend, stack, current, deps.cwd),
      settings: deps.stackSettings?.get(stack) ?? home,
    });
  }
  return sources;
}

/**
 * What the states hold now, held before and call their endpoints, on `service`. Ids are per
 * service: a resource whose state says its endpoint is on another service is not compared; one
 * whose service cannot be told may be on this one (never advised for removal for that alone).
 */
function indexStates(sources: readonly Source[], service: string): StatesIndex {
  const onThisService = (source: Source, resource: StateResource, deployment: UntypedDeployment) => {
    const its = heldService(resource, deployment.deployment, source.settings);
    return its === undefined ? undefined : its === service;
  };
  // The principal the resource's own configuration names (its provider's principalId, or its
  // stack's for a resource configured by it); undefined where none is named or the settings cannot be read.
  const principalOf = (source: Source, resource: StateResource, deployment: UntypedDeployment) => {
    try {
      const target = serviceTarget(resource, deployment.deployment, source.settings);
      return target.known ? target.principalId : undefined;
    } catch {
      return undefined;
    }
  };
  const index: StatesIndex = {
    holders: [],
    formerly: new Map(),
    named: [],
    secretFields: new SecretFieldIndex(),
    creatorsBySource: new Map(),
  };
  for (const source of sources) {
    for (const r of endpointResources(source.current.deployment)) {
      const id = heldId(r);
      if (id !== undefined)
        index.holders.push({ id, facts: r.outputs, here: onThisService(source, r, source.current) });
    }
    for (const deployment of [source.current, ...source.history]) {
      for (const resource of endpointResources(deployment.deployment)) {
        const id = heldId(resource);
        const names = namesOf(resource);
        index.secretFields.add(resource);
        if (id !== undefined && onThisService(source, resource, deployment) !== false) {
          const list = index.formerly.get(id) ?? [];
          if (!list.some((x) => x.urn === resource.urn && x.source === source.label))
            list.push({
              source: source.label,
              urn: resource.urn,
              name: names[0]!,
              provenance: provenanceIn(resource),
              facts: resource.outputs,
              principalId: principalOf(source, resource, deployment),
            });
          index.formerly.set(id, list);
        }
        for (const name of names)
          if (
            !index.named.some((n) => n.name === name && n.urn === resource.urn && n.source === source.label)
          )
            index.named.push({ name, source: source.label, urn: resource.urn });
      }
    }
    index.creatorsBySource.set(
      source.label,
      new Set([source.current, ...source.history].flatMap((d) => [...stackCreators(d.deployment, service)])),
    );
  }
  return index;
}

/**
 * Every endpoint on the service, listed with each client (one per token the stacks use), merged by
 * id; complete only when every listing proved itself complete.
 */
async function listService(deps: OrphansDeps, options: OrphansOptions): Promise<Listed> {
  const clients = Array.isArray(deps.client)
    ? (deps.client as readonly ListingClient[])
    : [deps.client as ListingClient];
  const byId = new Map<number, WebhookEndpointRecord>();
  let end: ListingEnd = { complete: true };
  for (const client of clients) {
    const listed = await listEndpoints(
      client,
      {},
      Progress.for(deps.sink, options.progress),
      options.secrets?.inText,
    );
    keepFirst(byId, listed.records);
    if (!listed.end.complete && end.complete) end = listed.end;
  }
  return { records: sortedById(byId), end };
}

/** The verdict on one endpoint no state holds now (see {@link ORPHANS_USAGE}). */
function judge(record: WebhookEndpointRecord, index: StatesIndex, service: string): Orphan {
  // What the states held under its id and may have been this endpoint (not another service's with the same id).
  const before = index.formerly.get(record.webhookId)?.filter((b) => mayBeHeldEndpoint(b.facts, record));
  const secretFields = [...(index.secretFields.fieldsOf(record) ?? [])];
  if (before === undefined || before.length === 0) {
    const byName = index.named
      .filter((n) => sameName(record.webhookName, n.name))
      .map((n) => ({ source: n.source, urn: n.urn, name: n.name }));
    return byName.length > 0
      ? { record, relation: "name-match", ours: false, resources: byName, secretFields }
      : { record, relation: "unrelated", ours: false, resources: [], secretFields };
  }
  const resources = before.map(({ source, urn, name }) => ({ source, urn, name }));
  // Ours only when every record of it says this stack created it, here (not moved in from another
  // stack with `pulumi state move`): one that says adopted or imported, or says nothing, makes it
  // someone else's or unknown.
  const createdHere = before.every(
    (b) => createdByItsStack(b.provenance, b.urn, b.facts?.stackRoot) && b.provenance?.service === service,
  );
  // And by the stack's principal there: the principal its configuration names, else the one creator
  // of every endpoint it created on this service. Creators that disagree mean one of them is not the
  // stack's (a service answered a create with another principal's endpoint before it was known).
  const byItsPrincipal = before.every((b) => {
    if (b.principalId !== undefined) return record.creatorId === b.principalId;
    const creators = index.creatorsBySource.get(b.source);
    return creators !== undefined && creators.size === 1 && creators.has(record.creatorId);
  });
  if (createdHere && byItsPrincipal)
    return { record, relation: "left-behind", ours: true, provenance: "created", resources, secretFields };
  if (createdHere)
    return {
      record,
      relation: "formerly-held",
      ours: false,
      provenance: "created",
      disputed: true,
      resources,
      secretFields,
    };
  const how = before.map((b) => b.provenance?.how ?? "unknown").find((h) => h !== "created") ?? "unknown";
  return { record, relation: "formerly-held", ours: false, provenance: how, resources, secretFields };
}

/**
 * `--json`: each value from the outside world (a record's fields, a resource's name and URN, a
 * source's label) through the text policy, a secret one as the marker; the verdicts are ours.
 */
function orphansJson(
  sources: readonly Source[],
  held: number,
  end: ListingEnd,
  orphans: readonly Orphan[],
  secrets: ShownSecrets,
): string {
  return jsonText({
    sources: sources.map((s) => ({
      label: shownValue(s.label, secrets),
      endpoints: endpointResources(s.current.deployment).length,
      historyCheckpoints: s.history.length,
    })),
    held,
    complete: end.complete,
    ...(end.complete ? {} : { incompleteReason: end.reason }),
    orphans: orphans.map((o) => ({
      ...recordView(o.record, false, secrets, o.secretFields),
      relation: o.relation,
      ours: o.ours,
      ...(o.provenance === undefined ? {} : { provenance: o.provenance }),
      ...(o.disputed === true ? { disputed: true } : {}),
      resources: o.resources.map((r) => ({
        source: shownValue(r.source, secrets),
        urn: shownValue(r.urn, secrets),
        name: shownValue(r.name, secrets),
      })),
    })),
  });
}

function printOrphans(
  sink: Sink,
  sources: readonly Source[],
  held: number,
  listed: number,
  orphans: readonly Orphan[],
  secrets: ShownSecrets,
): void {
  const label = (s: Source) => cell(s.label, MAX_CELL.url, secrets.inText);
  const parts: string[] = [
    `${listed} endpoint(s) on the service; ${held} held by ${sources.map((s) => `${label(s)}${s.history.length > 0 ? ` (+${s.history.length} history checkpoints)` : ""}`).join(", ")}; ${orphans.length} held by none of them.`,
  ];
  const ours = orphans.filter((o) => o.ours);
  const notOurs = orphans.filter((o) => !o.ours);
  const row = (o: Orphan) => [
    String(o.record.webhookId),
    textCell(o.record, "webhookName", MAX_CELL.name, secrets, o.secretFields),
    textCell(o.record, "webhookUrl", MAX_CELL.url, secrets, o.secretFields),
    principal(o.record.creatorName, o.record.creatorId, secrets),
    timeCell(o.record.createTime, secrets),
    o.relation === "formerly-held"
      ? `formerly-held (${o.disputed === true ? "created, but not by the stack's one creator here" : o.provenance === "unknown" ? "provenance unknown" : o.provenance})`
      : o.relation,
    o.resources
      .map(
        (r) =>
          `${cell(r.name, MAX_CELL.name, secrets.inText)} (${cell(r.source, MAX_CELL.url, secrets.inText)})`,
      )
      .join(", ") || "-",
  ];
  const headers = ["ID", "NAME", "URL", "CREATOR", "CREATED", "RELATION", "RESOURCE"];
  if (ours.length > 0) {
    parts.push(
      "",
      "Left behind by these stacks (they created each one and no longer hold it: a replacement or a destroy): remove them on the service if nothing uses them.",
    );
    parts.push(table(headers, ours.map(row)).trimEnd());
  }
  if (notOurs.length > 0) {
    parts.push(
      "",
      "Not ours to remove (listed apart): no state shows these stacks created them. Adopted, imported or picked endpoints were someone else's; a name match is only a hint; an endpoint held by a state of an earlier release records no provenance; one recorded as created by a creator other than the stack's one creator on this service may be another principal's.",
    );
    parts.push(table(headers, notOurs.map(row)).trimEnd());
  }
  sink.stdout(`${parts.join("\n")}\n`);
}

export const orphansCommand: Command = {
  name: "orphans",
  summary: "the endpoints none of the given stacks holds (to remove on the service)",
  usage: ORPHANS_USAGE,
  options: {
    stack: { type: "string", multiple: true },
    "state-file": { type: "string", multiple: true },
  },
  validate(flags) {
    // Before anything is read: nothing to compare with is a usage error, not a missing setting.
    if (flags.list("stack").length === 0 && flags.list("state-file").length === 0)
      throw usageError("orphans needs at least one --stack or --state-file");
  },
  // Each --stack resolved on its own (its config, its secrets, its principalId), so that the order
  // of the flags changes nothing, and the service listed with each token they use.
  async run(context) {
    const { io, flags } = context;
    const stacks = flags.list("stack");
    const resolved = await resolveStacksConnection(
      {
        flags: { baseUrl: flags.str("base-url"), accessToken: flags.str("access-token") },
        cwd: io.cwd,
        env: io.env,
        pulumi: context.pulumi,
        warn: (message) => io.sink.stderr(`webhooks: ${message}\n`),
      },
      stacks,
    );
    context.addConnectionSecrets(resolved.connectionSecrets);
    const clients = resolved.connections.map((c) => context.open(c.client));
    try {
      await runOrphans(
        {
          client: clients,
          home: resolved.home,
          stackSettings: resolved.stackSettings,
          pulumi: context.pulumi,
          sink: io.sink,
          cwd: io.cwd,
        },
        {
          stacks,
          stateFiles: flags.list("state-file"),
          json: flags.bool("json"),
          progress: flags.bool("progress"),
          secrets: {
            inText: resolved.secrets,
            whole: resolved.wholeSecrets,
            signing: resolved.signingSecrets,
          },
        },
      );
    } finally {
      await Promise.all(clients.map(async (client) => client.close?.()));
    }
  },
};
