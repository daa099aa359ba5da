import { defineConfig } from "vitest/config";
import { tierFromEnv, tierTags } from "./test/support/tier.mjs";

// The tests the mutation run (npm run mutation, stryker.config.mjs) runs against each mutant: the
// in-process tests of the client and the provider core, where Stryker's instrumented sources are the
// code under test. The rule is every file under test/client, test/core and test/dynamic, less the
// ones that reach the code only through the compiled dist/ or a child process (they would test the
// unmutated build), plus two files of other rooms that drive the client in-process; the property
// tests run at a tenth of their size. docs/reliability.md ("Mutation testing") gives the scores.
const OUT_OF_PROCESS = [
  // The real dynamic-provider host, spawned as the engine spawns it and driven over gRPC.
  "test/dynamic/host.test.ts",
  // The built provider text (dist/) the resource stores, run in child processes.
  "test/dynamic/serialized.test.ts",
  // The provider host in a child process, loading the stored text that requires the built package.
  "test/dynamic/stored-provider-host.test.ts",
  // Evaluates src/dynamic/stored-provider.js from its text, as the host does: loads no mutated file.
  "test/dynamic/stored-provider.test.ts",
];

export default defineConfig({
  test: {
    // MUTATION_TESTS=a.test.ts,b.test.ts narrows the set for a focused run on one file's mutants.
    include: process.env.MUTATION_TESTS?.split(",") ?? [
      "test/client/**/*.test.ts",
      "test/core/**/*.test.ts",
      "test/dynamic/**/*.test.ts",
      "test/hostile/regressions.test.ts",
      "test/emulator/rewrite.test.ts",
    ],
    exclude: ["**/node_modules/**", ...OUT_OF_PROCESS],
    // The tags the test files use (a file tagged `budgeted` fails to load without them).
    tags: tierTags(tierFromEnv()),
    globalSetup: ["test/support/global-setup.ts"],
    env: { HOSTILE_SCALE: "0.1" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
