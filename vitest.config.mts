import { defineConfig } from "vitest/config";
import {
  PACKAGE_STAGE,
  RELEASE_STAGE,
  requireSupportedNode,
  tierFromEnv,
  tierTags,
} from "./test/support/tier.mjs";

// The unit tier (npm run test:unit): every in-process test, no Pulumi CLI, no network. Tiers and tags:
// test/support/tier.ts and docs/testing.md.
requireSupportedNode();
const tier = tierFromEnv();

/**
 * In-process test files that also start the compiled package (dist/) in a child process: the stored
 * provider text, the provider host, the native plugin, the bins. Only these wait for dist/, built by
 * their global setup when it is missing or older than its sources. A new file of that kind goes here.
 */
const NEEDS_DIST = [
  "test/dynamic/serialized.test.ts",
  "test/dynamic/host.test.ts",
  "test/native/server.test.ts",
  "test/emulator/bin-process.test.ts",
  "test/cli/main.test.ts",
  "test/cli/secret-values.test.ts",
  "test/cli/orphans-stacks.test.ts",
  "test/cli/incomplete-listing.test.ts",
  "test/cli/guessed-cursor.test.ts",
  "test/hostile/regressions.test.ts",
  "test/native/taint.test.ts",
  "test/native/taken-answer.test.ts",
  "test/native/notices.test.ts",
  "test/dynamic/stored-provider-host.test.ts",
  "test/docs/numbers.test.ts",
];

export default defineConfig({
  test: {
    tags: tierTags(tier),
    env: { PWE_TIER: tier },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Four files at a time: these tests mostly wait on timers (settle windows, latency), so a core
    // runs several of them. Vitest's default on this 2-core machine is one (cores - 1): 159 s for
    // this tier against 77 s with four (measured, load average about 4).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", "**/node_modules/**", ...NEEDS_DIST, ...PACKAGE_STAGE, ...RELEASE_STAGE],
        },
      },
      {
        extends: true,
        test: { name: "unit-dist", include: NEEDS_DIST, globalSetup: ["test/support/global-setup.ts"] },
      },
    ],
  },
});
