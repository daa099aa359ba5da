import { readdirSync } from "node:fs";

/**
 * The names in a directory, or none when it cannot be read (missing, not a directory, not ours to
 * read): the CLI looks through a backend's, a stack's and the system's folders (history, locks,
 * /proc), any of which may not exist on this machine.
 */
export function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
