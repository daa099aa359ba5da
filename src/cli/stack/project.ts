import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A Pulumi project directory: where Pulumi.yaml is, here or above. */
export interface ProjectDir {
  dir: string;
  file: string;
}

export function findProject(cwd: string): ProjectDir | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
      const file = join(dir, name);
      if (existsSync(file)) return { dir, file };
    }
    if (dirname(dir) === dir) return undefined;
  }
}
