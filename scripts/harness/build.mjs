// @ts-check
/**
 * The package's build (`node scripts/build.mjs`, what `npm run build` runs), made once per change of
 * what it is built from: the test tiers share one dist/ instead of each rebuilding it.
 *
 * The build writes dist/.build-inputs, the SHA-256 of everything it reads (src/, sdk/nodejs/, the
 * tsconfigs, package.json, scripts/build.mjs and the TypeScript version); `ensureBuilt()` builds only
 * when dist/ has no such file or it names other inputs. build.mjs starts by removing dist/, so a
 * build is always clean (nothing left from an older layout reaches `npm pack`), and a dist/ changed
 * or removed by hand is rebuilt. The file is not in the tarball (package.json `files` ships
 * dist's .js, .d.ts, maps and .json only).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "./repo.mjs";

const STAMP = join(REPO, "dist", ".build-inputs");
/** What scripts/build.mjs reads: directories walked whole, and single files. */
const INPUT_DIRS = ["src", "sdk/nodejs"];
const INPUT_FILES = [
  "tsconfig.json",
  "tsconfig.build.json",
  "tsconfig.native-sdk.json",
  "package.json",
  "scripts/build.mjs",
  "node_modules/typescript/package.json",
];

/**
 * @param {string} dir
 * @returns {string[]} every file below `dir`, depth first, names sorted
 */
function filesBelow(dir) {
  /** @type {string[]} */
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesBelow(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** The SHA-256 of the build's inputs: each file's path and content. */
export function buildInputsHash() {
  const hash = createHash("sha256");
  const files = [
    ...INPUT_DIRS.flatMap((dir) => filesBelow(join(REPO, dir))),
    ...INPUT_FILES.map((file) => join(REPO, file)),
  ];
  for (const file of files) {
    hash.update(`${relative(REPO, file)}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : "<missing>");
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * Builds dist/ unless it was built from exactly the current inputs.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {{ built: boolean, ms: number }}
 */
export function ensureBuilt(options = {}) {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  const inputs = buildInputsHash();
  if (existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === inputs) {
    return { built: false, ms: Date.now() - started };
  }
  log("[build] dist/ is missing or older than its sources: node scripts/build.mjs");
  execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")], { stdio: "inherit" });
  writeFileSync(STAMP, `${inputs}\n`);
  const ms = Date.now() - started;
  log(`[build] built dist/ in ${(ms / 1000).toFixed(1)} s`);
  return { built: true, ms };
}
