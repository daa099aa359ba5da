// @ts-check
/**
 * What the end-to-end tests run against: the package packed exactly as it would be published and the
 * tarball installed into a base project the way a user installs it (`npm install`), with the
 * @pulumi/pulumi, TypeScript and Node types this checkout tests with. Every end-to-end project lives
 * below the base project and so runs the packed build, not the checkout.
 *
 * test/e2e/setup.ts (the engine project's global setup) prepares it. `scripts/test.sh` prepares it
 * earlier, while the engine is still being built (a pack and an `npm install` that mostly wait on the
 * registry, next to Go builds that use the CPU):
 *
 *   node scripts/harness/e2e-base.mjs prepare     prints a token; PWE_E2E_PREPARED=<token> lets the
 *                                                 global setup reuse that preparation instead of redoing it
 *
 * A preparation is reused only when the token names it and the package packs to the same tarball
 * (npm pack is reproducible: same files, same bytes); the projects and backends of any earlier run
 * are removed either way.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBuilt } from "./build.mjs";
import { installProject, packTarball } from "./pack.mjs";
import { REPO, readJson, repoVersion } from "./repo.mjs";

export const E2E_DIR = join(REPO, ".e2e", "engine");
export const PACK_DIR = join(E2E_DIR, "pack");
/** Holds node_modules with the packed package installed; projects live below it. */
export const BASE_DIR = join(E2E_DIR, "base");
const MARKER = join(E2E_DIR, "prepared.json");

/** @param {string} file */
function sha256(file) {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** What the base project is installed from: the tarball's hash and the tools' versions. */
function identity() {
  return {
    devDependencies: { typescript: repoVersion("typescript"), "@types/node": repoVersion("@types/node") },
    sdk: repoVersion("@pulumi/pulumi"),
  };
}

/**
 * Packs and installs from nothing.
 * @returns {string} the token naming this preparation
 */
function prepareFresh() {
  rmSync(E2E_DIR, { recursive: true, force: true });
  // The package's own build (src/ and the native SDK): what npm run build makes, and npm pack ships;
  // made once per change of its sources (an earlier stage's build of the same sources is reused).
  ensureBuilt();
  const tarball = packTarball(PACK_DIR);
  mkdirSync(join(BASE_DIR, "projects"), { recursive: true });
  const { devDependencies } = identity();
  installProject(BASE_DIR, { name: "e2e-base", tarball, devDependencies });
  const token = randomBytes(8).toString("hex");
  writeFileSync(MARKER, `${JSON.stringify({ token, tarball: sha256(tarball), ...identity() }, null, 2)}\n`);
  return token;
}

/**
 * The preparation `token` names, if it is still what the checkout packs to.
 * @param {string} token
 */
function reusable(token) {
  if (!existsSync(MARKER)) return false;
  /** @type {{ token: string, tarball: string, devDependencies: Record<string, string>, sdk: string }} */
  const marker = readJson(MARKER);
  const packed = readdirSync(PACK_DIR).filter((file) => file.endsWith(".tgz"));
  if (marker.token !== token || packed.length !== 1) return false;
  if (
    JSON.stringify({ devDependencies: marker.devDependencies, sdk: marker.sdk }) !==
    JSON.stringify(identity())
  )
    return false;
  // Packed again beside it: the same bytes, or the checkout changed since.
  ensureBuilt();
  const check = join(E2E_DIR, "pack-check");
  rmSync(check, { recursive: true, force: true });
  const again = sha256(packTarball(check));
  rmSync(check, { recursive: true, force: true });
  return (
    again === marker.tarball && sha256(join(PACK_DIR, /** @type {string} */ (packed[0]))) === marker.tarball
  );
}

/**
 * The base project, ready for a run: reused when `reuse` names a preparation that still holds,
 * else made afresh. Either way no project or backend of an earlier run is left.
 * @param {{ reuse?: string | undefined }} [options]
 * @returns {{ token: string, reused: boolean }}
 */
export function prepareE2E(options = {}) {
  if (options.reuse !== undefined && options.reuse !== "" && reusable(options.reuse)) {
    for (const entry of readdirSync(E2E_DIR)) {
      if (!["pack", "base", "prepared.json"].includes(entry))
        rmSync(join(E2E_DIR, entry), { recursive: true, force: true });
    }
    rmSync(join(BASE_DIR, "projects"), { recursive: true, force: true });
    mkdirSync(join(BASE_DIR, "projects"), { recursive: true });
    return { token: options.reuse, reused: true };
  }
  return { token: prepareFresh(), reused: false };
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  if (process.argv[2] !== "prepare" || process.argv.length !== 3) {
    process.stderr.write("usage: node scripts/harness/e2e-base.mjs prepare\n");
    process.exit(2);
  }
  const started = Date.now();
  const { token } = prepareE2E();
  process.stderr.write(
    `[e2e] packed and installed the base project in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  process.stdout.write(`${token}\n`);
}
