import { defineConfig } from "vitest/config";
import {
  PACKAGE_STAGE,
  RELEASE_STAGE,
  requireSupportedNode,
  tierFromEnv,
  tierTags,
} from "./test/support/tier.mjs";

// What npm test runs after the unit tier, and npm run test:deep (PWE_TIER=deep): tiers and tags in
// test/support/tier.ts and docs/testing.md. Three projects, each a stage of scripts/test.sh:
//   package  the packaging checks, the hostile servers (each call in a process of its own, dist/), and
//            the release build's command line
//   release  (test:deep) the release archives for every platform, built twice and run or read
//   engine   the end-to-end tests through the real Pulumi CLI; scripts/engine.sh must have put it on
//            PATH (its global setup fails, never skips, without it). Files run two at a time: each
//            keeps to its own emulator, backends, project directories and transcript.
requireSupportedNode();
const tier = tierFromEnv();

export default defineConfig({
  test: {
    tags: tierTags(tier),
    env: { PWE_TIER: tier },
    pool: "forks",
    // Two files at a time: a test file drives about one core (the CLI, a language host, the program,
    // the provider host, mostly waiting on each other); vitest's default here is one (cores - 1).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "package",
          include: PACKAGE_STAGE,
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: "release",
          include: RELEASE_STAGE,
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 600_000,
          hookTimeout: 3_600_000,
        },
      },
      {
        extends: true,
        test: {
          name: "engine",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/setup.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
