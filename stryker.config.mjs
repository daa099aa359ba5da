// Mutation testing of the core paths: npm run mutation (not part of CI; about an hour on 2 idle cores).
// The report lands in reports/mutation/ (mutation.html, mutation.json); the README's Reliability
// section gives the score and the surviving mutants with the reason each is left.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.mts", related: false },
  coverageAnalysis: "perTest",
  // The core paths the trust promises rest on: create reconciliation, paging, retry
  // classification and backoff, response interpretation, the name and URL rules, and the provider
  // core's diff, lookups and state.
  mutate: [
    "src/client/reconcile.ts",
    "src/client/paging.ts",
    "src/client/retry.ts",
    "src/client/responses.ts",
    "src/client/rules.ts",
    "src/core/provider-core.ts",
    "src/core/lookups.ts",
    "src/core/state.ts",
  ],
  concurrency: 2,
  timeoutFactor: 3,
  timeoutMS: 30_000,
  dryRunTimeoutMinutes: 30,
  ignorePatterns: [
    "dist",
    "dist-check",
    ".e2e",
    ".demo",
    "coverage",
    "reports",
    "*.tgz",
    "sdk/go",
    "sdk/python",
    "sdk/dotnet",
  ],
  reporters: ["clear-text", "json", "html", "progress"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  clearTextReporter: { allowEmojis: false, logTests: false, allowColor: false },
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
