import { readFileSync } from "node:fs";
import { sameName, type WebhookEndpointRecord } from "../../client";
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
import { listEndpoints, type ListingClient } from "./listing";
import { historyCheckpoints } from "../stack/history";
import {
  MAX_CELL,
  Progress,
  cell,
  hideSecretFields,
  isoTime,
  jsonText,
  principal,
  recordView,
  table,
  type Sink,
} from "../output/output";
import { backendUrl, pulumiOk, type PulumiRunner } from "../stack/pulumi";
import { heldService, serviceTarget, type HomeService } from "../stack/services";

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
  /** What nothing printed may show (the token, the stack's secret values): redacted before a cell is cut. */
  secrets?: readonly string[];
  json: boolean;
  progress: boolean;
}

export interface OrphansDeps {
  client: ListingClient;
  /** Where the client points (its service) and what it was resolved from; default: the client's own `baseUrl`. */
  home?: Omit<HomeService, "client">;
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
                    checkpoints are read too); repeat for several
  --state-file F    a file written by \`pulumi stack export\` (or a backend checkpoint); repeat
  --json            {"service", "sources": [...], "held": n, "orphans": [record + relation + ours +
                    provenance + resources]}
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
  /** Created by the stack that held it, by its provenance, but its creator is not the one creator of everything that stack created on this service. */
  disputed?: true;
  /** Its fields a state of those stacks holds secret: shown as `[secret]`, never as the service has them. */
  secretFields: ("webhookName" | "webhookUrl")[];
  resources: { source: string; urn: string; name: string }[];
}

interface Source {
  label: string;
  current: UntypedDeployment;
  history: UntypedDeployment[];
}

export async function runOrphans(deps: OrphansDeps, options: OrphansOptions): Promise<Orphan[]> {
  if (options.stacks.length === 0 && options.stateFiles.length === 0)
    throw usageError("orphans needs at least one --stack or --state-file");
  const sources: Source[] = [];
  for (const file of options.stateFiles) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw usageError(`--state-file ${file}: ${(error as Error).message}`);
    }
    sources.push({ label: `state file ${file}`, current: parseState(text, file), history: [] });
  }
  const backend = options.stacks.length > 0 ? await backendUrl(deps.pulumi) : undefined;
  for (const stack of options.stacks) {
    // Secret provenances and provider settings are read in memory; nothing of them is shown.
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
    });
  }
  const home: HomeService = {
    client: deps.client,
    ...(deps.home ?? {
      service: serviceOf((deps.client as { baseUrl?: string }).baseUrl ?? ""),
      config: EMPTY_CONFIG,
      env: {},
      secretConfigKeys: [],
    }),
  };
  // The service a resource's endpoint is on; undefined when the state cannot tell (then it may be this one).
  const onThisService = (resource: StateResource, deployment: UntypedDeployment): boolean | undefined => {
    const service = heldService(resource, deployment.deployment, home);
    return service === undefined ? undefined : service === home.service;
  };

  // What the stacks hold now, by id. Ids are per service: a listed endpoint is held when a resource
  // holds its id and may be it by its creator and creation time (SecretFieldIndex's rule); when the
  // state recorded neither, when the resource's service is this one or cannot be told (never
  // advised for removal). A base URL's spelling alone decides nothing (one service, several addresses).
  const holders: { id: number; facts: Record<string, unknown> | undefined; here: boolean | undefined }[] = [];
  for (const source of sources) {
    for (const r of endpointResources(source.current.deployment)) {
      const id = heldId(r);
      if (id !== undefined) holders.push({ id, facts: r.outputs, here: onThisService(r, source.current) });
    }
  }
  const recordsFacts = (facts: Record<string, unknown> | undefined) =>
    typeof facts?.creatorId === "number" || typeof facts?.createTime === "number";
  const isHeld = (record: WebhookEndpointRecord) =>
    holders.some(
      (h) =>
        h.id === record.webhookId &&
        (recordsFacts(h.facts) ? mayBeHeldEndpoint(h.facts, record) : h.here !== false),
    );
  // What the stacks hold or held on this service, by id (with the provenance each recorded), and by name.
  const formerly = new Map<
    number,
    {
      source: string;
      urn: string;
      name: string;
      provenance: Provenance | undefined;
      facts: Record<string, unknown> | undefined;
      principalId: number | undefined;
    }[]
  >();
  // The principal the resource's own configuration names (its provider's principalId, or the stack's
  // for a resource configured by it); undefined where none is named or the settings cannot be read.
  const principalOf = (resource: StateResource, deployment: UntypedDeployment): number | undefined => {
    try {
      const target = serviceTarget(resource, deployment.deployment, home);
      return target.known ? target.principalId : undefined;
    } catch {
      return undefined;
    }
  };
  // A name or URL a state marks secret (now or in history) stays secret in what orphans prints.
  const secretFields = new SecretFieldIndex();
  const named: { name: string; source: string; urn: string }[] = [];
  for (const source of sources) {
    for (const deployment of [source.current, ...source.history]) {
      for (const resource of endpointResources(deployment.deployment)) {
        const id = heldId(resource);
        const names = namesOf(resource);
        secretFields.add(resource);
        if (id !== undefined && onThisService(resource, deployment) !== false) {
          const list = formerly.get(id) ?? [];
          if (!list.some((x) => x.urn === resource.urn && x.source === source.label))
            list.push({
              source: source.label,
              urn: resource.urn,
              name: names[0]!,
              provenance: provenanceIn(resource),
              facts: resource.outputs,
              principalId: principalOf(resource, deployment),
            });
          formerly.set(id, list);
        }
        for (const name of names)
          if (!named.some((n) => n.name === name && n.urn === resource.urn && n.source === source.label))
            named.push({ name, source: source.label, urn: resource.urn });
      }
    }
  }

  // Each stack's principal on this service when its configuration names none: the creators of the
  // endpoints it created here, in any checkpoint.
  const creatorsBySource = new Map(
    sources.map((source) => [
      source.label,
      new Set(
        [source.current, ...source.history].flatMap((d) => [...stackCreators(d.deployment, home.service)]),
      ),
    ]),
  );
  const records = await listEndpoints(deps.client, {}, Progress.for(deps.sink, options.progress));
  // Held: the service's endpoints the stacks hold now (seen on it).
  const held = records.filter(isHeld).length;
  const orphans: Orphan[] = records
    .filter((record) => !isHeld(record))
    .map((record): Orphan => {
      // What the states held under its id and may have been this endpoint (not another service's with the same id).
      const before = formerly.get(record.webhookId)?.filter((b) => mayBeHeldEndpoint(b.facts, record));
      const secret = [...(secretFields.fieldsOf(record) ?? [])];
      if (before !== undefined && before.length > 0) {
        const resources = before.map(({ source, urn, name }) => ({ source, urn, name }));
        // Ours only when every record of it says this stack created it, here: one that says
        // adopted or imported, or says nothing, makes it someone else's or unknown.
        // Created here by the stack that held it (not moved in from another stack with `pulumi state move`).
        const createdHere = before.every(
          (b) =>
            createdByItsStack(b.provenance, b.urn, b.facts?.stackRoot) &&
            b.provenance?.service === home.service,
        );
        // And by the stack's principal there: the one creator of every endpoint the stack created
        // on this service. Creators that disagree mean one of them is not the stack's (a service
        // answered a create with another principal's endpoint before the principal was known).
        const byItsPrincipal = before.every((b) => {
          // A principal the resource's configuration names decides (principalId).
          if (b.principalId !== undefined) return record.creatorId === b.principalId;
          const creators = creatorsBySource.get(b.source);
          return creators !== undefined && creators.size === 1 && creators.has(record.creatorId);
        });
        if (createdHere && byItsPrincipal)
          return {
            record,
            relation: "left-behind",
            ours: true,
            provenance: "created",
            resources,
            secretFields: secret,
          };
        if (createdHere)
          return {
            record,
            relation: "formerly-held",
            ours: false,
            provenance: "created",
            disputed: true,
            resources,
            secretFields: secret,
          };
        const how =
          before.map((b) => b.provenance?.how ?? "unknown").find((h) => h !== "created") ?? "unknown";
        return {
          record,
          relation: "formerly-held",
          ours: false,
          provenance: how,
          resources,
          secretFields: secret,
        };
      }
      const byName = named
        .filter((n) => sameName(record.webhookName, n.name))
        .map((n) => ({ source: n.source, urn: n.urn, name: n.name }));
      return byName.length > 0
        ? { record, relation: "name-match", ours: false, resources: byName, secretFields: secret }
        : { record, relation: "unrelated", ours: false, resources: [], secretFields: secret };
    })
    .map((o) => ({ ...o, record: hideSecretFields(o.record, o.secretFields) }));

  if (options.json) {
    deps.sink.stdout(
      jsonText({
        sources: sources.map((s) => ({
          label: s.label,
          endpoints: endpointResources(s.current.deployment).length,
          historyCheckpoints: s.history.length,
        })),
        held,
        orphans: orphans.map((o) => ({
          ...recordView(o.record, false, options.secrets ?? []),
          relation: o.relation,
          ours: o.ours,
          ...(o.provenance === undefined ? {} : { provenance: o.provenance }),
          ...(o.disputed === true ? { disputed: true } : {}),
          resources: o.resources,
        })),
      }),
    );
  } else {
    printOrphans(deps.sink, sources, held, records.length, orphans, options.secrets ?? []);
  }
  return orphans;
}

function printOrphans(
  sink: Sink,
  sources: readonly Source[],
  held: number,
  listed: number,
  orphans: readonly Orphan[],
  secrets: readonly string[],
): void {
  const parts: string[] = [
    `${listed} endpoint(s) on the service; ${held} held by ${sources.map((s) => `${s.label}${s.history.length > 0 ? ` (+${s.history.length} history checkpoints)` : ""}`).join(", ")}; ${orphans.length} held by none of them.`,
  ];
  const ours = orphans.filter((o) => o.ours);
  const notOurs = orphans.filter((o) => !o.ours);
  const row = (o: Orphan) => [
    String(o.record.webhookId),
    cell(o.record.webhookName, MAX_CELL.name, secrets),
    cell(o.record.webhookUrl, MAX_CELL.url, secrets),
    principal(o.record.creatorName, o.record.creatorId),
    isoTime(o.record.createTime),
    o.relation === "formerly-held"
      ? `formerly-held (${o.disputed === true ? "created, but not by the stack's one creator here" : o.provenance === "unknown" ? "provenance unknown" : o.provenance})`
      : o.relation,
    o.resources
      .map((r) => `${cell(r.name, MAX_CELL.name, secrets)} (${cell(r.source, MAX_CELL.url, secrets)})`)
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
