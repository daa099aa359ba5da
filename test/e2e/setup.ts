import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBuilt } from "../../scripts/harness/build.mjs";
import { installProject, packTarball } from "../../scripts/harness/pack.mjs";
import { pulumiVersion } from "../../scripts/harness/pulumi.mjs";
import { repoVersion } from "../../scripts/harness/repo.mjs";
import { BASE_DIR, E2E_DIR, PACK_DIR } from "./paths";

/**
 * Packs the package exactly as it would be published and installs the tarball into a base
 * project the way a user would (`npm install`), with the @pulumi/pulumi this checkout tests with,
 * so every end-to-end project runs the packed build, not the checkout. Fails, never skips, when
 * the Pulumi CLI is missing.
 */
export default function setup(): void {
  if (pulumiVersion() === undefined) {
    throw new Error("the Pulumi CLI is not on PATH: run the tests with `bash scripts/test.sh`, which sources scripts/engine.sh");
  }
  rmSync(E2E_DIR, { recursive: true, force: true });
  // The package's own build (src/ and the native SDK): what npm run build makes, and npm pack ships;
  // made once per change of its sources (an earlier stage's build of the same sources is reused).
  ensureBuilt();
  const tarball = packTarball(PACK_DIR);
  mkdirSync(join(BASE_DIR, "projects"), { recursive: true });
  // The examples are TypeScript, compiled by the SDK's ts-node: the same compiler and Node types as the checkout.
  installProject(BASE_DIR, {
    name: "e2e-base",
    tarball,
    devDependencies: { typescript: repoVersion("typescript"), "@types/node": repoVersion("@types/node") },
  });
}
