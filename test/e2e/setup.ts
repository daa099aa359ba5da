import { prepareE2E } from "../../scripts/harness/e2e-base.mjs";
import { pulumiVersion } from "../../scripts/harness/pulumi.mjs";

/**
 * Packs the package exactly as it would be published and installs the tarball into a base
 * project the way a user would (`npm install`), with the @pulumi/pulumi this checkout tests with,
 * so every end-to-end project runs the packed build, not the checkout (scripts/harness/e2e-base.mjs).
 * scripts/test.sh does that while the engine is still being built and hands the preparation over in
 * PWE_E2E_PREPARED; it is reused only if the checkout still packs to the same tarball. Fails, never
 * skips, when the Pulumi CLI is missing.
 */
export default function setup(): void {
  if (pulumiVersion() === undefined) {
    throw new Error(
      "the Pulumi CLI is not on PATH: run the tests with `bash scripts/test.sh`, which sources scripts/engine.sh",
    );
  }
  const { reused } = prepareE2E({ reuse: process.env.PWE_E2E_PREPARED });
  console.log(
    `[e2e] base project ${reused ? "prepared earlier by scripts/test.sh, reused" : "packed and installed"}`,
  );
}
