import { existsSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { readdirSafe } from "./files";
import { localBackendPath } from "./lock";

/**
 * A `file://` backend writes a checkpoint as two files: `<stack>.json` (written to a temporary file,
 * then renamed) and its metadata `<stack>.json.attrs`. A CLI killed between the two leaves the
 * previous checkpoint intact but its metadata empty, and every pulumi command then fails with
 * "failed to load checkpoint: EOF" (seen in about one SIGKILL in three). The checkpoint itself is
 * the state before the killed run's last write, which is sound for recover: a create's pending
 * operation is written before the create is sent, so the lost write is either a create not yet
 * sent or the completion of one whose pending operation the checkpoint still holds.
 *
 * The repair removes the broken metadata file (the stack file is untouched), when the stack file
 * itself is a readable checkpoint.
 */
export interface BrokenCheckpoint {
  stack: string;
  stateFile: string;
  attrsFile: string;
}

/** Stacks of `project` whose checkpoint metadata is empty or unreadable while the checkpoint reads. */
export function brokenCheckpoints(
  backendUrl: string,
  project: string,
  stack: string | undefined,
): BrokenCheckpoint[] {
  const root = localBackendPath(backendUrl);
  if (root === undefined) return [];
  const stacks = join(root, ".pulumi", "stacks");
  const found: BrokenCheckpoint[] = [];
  for (const dir of [join(stacks, project), stacks]) {
    for (const name of readdirSafe(dir)) {
      if (!name.endsWith(".json.attrs")) continue;
      const stackName = name.slice(0, -".json.attrs".length);
      if (stack !== undefined && stackName !== stack.split("/").pop()) continue;
      const attrsFile = join(dir, name);
      const stateFile = join(dir, `${stackName}.json`);
      if (!existsSync(stateFile) || readable(attrsFile) || !checkpointReadable(stateFile)) continue;
      found.push({ stack: stackName, stateFile, attrsFile });
    }
  }
  return found;
}

/** Removes the broken metadata file so that the checkpoint loads again. */
export function repairCheckpoint(broken: BrokenCheckpoint): void {
  unlinkSync(broken.attrsFile);
}

function readable(attrsFile: string): boolean {
  try {
    if (statSync(attrsFile).size === 0) return false;
    JSON.parse(readFileSync(attrsFile, "utf8"));
    return true;
  } catch {
    return false;
  }
}

function checkpointReadable(stateFile: string): boolean {
  try {
    const parsed = JSON.parse(readFileSync(stateFile, "utf8")) as { checkpoint?: unknown };
    return typeof parsed.checkpoint === "object" && parsed.checkpoint !== null;
  } catch {
    return false;
  }
}
