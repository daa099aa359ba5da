import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { findProject } from "./project";
import { parseState, type UntypedDeployment } from "./deployment";
import { CliError, EXIT } from "../exit";
import { readdirSafe } from "./files";
import { localBackendPath } from "./lock";
import { parseUrn } from "../../core/wire";

/**
 * The checkpoints a `file://` backend keeps after every update
 * (`.pulumi/history/[<org>/]<project>/<stack>/<stack>-<time>.checkpoint.json[.gz]`, unless
 * PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS is set): what the stack held before.
 */
export function historyCheckpoints(
  backend: string,
  stack: string,
  current: UntypedDeployment,
  cwd: string,
): UntypedDeployment[] {
  const root = localBackendPath(backend);
  if (root === undefined) return [];
  const segments = stack.split("/");
  const stackName = segments.at(-1)!;
  const urn = (current.deployment.resources ?? []).map((r) => parseUrn(r.urn)).find((x) => x !== undefined);
  const project = segments.length === 3 ? segments[1]! : (urn?.project ?? projectName(cwd));
  const history = join(root, ".pulumi", "history");
  const dirs = [
    join(history, stackName),
    ...(project
      ? [
          join(history, project, stackName),
          ...readdirSafe(history).map((org) => join(history, org, project, stackName)),
        ]
      : []),
  ];
  const found: UntypedDeployment[] = [];
  for (const dir of [...new Set(dirs)]) {
    for (const name of readdirSafe(dir)) {
      if (!/\.checkpoint\.json(\.gz)?$/.test(name)) continue;
      try {
        const raw = readFileSync(join(dir, name));
        found.push(parseState((name.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8"), name));
      } catch (error) {
        if (!(error instanceof CliError))
          throw new CliError(EXIT.config, `reading ${join(dir, name)}: ${(error as Error).message}`);
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

/**
 * Keeps the state `webhooks recover` wrote in a `file://` backend's history, as every update's result
 * is kept: `pulumi stack import` adds none, so an endpoint recover recorded and the next update
 * dropped would otherwise be in no state `webhooks orphans` reads, and the fact that this stack
 * created it would be lost. Written beside the backend's own checkpoints (the project's layout when
 * the stack's checkpoint is under `.pulumi/stacks/<project>/`, else the legacy one), as a
 * `.checkpoint.json` only: `pulumi stack history` reads the `.history.json` files and does not list
 * it. Returns the file written, or undefined (not a local backend, or the stack's file not found).
 */
export function recordInHistory(
  backend: string | undefined,
  project: string,
  stack: string,
  exported: UntypedDeployment,
  now: Date,
): string | undefined {
  const root = backend === undefined ? undefined : localBackendPath(backend);
  if (root === undefined) return undefined;
  const stackName = stack.split("/").at(-1)!;
  const stacks = join(root, ".pulumi", "stacks");
  const layout =
    existsSync(join(stacks, project, `${stackName}.json`)) ||
    existsSync(join(stacks, project, `${stackName}.json.gz`))
      ? "project"
      : existsSync(join(stacks, `${stackName}.json`))
        ? "legacy"
        : undefined;
  if (layout === undefined) return undefined;
  const dir =
    layout === "project"
      ? join(root, ".pulumi", "history", project, stackName)
      : join(root, ".pulumi", "history", stackName);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stackName}-${BigInt(now.getTime()) * 1_000_000n}.checkpoint.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: exported.version,
      checkpoint: { stack: stackName, latest: exported.deployment },
    }),
    { mode: 0o600 },
  );
  return file;
}
