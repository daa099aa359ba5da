// @ts-check
/**
 * The package as a user gets it: `npm pack` of a built checkout, installed from the tarball into a
 * project of its own. Nothing here builds dist/: callers build first (the e2e global setup and
 * scripts/bench.sh run tsc).
 *
 * Three package managers (PACKAGE_MANAGERS): npm, pnpm and Yarn classic (node_modules linker).
 * pnpm and Yarn are installed from the npm registry on first use, at pinned versions, into
 * PACKAGE_MANAGER_CACHE (a temporary directory shared by runs), with pnpm's store and Yarn's cache
 * there too. `installWorkspace` installs projects that are members of a workspace (npm and Yarn:
 * `workspaces` in the root package.json; pnpm: pnpm-workspace.yaml), e.g. a program and the
 * wrapper library it gets the package through. `removePackage` uninstalls the package as a user
 * would, and `installedCopies` counts the copies of a package an install holds.
 * `installProjectAsync` and `installWorkspaceAsync` run an install in a child process, so that a
 * test can start several (mostly waiting on the registry and the disk) and go on meanwhile.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { runProcess } from "./process.mjs";
import { PACKAGE_NAME, REPO, parseJson, readJson, repoSdkVersion } from "./repo.mjs";

/**
 * @param {readonly string[]} args
 * @param {string} cwd
 */
function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

/** Kept of a failed install's output in the error: the end, where the package manager says why. */
const FAILURE_TAIL = 8_000;

/**
 * Runs `node <script> <args>` (pnpm and Yarn are JavaScript files run by this Node); throws with
 * the end of what it printed when it fails. Their output (peer-dependency warnings, progress) is
 * kept out of the test log otherwise.
 * @param {string} script
 * @param {readonly string[]} args
 * @param {string} cwd
 * @param {Record<string, string>} [env]
 */
function runTool(script, args, cwd, env = {}) {
  try {
    execFileSync(process.execPath, [script, ...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...env },
    });
  } catch (error) {
    const failed = /** @type {{ message: string, stdout?: string, stderr?: string }} */ (error);
    const tail = (/** @type {string | undefined} */ text) => (text ?? "").slice(-FAILURE_TAIL);
    throw new Error(
      `${script} ${args.join(" ")} (in ${cwd}) failed: ${failed.message.split("\n")[0]}\n--- stdout\n${tail(failed.stdout)}\n--- stderr\n${tail(failed.stderr)}`,
      { cause: error },
    );
  }
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
    throw new Error(
      `${join(packageDir, manifest.main)} does not exist: build the package (npm run build) before packing it`,
    );
  }
  mkdirSync(destDir, { recursive: true });
  const printed = npm(["pack", "--json", "--pack-destination", destDir, "--loglevel=error"], packageDir);
  let filename;
  try {
    filename = /** @type {{ filename: string }[]} */ (parseJson(printed))[0]?.filename;
  } catch {
    filename = undefined;
  }
  if (filename === undefined)
    throw new Error(`npm pack in ${packageDir} did not report a tarball:\n${printed}`);
  return join(destDir, filename);
}

/** @typedef {"npm" | "pnpm" | "yarn"} PackageManager */

/**
 * Where pnpm and Yarn themselves, pnpm's store and Yarn's cache are kept between runs: under the
 * system's temporary directory (PWE_PACKAGE_MANAGER_CACHE overrides it), never the user's own
 * pnpm store or Yarn cache. A fresh machine fills it from the npm registry.
 */
export const PACKAGE_MANAGER_CACHE =
  process.env.PWE_PACKAGE_MANAGER_CACHE ?? join(tmpdir(), "pulumi-webhook-endpoints-package-managers");

/**
 * The pnpm and Yarn the harness installs (`npm install <name>@<version>`) and runs: pinned, so a
 * new release cannot change what the tests mean. Yarn 1 ("classic") installs into node_modules;
 * Yarn 2+ defaults to Plug'n'Play, which the package does not support (the dynamic provider's
 * serialized code loads it from node_modules).
 * @type {Record<"pnpm" | "yarn", { version: string, script: string }>}
 */
export const TOOLS = {
  pnpm: { version: "9.15.9", script: "bin/pnpm.cjs" },
  yarn: { version: "1.22.22", script: "bin/yarn.js" },
};

/**
 * The script of pnpm or Yarn, installed from the npm registry into PACKAGE_MANAGER_CACHE on first
 * use (into a staging directory, then renamed, so a run that stops half way leaves nothing behind).
 * @param {"pnpm" | "yarn"} name
 * @returns {string}
 */
export function toolScript(name) {
  const { version, script } = TOOLS[name];
  const dir = join(PACKAGE_MANAGER_CACHE, `${name}@${version}`);
  const file = join(dir, "node_modules", name, script);
  if (existsSync(file)) return file;
  mkdirSync(PACKAGE_MANAGER_CACHE, { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  npm(
    ["install", "--prefix", staging, "--no-audit", "--no-fund", "--loglevel=error", `${name}@${version}`],
    staging,
  );
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run installed it meanwhile
  }
  if (!existsSync(file)) throw new Error(`installing ${name}@${version} into ${dir} did not give ${file}`);
  return file;
}

/** @type {string | undefined} */
let npmRegistry;
/** The registry npm is configured with, which Yarn is pointed at too (Yarn 1's default is its own mirror). */
function registry() {
  npmRegistry ??= npm(["config", "get", "registry"], REPO).trim();
  return npmRegistry;
}

const pnpmStore = () => join(PACKAGE_MANAGER_CACHE, "pnpm-store");
const yarnCache = () => join(PACKAGE_MANAGER_CACHE, "yarn-cache");
const PNPM_FLAGS = () => [
  "--store-dir",
  pnpmStore(),
  "--config.confirmModulesPurge=false",
  "--reporter=append-only",
];
const PNPM_ENV = { npm_config_update_notifier: "false" };
const YARN_FLAGS = () => [
  "--non-interactive",
  "--no-progress",
  "--cache-folder",
  yarnCache(),
  "--registry",
  registry(),
];
const YARN_ENV = { YARN_DISABLE_SELF_UPDATE_CHECK: "true" };

/**
 * @typedef {object} PackageManagerCommands
 * @property {string} lockfile
 * @property {string} addCommand how a user adds a dependency, e.g. `pnpm add` (the provider's
 *   "not installed" message names it)
 * @property {"package.json" | "pnpm-workspace.yaml"} workspaces where a workspace root lists its members
 * @property {string} workspaceRange what a member's dependency on another member of its workspace says
 * @property {(dir: string) => void} install installs the dependencies of `dir` (lockfile removed first)
 * @property {(dir: string, name: string) => void} remove uninstalls one dependency as a user would,
 *   leaving the project as a fresh clone of it would be after its install
 */

/**
 * How each package manager installs, removes and declares workspaces.
 * @type {Record<PackageManager, PackageManagerCommands>}
 */
export const PACKAGE_MANAGERS = {
  npm: {
    lockfile: "package-lock.json",
    addCommand: "npm install",
    workspaces: "package.json",
    workspaceRange: "*",
    install: (dir) => void npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], dir),
    remove: (dir, name) => void npm(["uninstall", name, "--no-audit", "--no-fund", "--loglevel=error"], dir),
  },
  pnpm: {
    lockfile: "pnpm-lock.yaml",
    addCommand: "pnpm add",
    workspaces: "pnpm-workspace.yaml",
    workspaceRange: "workspace:*",
    // --no-frozen-lockfile: pnpm defaults to a frozen lockfile when CI is set, and the lockfile was just removed.
    install: (dir) =>
      runTool(toolScript("pnpm"), ["install", "--no-frozen-lockfile", ...PNPM_FLAGS()], dir, PNPM_ENV),
    remove: (dir, name) => {
      runTool(toolScript("pnpm"), ["remove", name, ...PNPM_FLAGS()], dir, PNPM_ENV);
      // `pnpm remove` leaves the package's files in its virtual store (node_modules/.pnpm), where
      // the provider would still find them; a fresh clone installed from the lockfile has none.
      rmSync(join(dir, "node_modules"), { recursive: true, force: true });
      runTool(toolScript("pnpm"), ["install", "--frozen-lockfile", ...PNPM_FLAGS()], dir, PNPM_ENV);
    },
  },
  yarn: {
    lockfile: "yarn.lock",
    addCommand: "yarn add",
    workspaces: "package.json",
    workspaceRange: "*",
    install: (dir) => {
      // Yarn 1 remembers the checksum of a `file:` tarball by its path (in its cache's .tmp) and
      // would install the cached copy of an older tarball packed to the same path.
      for (const entry of existsSync(yarnCache()) ? readdirSync(yarnCache()) : [])
        rmSync(join(yarnCache(), entry, ".tmp"), { recursive: true, force: true });
      rmSync(join(dir, "node_modules", ".yarn-integrity"), { force: true });
      runTool(toolScript("yarn"), ["install", ...YARN_FLAGS()], dir, YARN_ENV);
    },
    remove: (dir, name) => runTool(toolScript("yarn"), ["remove", name, ...YARN_FLAGS()], dir, YARN_ENV),
  },
};

/**
 * The command that installs the package with a package manager, e.g. `pnpm add pulumi-webhook-endpoints`.
 * @param {PackageManager} packageManager
 */
export function addCommand(packageManager) {
  return `${managerFor(packageManager).addCommand} ${PACKAGE_NAME}`;
}

/**
 * @param {PackageManager} packageManager
 * @returns {PackageManagerCommands}
 */
function managerFor(packageManager) {
  const manager = PACKAGE_MANAGERS[packageManager];
  if (manager === undefined)
    throw new Error(`no install command for package manager "${String(packageManager)}"`);
  return manager;
}

/**
 * @typedef {object} ProjectDependencies
 * @property {string} [tarball] the packed package (from packTarball); omitted for a workspace
 *   member that gets the package only through another member (a wrapper library)
 * @property {string} [sdkVersion] the SDK's version or range; default the version this checkout
 *   tests with (its node_modules/@pulumi/pulumi/package.json)
 * @property {boolean} [peerSdk] the SDK as a peer dependency (a library's), not a dependency
 * @property {string[]} [workspaceDependencies] other members of the workspace it depends on, by name
 * @property {Record<string, string>} [extraDependencies] more dependencies, name -> version
 * @property {Record<string, string>} [devDependencies]
 * @property {string} [name] the package.json name; default the directory's name
 * @property {Record<string, unknown>} [manifest] more package.json fields, e.g. `type`, `main`, `version`
 */

/**
 * @typedef {object} Installed
 * @property {string} dir
 * @property {string} packageVersion the installed pulumi-webhook-endpoints
 * @property {string} packageDir the directory it resolves to from `dir`
 * @property {string} sdkVersion the installed SDK
 */

/**
 * @typedef {object} MemberInstalled
 * @property {string} dir
 * @property {string | undefined} packageVersion for a member whose package.json lists the package
 * @property {string | undefined} packageDir
 * @property {string | undefined} sdkVersion for a member whose package.json lists the SDK (as a
 *   dependency or a peer)
 */

/**
 * Writes `dir/package.json` with the tarball, the SDK and any other dependencies.
 * @param {string} dir
 * @param {ProjectDependencies} deps
 * @param {PackageManagerCommands} manager
 */
function writeProjectManifest(dir, deps, manager) {
  mkdirSync(dir, { recursive: true });
  const sdk = deps.sdkVersion ?? repoSdkVersion();
  /** @type {Record<string, string>} */
  const dependencies = {};
  if (!deps.peerSdk) dependencies["@pulumi/pulumi"] = sdk;
  if (deps.tarball !== undefined) dependencies[PACKAGE_NAME] = `file:${deps.tarball}`;
  for (const member of deps.workspaceDependencies ?? []) dependencies[member] = manager.workspaceRange;
  const manifest = {
    name: deps.name ?? dir.split("/").pop(),
    private: true,
    ...deps.manifest,
    dependencies: { ...dependencies, ...deps.extraDependencies },
    ...(deps.peerSdk ? { peerDependencies: { "@pulumi/pulumi": sdk } } : {}),
    ...(deps.devDependencies ? { devDependencies: deps.devDependencies } : {}),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Installs the tarball (and the SDK) into `dir`, as a user would. Other packages already in
 * `dir/node_modules` are kept; the package itself is always reinstalled, and the installed copy is
 * checked file by file against the tarball, so a new tarball at the same path is never mistaken
 * for the old one (a package manager's cache included).
 * @param {string} dir
 * @param {ProjectDependencies & { tarball: string, packageManager?: PackageManager }} options
 * @returns {Installed}
 */
export function installProject(dir, options) {
  const packageManager = options.packageManager ?? "npm";
  writeProjectManifest(dir, options, managerFor(packageManager));
  install(dir, packageManager);
  const result = installed(dir, dir, options);
  if (
    result.packageVersion === undefined ||
    result.packageDir === undefined ||
    result.sdkVersion === undefined
  ) {
    throw new Error(`${dir}: the package or the SDK was not installed`);
  }
  return {
    dir,
    packageVersion: result.packageVersion,
    packageDir: result.packageDir,
    sdkVersion: result.sdkVersion,
  };
}

/**
 * Installs projects that are members of one workspace at `root` (npm and Yarn hoist dependencies
 * to `root/node_modules`; pnpm keeps its store there), e.g. a Pulumi project inside a monorepo, or
 * a program and the wrapper library it gets the package through.
 * @param {string} root
 * @param {{ members: Record<string, ProjectDependencies>, packageManager?: PackageManager }} options
 *   members: directory relative to `root` -> its dependencies
 * @returns {MemberInstalled[]} one per member, in order
 */
export function installWorkspace(root, options) {
  const packageManager = options.packageManager ?? "npm";
  const manager = managerFor(packageManager);
  mkdirSync(root, { recursive: true });
  const members = Object.keys(options.members);
  const manifest = {
    name: root.split("/").pop(),
    private: true,
    ...(manager.workspaces === "package.json" ? { workspaces: members } : {}),
  };
  writeFileSync(join(root, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  if (manager.workspaces === "pnpm-workspace.yaml") {
    writeFileSync(
      join(root, "pnpm-workspace.yaml"),
      `packages:\n${members.map((m) => `  - ${JSON.stringify(m)}\n`).join("")}`,
    );
  }
  for (const [member, deps] of Object.entries(options.members))
    writeProjectManifest(join(root, member), deps, manager);
  install(
    root,
    packageManager,
    members.map((m) => join(root, m)),
  );
  return members.map((m) =>
    installed(join(root, m), root, /** @type {ProjectDependencies} */ (options.members[m])),
  );
}

/**
 * `installProject` in a child Node process: the same install and checks, while the caller's event
 * loop stays free (installs mostly wait on the registry and the disk, so several can overlap).
 * @param {string} dir
 * @param {Parameters<typeof installProject>[1]} options
 * @returns {Promise<Installed>}
 */
export async function installProjectAsync(dir, options) {
  return /** @type {Installed} */ (await inChildProcess("installProject", [dir, options]));
}

/**
 * `installWorkspace` in a child Node process (see installProjectAsync).
 * @param {string} root
 * @param {Parameters<typeof installWorkspace>[1]} options
 * @returns {Promise<MemberInstalled[]>}
 */
export async function installWorkspaceAsync(root, options) {
  return /** @type {MemberInstalled[]} */ (await inChildProcess("installWorkspace", [root, options]));
}

/**
 * Calls an export of this module in a child Node process with JSON arguments; resolves to its
 * JSON result, or rejects with the end of what the child printed on stderr.
 * @param {"installProject" | "installWorkspace"} name
 * @param {unknown[]} args
 * @returns {Promise<unknown>}
 */
async function inChildProcess(name, args) {
  const code = `import(${JSON.stringify(import.meta.url)}).then((m) => process.stdout.write(JSON.stringify(m[${JSON.stringify(name)}](...JSON.parse(process.argv[1])))))`;
  const result = await runProcess(process.execPath, ["-e", code, JSON.stringify(args)], { cwd: REPO });
  if (result.code !== 0) {
    throw new Error(
      `${name}(${JSON.stringify(args[0])}) failed (exit ${result.code}${result.error ? `, ${result.error}` : ""}):\n${result.stderr.slice(-FAILURE_TAIL)}`,
    );
  }
  return parseJson(result.stdout);
}

/**
 * Uninstalls the package from a project with its package manager, as a user would, and checks
 * that no copy of it is left in the project where its programs or the provider could load it.
 * @param {string} dir
 * @param {{ packageManager?: PackageManager }} [options]
 */
export function removePackage(dir, options = {}) {
  managerFor(options.packageManager ?? "npm").remove(dir, PACKAGE_NAME);
  const left = installedCopies(dir, PACKAGE_NAME);
  if (left.length > 0)
    throw new Error(`${PACKAGE_NAME} was removed from ${dir} but copies remain: ${left.join(", ")}`);
}

/**
 * @param {string} root where the install runs
 * @param {PackageManager} packageManager
 * @param {string[]} [members] workspace members, whose own node_modules may hold the package too
 */
function install(root, packageManager, members = []) {
  const manager = managerFor(packageManager);
  for (const dir of [root, ...members])
    rmSync(join(dir, "node_modules", PACKAGE_NAME), { recursive: true, force: true });
  rmSync(join(root, manager.lockfile), { force: true });
  manager.install(root);
}

/**
 * The versions a project directory resolves, the way its program will, for what its package.json
 * lists. Each must resolve inside `root` (the project, or its workspace): the checkout's own
 * node_modules may be further up, and a program that found the package there would be testing the
 * checkout, not the tarball. The package must be the tarball's content.
 * @param {string} dir
 * @param {string} root
 * @param {ProjectDependencies} deps
 * @returns {MemberInstalled}
 */
function installed(dir, root, deps) {
  const require = createRequire(join(dir, "package.json"));
  /** @param {string} name */
  const resolve = (name) => {
    const file = require.resolve(`${name}/package.json`);
    if (relative(root, file).startsWith(".."))
      throw new Error(
        `${name} resolves from ${dir} to ${file}, outside ${root}: the install did not put it there`,
      );
    return { dir: dirname(file), version: /** @type {{ version: string }} */ (readJson(file)).version };
  };
  const pkg = deps.tarball === undefined ? undefined : resolve(PACKAGE_NAME);
  if (pkg !== undefined && deps.tarball !== undefined) assertTarballContent(pkg.dir, deps.tarball);
  return {
    dir,
    packageVersion: pkg?.version,
    packageDir: pkg?.dir,
    sdkVersion: resolve("@pulumi/pulumi").version,
  };
}

/**
 * Throws unless every file of the tarball is in `packageDir` with the same bytes.
 * @param {string} packageDir
 * @param {string} tarball
 */
function assertTarballContent(packageDir, tarball) {
  const scratch = mkdtempSync(join(tmpdir(), "pwe-tarball-"));
  try {
    execFileSync("tar", ["-xzf", tarball, "-C", scratch]);
    const differing = differingFiles(join(scratch, "package"), packageDir);
    if (differing.length > 0) {
      throw new Error(
        `${packageDir} is not what ${tarball} holds (${differing.slice(0, 3).join(", ")}${differing.length > 3 ? ", …" : ""} differ): a package manager installed an older copy`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The files below `expected` that `actual` lacks or holds with other bytes, relative to both.
 * @param {string} expected
 * @param {string} actual
 * @returns {string[]}
 */
function differingFiles(expected, actual) {
  /** @type {string[]} */
  const differing = [];
  /** @param {string} sub */
  const walk = (sub) => {
    for (const entry of readdirSync(join(expected, sub), { withFileTypes: true })) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        !existsSync(join(actual, path)) ||
        !readFileSync(join(expected, path)).equals(readFileSync(join(actual, path)))
      )
        differing.push(path);
    }
  };
  walk("");
  return differing;
}

/**
 * Every directory under `dir/node_modules` that holds an installed copy of the package `name`:
 * nested node_modules (npm, Yarn) and pnpm's virtual store included, symbolic links not followed
 * (a pnpm or workspace link is not a copy). Exactly one @pulumi/pulumi is what a program needs:
 * a second copy under the package would hold its own runtime state and gRPC classes.
 * @param {string} dir
 * @param {string} name e.g. "@pulumi/pulumi"
 * @returns {string[]}
 */
export function installedCopies(dir, name) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} nodeModules */
  const visit = (nodeModules) => {
    if (!existsSync(nodeModules)) return;
    for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(nodeModules, entry.name);
      if (entry.name === ".pnpm") {
        for (const stored of readdirSync(path, { withFileTypes: true }))
          if (stored.isDirectory()) visit(join(path, stored.name, "node_modules"));
      } else if (entry.name.startsWith("@")) {
        for (const scoped of readdirSync(path, { withFileTypes: true }))
          if (scoped.isDirectory()) packageAt(join(path, scoped.name), `${entry.name}/${scoped.name}`);
      } else {
        packageAt(path, entry.name);
      }
    }
  };
  /**
   * @param {string} path
   * @param {string} packageName
   */
  const packageAt = (path, packageName) => {
    if (packageName === name) found.push(path);
    visit(join(path, "node_modules"));
  };
  visit(join(dir, "node_modules"));
  return found;
}
