// The previous release's package that the upgrade tests install (test/e2e/fixtures/releases/) is what its
// commit builds: scripts/release-package.mjs checks the release's commit out of git history, installs its own
// lock file, runs its own build and packs it, and the result must be byte for byte the committed file. About a
// minute (npm ci and tsc of the old tree), so test:deep only.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRelease } from "../../scripts/release-package.mjs";

const FIXTURES = join(__dirname, "..", "e2e", "fixtures", "releases");
const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

describe("the previous release's committed package", { tags: ["deep"] }, () => {
  it("is what its commit builds, byte for byte, and what releases.json records", { timeout: 600_000 }, () => {
    const { previous } = JSON.parse(readFileSync(join(FIXTURES, "releases.json"), "utf8")) as {
      previous: { version: string; tarball: string; sha256: string };
    };
    const committed = sha256(join(FIXTURES, previous.tarball));
    expect(committed).toBe(previous.sha256);
    expect(sha256(buildRelease(previous.version))).toBe(committed);
  });
});
