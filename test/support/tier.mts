// The tiers of the test suite (docs/testing.md), and how a test says which one it belongs to.
//
//   npm run test:unit   the unit tier: every in-process test (vitest.config.mts), about 3 minutes at most
//   npm test            the unit tier, then the packaging checks, the SDK check and the end-to-end stage
//                       (vitest.e2e.config.mts) through the real engine: every face at least once, the
//                       model-based test with a time budget; at most 20 minutes with all set-up
//   npm run test:deep   everything npm test leaves out, and the sized suites at full size
//
// PWE_TIER selects the tier a vitest run is sized for: "ci" (the default: the unit tier and npm test) or
// "deep" (npm run test:deep). Both vitest configs read it and hand it to the test processes; in "ci" they
// skip the cases tagged deep, and npm run test:deep (bash scripts/test.sh --deep) passes
// `--tags-filter "deep || budgeted"`. A case, a describe or a whole file belongs to a tier by a vitest tag:
//
//   no tag                   npm test (and npm run test:unit for the in-process files); not in test:deep
//   { tags: ["deep"] }       npm run test:deep only
//   { tags: ["budgeted"] }   both: the case sizes itself for the tier with sized() (or a time budget),
//                            small in npm test, full size in test:deep
//   // @module-tag deep      (a comment at the top of a file) every case of the file, likewise for budgeted
//
// npm test and npm run test:deep together run every case once, the budgeted ones twice (small, then
// full size).
import { unsupportedNode } from "../../src/text/runtime.js";

export const TIERS = ["ci", "deep"] as const;
export type Tier = (typeof TIERS)[number];

/** The tags a case may carry, as both vitest configs declare them (vitest refuses an undeclared tag). */
export function tierTags(tier: Tier): { name: string; description: string; skip?: boolean }[] {
  return [
    { name: "deep", description: "runs only in npm run test:deep (PWE_TIER=deep)", skip: tier !== "deep" },
    {
      name: "budgeted",
      description:
        "runs in npm test and in npm run test:deep, sized for the tier by sized() or a time budget",
    },
  ];
}

/** The tier named by PWE_TIER (unset or empty: "ci"); anything else is an error that lists the tiers. */
export function tierFromEnv(value: string | undefined = process.env.PWE_TIER): Tier {
  if (value === undefined || value === "") return "ci";
  if ((TIERS as readonly string[]).includes(value)) return value as Tier;
  throw new Error(
    `PWE_TIER is "${value}": use "ci" (npm test, the default) or "deep" (npm run test:deep), or leave it unset`,
  );
}

/**
 * Not in the unit tier though they need no engine: the packaging checks (npm pack, attw, publint,
 * installed TypeScript), the hostile servers with each call in a process of its own, and the release
 * build's command line (it fetches the pinned Node.js binary it runs under from the npm registry). They
 * are npm test's package stage (vitest.e2e.config.mts, project "package").
 */
export const PACKAGE_STAGE = [
  "test/types/package.test.ts",
  "test/hostile/hostile-servers.test.ts",
  "test/release/archives-cli.test.ts",
];

/**
 * npm run test:deep's release stage: the release archives for every platform, built twice and run or read
 * (vitest.e2e.config.mts, project "release"), once scripts/ensure-release-tools.sh has installed rcodesign
 * and qemu (in the background from the end of set-up: compiling rcodesign takes half an hour).
 */
export const RELEASE_STAGE = ["test/release/five-platforms.test.ts"];

/**
 * The suite needs the Node.js the package needs (src/text/runtime.ts's MIN_NODE, package.json's engines);
 * an older one fails deep in undici with "Cannot read properties of undefined (reading 'bind')". Both
 * configs refuse it up front.
 */
export function requireSupportedNode(version: string = process.versions.node): void {
  const tooOld = unsupportedNode("the tests", "", version);
  if (tooOld === undefined) return;
  throw new Error(
    `${tooOld}: run \`source scripts/node-env.sh\` first (it puts Node 24 on PATH), or use npm test, which does`,
  );
}

/** The tier this test process runs in. */
export const TIER: Tier = tierFromEnv();

/** A size for the tier: `sized({ ci: 1, deep: 5 })` is 1 in npm test and 5 in npm run test:deep. */
export function sized<T>(sizes: Record<Tier, T>): T {
  return sizes[TIER];
}
