// The end-to-end suite's use of the shared harness (scripts/harness/): where its projects and
// backends live, and one transcript per test file for the plaintext-secret sweeps.
import { join } from "node:path";
import { Project, backendFor as harnessBackendFor, type Backend, type Env } from "../../scripts/harness/pulumi.mjs";
import { BASE_DIR, E2E_DIR, REPO } from "./paths";

export { Project, SECRET_SIG, leaks, readTree, webhookResources } from "../../scripts/harness/pulumi.mjs";

/** Everything the CLI printed in this test file, for the plaintext-secret sweep. */
export const transcript: string[] = [];

/** A fresh `file://` backend and PULUMI_HOME per test file, inside the e2e directory. */
export function backendFor(suite: string): Backend {
  return harnessBackendFor(join(E2E_DIR, "backends"), suite);
}

/** A real Pulumi project made from one of examples/, below the base project that holds node_modules. */
export function createProject(example: string, id: string, env: Env, overrides: Record<string, string> = {}): Project {
  return Project.create(join(REPO, "examples", example), join(BASE_DIR, "projects", id), { env, overrides, transcript });
}
