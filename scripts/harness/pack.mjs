// @ts-check
/**
 * The package as a user gets it: `npm pack` of a built checkout, installed from the tarball into a
 * project of its own. Nothing here builds dist/: callers build first (the e2e global setup and
 * scripts/bench.sh run tsc).
 *
 * One package manager today (npm); PACKAGE_MANAGERS is where pnpm or Yarn would go, and
 * `installWorkspace` installs projects that are members of an npm workspace.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { PACKAGE_NAME, REPO, parseJson, readJson, repoSdkVersion } from "./repo.mjs";

/**
 * @param {readonly string[]} args
 * @param {string} cwd
 */
function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

/**
 * Packs a built package directory with `npm pack` into `destDir`.
 * @param {string} destDir
 * @param {{ packageDir?: string }} [options] packageDir: default this checkout
 * @returns {string} the tarball's path
 */
export function packTarball(destDir, options = {}) {
  const packageDir = options.packageDir ?? REPO;
  /** @type {{ main?: string }} */
  const manifest = readJson(join(packageDir, "package.json"));
  if (manifest.main !== undefined && !existsSync(join(packageDir, manifest.main))) {
    throw new Error(`${join(packageDir, manifest.main)} does not exist: build the package (npm run build) before packing it`);
  }
  mkdirSync(destDir, { recursive: true });
  const printed = npm(["pack", "--json", "--pack-destination", destDir, "--loglevel=error"], packageDir);
  let filename;
  try {
    filename = /** @type {{ filename: string }[]} */ (parseJson(printed))[0]?.filename;
  } catch {
    filename = undefined;
  }
  if (filename === undefined) throw new Error(`npm pack in ${packageDir} did not report a tarball:\n${printed}`);
  return join(destDir, filename);
}

/** @typedef {"npm"} PackageManager */

/**
 * How each package manager installs a directory's dependencies.
 * @type {Record<PackageManager, { lockfile: string, install: (dir: string) => void }>}
 */
const PACKAGE_MANAGERS = {
  npm: {
    lockfile: "package-lock.json",
    install: (dir) => void npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], dir),
  },
};

/**
 * @typedef {object} ProjectDependencies
 * @property {string} tarball the packed package (from packTarball)
 * @property {string} [sdkVersion] the SDK's version or range; default the version this checkout
 *   tests with (its node_modules/@pulumi/pulumi/package.json)
 * @property {Record<string, string>} [extraDependencies] more dependencies, name -> version
 * @property {Record<string, string>} [devDependencies]
 * @property {string} [name] the package.json name; default the directory's name
 */

/**
 * @typedef {object} Installed
 * @property {string} dir
 * @property {string} packageVersion the installed pulumi-webhook-endpoints
 * @property {string} sdkVersion the installed SDK
 */

/**
 * Writes `dir/package.json` with the tarball, the SDK and any other dependencies.
 * @param {string} dir
 * @param {ProjectDependencies} deps
 */
function writeProjectManifest(dir, deps) {
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: deps.name ?? dir.split("/").pop(),
    private: true,
    dependencies: {
      "@pulumi/pulumi": deps.sdkVersion ?? repoSdkVersion(),
      [PACKAGE_NAME]: `file:${deps.tarball}`,
      ...deps.extraDependencies,
    },
    ...(deps.devDependencies ? { devDependencies: deps.devDependencies } : {}),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Installs the tarball (and the SDK) into `dir`, as a user would. Other packages already in
 * `dir/node_modules` are kept; the package itself is always reinstalled, so a new tarball at the
 * same path is never mistaken for the old one.
 * @param {string} dir
 * @param {ProjectDependencies & { packageManager?: PackageManager }} options
 * @returns {Installed}
 */
export function installProject(dir, options) {
  writeProjectManifest(dir, options);
  install(dir, options.packageManager ?? "npm");
  return installed(dir);
}

/**
 * Installs projects that are members of one npm workspace at `root` (dependencies hoisted to
 * `root/node_modules`), e.g. a Pulumi project inside a monorepo.
 * @param {string} root
 * @param {{ members: Record<string, ProjectDependencies>, packageManager?: PackageManager }} options
 *   members: directory relative to `root` -> its dependencies
 * @returns {Installed[]} one per member, in order
 */
export function installWorkspace(root, options) {
  mkdirSync(root, { recursive: true });
  const members = Object.keys(options.members);
  const manifest = { name: root.split("/").pop(), private: true, workspaces: members };
  writeFileSync(join(root, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [member, deps] of Object.entries(options.members)) writeProjectManifest(join(root, member), deps);
  install(root, options.packageManager ?? "npm", members.map((m) => join(root, m)));
  return members.map((m) => installed(join(root, m), root));
}

/**
 * @param {string} root where the install runs
 * @param {PackageManager} packageManager
 * @param {string[]} [members] workspace members, whose own node_modules may hold the package too
 */
function install(root, packageManager, members = []) {
  const manager = PACKAGE_MANAGERS[packageManager];
  if (manager === undefined) throw new Error(`no install command for package manager "${String(packageManager)}"`);
  for (const dir of [root, ...members]) rmSync(join(dir, "node_modules", PACKAGE_NAME), { recursive: true, force: true });
  rmSync(join(root, manager.lockfile), { force: true });
  manager.install(root);
}

/**
 * The versions a project directory resolves, the way its program will. Both must resolve inside
 * `root` (the project, or its workspace): the checkout's own node_modules is further up, and a
 * program that found the package there would be testing the checkout, not the tarball.
 * @param {string} dir
 * @param {string} [root]
 * @returns {Installed}
 */
function installed(dir, root = dir) {
  const require = createRequire(join(dir, "package.json"));
  /** @param {string} name */
  const version = (name) => {
    const file = require.resolve(`${name}/package.json`);
    if (relative(root, file).startsWith("..")) throw new Error(`${name} resolves from ${dir} to ${file}, outside ${root}: the install did not put it there`);
    return /** @type {{ version: string }} */ (readJson(file)).version;
  };
  return { dir, packageVersion: version(PACKAGE_NAME), sdkVersion: version("@pulumi/pulumi") };
}
