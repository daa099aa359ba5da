import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";

export const REPO = resolve(__dirname, "../..");
/** A directory whose node_modules resolves `pulumi-webhook-endpoints` to this checkout's build. */
export const LINKED_DIR = join(REPO, ".e2e", "linked");

/**
 * The serialized provider requires the package by name at run time, so tests that run it need
 * the compiled package (dist/) and a node_modules that resolves its name.
 */
export default function setup(): void {
  // The package's own build (src/ and the native SDK), the one npm run build runs.
  execFileSync(process.execPath, [join(REPO, "scripts/build.mjs")], { stdio: "inherit" });
  rmSync(LINKED_DIR, { recursive: true, force: true });
  mkdirSync(join(LINKED_DIR, "node_modules"), { recursive: true });
  symlinkSync(REPO, join(LINKED_DIR, "node_modules", "pulumi-webhook-endpoints"), "dir");
  symlinkSync(join(REPO, "node_modules", "@pulumi"), join(LINKED_DIR, "node_modules", "@pulumi"), "dir");
}
