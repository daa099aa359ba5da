// @ts-check
/**
 * What a TypeScript user of the dynamic resource installs: `npm install <packed tarball> @pulumi/pulumi` in a
 * throw-away project, against `npm install @pulumi/pulumi` alone (the floor: every Pulumi TypeScript program
 * has it), both with the @pulumi/pulumi this checkout tests with. Prints, for each, the bytes on disk of
 * node_modules (`du --apparent-size` would hide block rounding; this counts what `du -sb` counts), the
 * packages npm installed (entries of its lockfile below node_modules), and what the package adds.
 *
 *   node scripts/install-weight.mjs <pulumi-webhook-endpoints-*.tgz>
 *
 * Needs the npm registry (or its cache: --prefer-offline). A measurement for the docs and reports, not a test.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readJson, repoSdkVersion } from "./harness/repo.mjs";

/**
 * Installs `specs` into a new project and measures its node_modules.
 * @param {string[]} specs
 * @returns {{ bytes: number, packages: number, names: Set<string> }}
 */
function measure(specs) {
  const dir = mkdtempSync(join(tmpdir(), "pwe-install-weight-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "install-weight", private: true }));
    execFileSync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs],
      { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
    );
    const bytes = Number(
      execFileSync("du", ["-sb", join(dir, "node_modules")], { encoding: "utf8" }).split("\t")[0],
    );
    /** @type {{ packages: Record<string, unknown> }} */
    const lock = readJson(join(dir, "package-lock.json"));
    const names = new Set(Object.keys(lock.packages).filter((path) => path.startsWith("node_modules/")));
    return { bytes, packages: names.size, names };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tarball = process.argv[2];
if (tarball === undefined || process.argv.length !== 3) {
  process.stderr.write("usage: node scripts/install-weight.mjs <pulumi-webhook-endpoints-*.tgz>\n");
  process.exit(2);
}
const sdk = `@pulumi/pulumi@${repoSdkVersion()}`;
const floor = measure([sdk]);
const withPackage = measure([resolve(tarball), sdk]);
const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const added = [...withPackage.names].filter((name) => !floor.names.has(name)).map((p) => p.slice(13));
console.log(`npm install ${sdk}: ${floor.bytes} bytes (${mb(floor.bytes)}), ${floor.packages} packages`);
console.log(
  `npm install ${tarball} ${sdk}: ${withPackage.bytes} bytes (${mb(withPackage.bytes)}), ${withPackage.packages} packages`,
);
console.log(
  `the package adds ${withPackage.bytes - floor.bytes} bytes (${mb(withPackage.bytes - floor.bytes)}) and ${withPackage.packages - floor.packages} packages: ${added.sort().join(", ")}`,
);
