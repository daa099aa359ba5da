import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { sameName } from "../client/rules";
import type { WebhookEndpointRecord } from "../client/types";
import { findProject } from "./config";
import { endpointResources, heldId, namesOf, parseState, urnStackProject, type UntypedDeployment } from "./deployment";
import { CliError, EXIT, usageError } from "./exit";
import { listEndpoints, type ListingClient } from "./listing";
import { localBackendPath } from "./lock";
import { MAX_CELL, Progress, cell, isoTime, jsonText, principal, recordView, table, type Sink } from "./output";
import { backendUrl, pulumiOk, type PulumiRunner } from "./pulumi";

/**
 * `webhooks orphans`: the endpoints on the service that none of the given stacks holds, the list an
 * operator takes to the service's console (the API cannot delete). Each is marked:
 * - `formerly-held`: a stack's history shows a resource that held this very id (left behind by a
 *   replacement or a destroy); history is read from a `file://` backend's checkpoints;
 * - `name-match`: its name is the name of a resource of those stacks (the resource's name, or the
 *   webhookName in its inputs or outputs, now or in history): most likely left behind too;
 * - `unrelated`: neither; someone else's, or a stack not given.
 */
export interface OrphansOptions {
  stacks: string[];
  stateFiles: string[];
  json: boolean;
  progress: boolean;
}

export interface OrphansDeps {
  client: ListingClient;
  pulumi: PulumiRunner;
  sink: Sink;
  cwd: string;
}

export const ORPHANS_USAGE = `Usage: webhooks orphans (--stack S ... | --state-file F ...) [--json]

Lists the endpoints on the service that none of the given stacks holds, marked:
  formerly-held  a resource of those stacks held this id (history: a replacement or a destroy)
  name-match     its name is the name (or webhookName) of a resource of those stacks
  unrelated      neither
  --stack S         a stack of the current backend (exported with \`pulumi stack export --stack S\`;
                    on a file:// backend its history checkpoints are read too); repeat for several
  --state-file F    a file written by \`pulumi stack export\` (or a backend checkpoint); repeat
  --json            {"sources": [...], "held": n, "orphans": [record + relation + resources]}
All stacks are assumed to use the one service this command connects to.`;

type Relation = "formerly-held" | "name-match" | "unrelated";

export interface Orphan {
  record: WebhookEndpointRecord;
  relation: Relation;
  resources: { source: string; urn: string; name: string }[];
}

interface Source {
  label: string;
  current: UntypedDeployment;
  history: UntypedDeployment[];
}

export async function runOrphans(deps: OrphansDeps, options: OrphansOptions): Promise<Orphan[]> {
  if (options.stacks.length === 0 && options.stateFiles.length === 0) throw usageError("orphans needs at least one --stack or --state-file");
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
    const current = parseState(await pulumiOk(deps.pulumi, ["stack", "export", "--stack", stack], `exporting stack ${stack}`), `the export of stack ${stack}`);
    sources.push({ label: `stack ${stack}`, current, history: backend === undefined ? [] : historyCheckpoints(backend, stack, current, deps.cwd) });
  }

  const held = new Set<number>();
  for (const source of sources) for (const r of endpointResources(source.current.deployment)) addId(held, heldId(r));
  // What the stacks hold or held, by id and by name.
  const formerly = new Map<number, { source: string; urn: string; name: string }[]>();
  const named: { name: string; source: string; urn: string }[] = [];
  for (const source of sources) {
    for (const deployment of [source.current, ...source.history]) {
      for (const resource of endpointResources(deployment.deployment)) {
        const id = heldId(resource);
        const names = namesOf(resource);
        if (id !== undefined && !held.has(id)) {
          const list = formerly.get(id) ?? [];
          if (!list.some((x) => x.urn === resource.urn && x.source === source.label)) list.push({ source: source.label, urn: resource.urn, name: names[0]! });
          formerly.set(id, list);
        }
        for (const name of names) if (!named.some((n) => n.name === name && n.urn === resource.urn && n.source === source.label)) named.push({ name, source: source.label, urn: resource.urn });
      }
    }
  }

  const records = await listEndpoints(deps.client, {}, Progress.for(deps.sink, options.progress));
  const orphans: Orphan[] = records
    .filter((record) => !held.has(record.webhookId))
    .map((record) => {
      const before = formerly.get(record.webhookId);
      if (before !== undefined) return { record, relation: "formerly-held" as const, resources: before };
      const byName = named.filter((n) => sameName(record.webhookName, n.name)).map((n) => ({ source: n.source, urn: n.urn, name: n.name }));
      return byName.length > 0 ? { record, relation: "name-match" as const, resources: byName } : { record, relation: "unrelated" as const, resources: [] };
    });

  if (options.json) {
    deps.sink.stdout(
      jsonText({
        sources: sources.map((s) => ({ label: s.label, endpoints: endpointResources(s.current.deployment).length, historyCheckpoints: s.history.length })),
        held: held.size,
        orphans: orphans.map((o) => ({ ...recordView(o.record, false), relation: o.relation, resources: o.resources })),
      }),
    );
  } else {
    printOrphans(deps.sink, sources, held.size, records.length, orphans);
  }
  return orphans;
}

function printOrphans(sink: Sink, sources: readonly Source[], held: number, listed: number, orphans: readonly Orphan[]): void {
  const parts: string[] = [
    `${listed} endpoint(s) on the service; ${held} held by ${sources.map((s) => `${s.label}${s.history.length > 0 ? ` (+${s.history.length} history checkpoints)` : ""}`).join(", ")}; ${orphans.length} held by none of them.`,
  ];
  const related = orphans.filter((o) => o.relation !== "unrelated");
  const unrelated = orphans.filter((o) => o.relation === "unrelated");
  if (related.length > 0) {
    parts.push("", "Left behind by these stacks (a replacement or a destroy): remove them on the service if nothing uses them.");
    parts.push(
      table(
        ["ID", "NAME", "URL", "CREATED", "RELATION", "RESOURCE"],
        related.map((o) => [
          String(o.record.webhookId),
          cell(o.record.webhookName, MAX_CELL.name),
          cell(o.record.webhookUrl, MAX_CELL.url),
          isoTime(o.record.createTime),
          o.relation,
          o.resources.map((r) => `${cell(r.name, MAX_CELL.name)} (${r.source})`).join(", "),
        ]),
      ).trimEnd(),
    );
  }
  if (unrelated.length > 0) {
    parts.push("", "Unrelated to these stacks (no resource of theirs has the name): someone else's, or a stack not given.");
    parts.push(
      table(
        ["ID", "NAME", "URL", "CREATOR", "CREATED"],
        unrelated.map((o) => [String(o.record.webhookId), cell(o.record.webhookName, MAX_CELL.name), cell(o.record.webhookUrl, MAX_CELL.url), principal(o.record.creatorName, o.record.creatorId), isoTime(o.record.createTime)]),
      ).trimEnd(),
    );
  }
  sink.stdout(`${parts.join("\n")}\n`);
}

/**
 * The checkpoints a `file://` backend keeps after every update
 * (`.pulumi/history/[<org>/]<project>/<stack>/<stack>-<time>.checkpoint.json[.gz]`, unless
 * PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS is set): what the stack held before.
 */
export function historyCheckpoints(backend: string, stack: string, current: UntypedDeployment, cwd: string): UntypedDeployment[] {
  const root = localBackendPath(backend);
  if (root === undefined) return [];
  const segments = stack.split("/");
  const stackName = segments.at(-1)!;
  const urn = (current.deployment.resources ?? []).map((r) => urnStackProject(r.urn)).find((x) => x !== undefined);
  const project = segments.length === 3 ? segments[1]! : (urn?.project ?? projectName(cwd));
  const history = join(root, ".pulumi", "history");
  const dirs = [join(history, stackName), ...(project ? [join(history, project, stackName), ...readdirSafe(history).map((org) => join(history, org, project, stackName))] : [])];
  const found: UntypedDeployment[] = [];
  for (const dir of [...new Set(dirs)]) {
    for (const name of readdirSafe(dir)) {
      if (!/\.checkpoint\.json(\.gz)?$/.test(name)) continue;
      try {
        const raw = readFileSync(join(dir, name));
        found.push(parseState((name.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8"), name));
      } catch (error) {
        if (!(error instanceof CliError)) throw new CliError(EXIT.config, `reading ${join(dir, name)}: ${(error as Error).message}`);
      }
    }
  }
  return found;
}

function projectName(cwd: string): string | undefined {
  const project = findProject(cwd);
  if (project === undefined) return undefined;
  return /^name:\s*["']?([^"'\s]+)/m.exec(readFileSync(project.file, "utf8"))?.[1];
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function addId(set: Set<number>, id: number | undefined): void {
  if (id !== undefined) set.add(id);
}
