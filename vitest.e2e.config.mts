import { defineConfig } from "vitest/config";

// End-to-end tests drive the real Pulumi CLI; scripts/engine.sh must have put it on PATH.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    globalSetup: ["test/e2e/setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    fileParallelism: false,
  },
});
