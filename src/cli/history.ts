import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { findProject } from "./config";
import { parseState, urnStackProject, type UntypedDeployment } from "./deployment";
import { CliError, EXIT } from "./exit";
import { readdirSafe } from "./files";
import { localBackendPath } from "./lock";

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

