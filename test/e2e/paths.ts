import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";

export const REPO = resolve(__dirname, "../..");
export const E2E_DIR = join(REPO, ".e2e", "engine");
export const PACK_DIR = join(E2E_DIR, "pack");
/** Holds node_modules with the packed package installed; projects live below it. */
export const BASE_DIR = join(E2E_DIR, "base");

export function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}
