import { defineConfig } from "vitest/config";
import { tierFromEnv, tierTags } from "./test/support/tier.mjs";

// The tests the mutation run (npm run mutation, stryker.config.mjs) runs against each mutant: the
// ones that exercise the core paths in-process, where Stryker's instrumented sources are the code
// under test. Tests that reach the code through the compiled dist/ or child processes (the
// serialized provider, the provider host, the native plugin, hostile servers, the CLI bin, the
// packaging checks) would test the unmutated build, so they are left out; the property tests run
// at a tenth of their size.
export default defineConfig({
  test: {
    // MUTATION_TESTS=a.test.ts,b.test.ts narrows the set for a focused run on one file's mutants.
    include: process.env.MUTATION_TESTS?.split(",") ?? [
      "test/client/**/*.test.ts",
      "test/core/provider.test.ts",
      "test/core/check.test.ts",
      "test/core/trust.test.ts",
      "test/hostile/regressions.test.ts",
      "test/emulator/rewrite.test.ts",
    ],
    exclude: ["**/node_modules/**"],
    // The tags the test files use (a file tagged `budgeted` fails to load without them).
    tags: tierTags(tierFromEnv()),
    globalSetup: ["test/support/global-setup.ts"],
    env: { HOSTILE_SCALE: "0.1" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
