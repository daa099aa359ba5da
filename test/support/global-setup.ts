import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { ensureBuilt } from "../../scripts/harness/build.mjs";

export const REPO = resolve(__dirname, "../..");
/** A directory whose node_modules resolves `pulumi-webhook-endpoints` to this checkout's build. */
export const LINKED_DIR = join(REPO, ".e2e", "linked");

/**
 * The serialized provider requires the package by name at run time, so tests that run it (or the
 * provider host, the native plugin, a bin) need the compiled package (dist/) and a node_modules that
 * resolves its name. dist/ is built only when it is missing or older than its sources
 * (scripts/harness/build.mjs): the in-process tests never wait for it (vitest.config.mts runs this
 * setup only for the files that need it).
 */
export default function setup(): void {
  ensureBuilt();
  rmSync(LINKED_DIR, { recursive: true, force: true });
  mkdirSync(join(LINKED_DIR, "node_modules"), { recursive: true });
  symlinkSync(REPO, join(LINKED_DIR, "node_modules", "pulumi-webhook-endpoints"), "dir");
  symlinkSync(join(REPO, "node_modules", "@pulumi"), join(LINKED_DIR, "node_modules", "@pulumi"), "dir");
}
