// @ts-check
/**
 * node scripts/release-package.mjs <version> [--write]
 *
 * Builds the npm package of a past release from git history, as it was released: the release's commit
 * (test/e2e/fixtures/releases/releases.json) checked out with `git archive`, its own lock file installed
 * (`npm ci`), its own build script run, `npm pack`. Without --write it compares the result byte for byte
 * with the packed package committed under test/e2e/fixtures/releases/ (the upgrade tests install that
 * one) and exits 1 when they differ; with --write it replaces it. Needs the git history (not a shallow
 * clone without the commit), Node.js 22.19+ and the npm registry; about a minute on a busy 2-core
 * machine. The work is done in $PWE_CACHE_DIR (default ~/.cache/pulumi-webhook-endpoints)/release-build.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO, readJson } from "./harness/repo.mjs";

const FIXTURES = join(REPO, "test", "e2e", "fixtures", "releases");

/** @param {string} file */
const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/**
 * @param {string} command
 * @param {readonly string[]} args
 * @param {string} cwd
 */
function run(command, args, cwd) {
  execFileSync(command, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
}

/**
 * Packs the release `version` from its commit; resolves to the tarball's path.
 * @param {string} version
 */
export function buildRelease(version) {
  const manifest = /** @type {{ released: Record<string, string | undefined> }} */ (
    readJson(join(FIXTURES, "releases.json"))
  );
  const commit = manifest.released[version];
  if (typeof commit !== "string") throw new Error(`releases.json names no commit for release ${version}`);
  try {
    run("git", ["cat-file", "-e", `${commit}^{commit}`], REPO);
  } catch {
    throw new Error(
      `commit ${commit} of release ${version} is not in this clone: fetch the history (git fetch --unshallow)`,
    );
  }
  const cache =
    process.env.PWE_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-webhook-endpoints");
  const work = join(cache, "release-build", commit);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync("/bin/sh", ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", REPO, commit, work], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  // The release's own lock file and build; no install scripts (none of its dependencies needs one to build).
  run("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], work);
  run("npm", ["run", "build"], work);
  run("npm", ["pack", "--silent"], work);
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball in ${work}`);
  return join(work, tarball);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [version, flag] = process.argv.slice(2);
  if (version === undefined || (flag !== undefined && flag !== "--write")) {
    console.error("usage: node scripts/release-package.mjs <version> [--write]");
    process.exit(2);
  }
  const built = buildRelease(version);
  const committed = join(FIXTURES, `pulumi-webhook-endpoints-${version}.tgz`);
  if (flag === "--write") {
    copyFileSync(built, committed);
    console.log(`${committed}: sha256 ${sha256(committed)}`);
  } else {
    const [a, b] = [sha256(built), sha256(committed)];
    console.log(`built ${a}\ncommitted ${b}`);
    if (a !== b) {
      console.error(`the package built from git differs from ${committed}`);
      process.exit(1);
    }
  }
}
