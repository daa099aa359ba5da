// "Works every way Pulumi users work" (docs/dynamic-resource.md, "Package managers"): the packed tarball
// installed with pnpm (directly,
// and through a wrapper library in a pnpm workspace), Yarn classic, and npm (TypeScript CommonJS,
// ES module, plain JavaScript, an npm workspace), driven by the Automation API (inline and local
// programs), with the oldest and the newest supported @pulumi/pulumi, and with the package removed
// from a project whose stack still holds endpoints. Every case runs the real Pulumi CLI against
// the emulator over HTTP with a file backend.
//
// Where the projects live: the npm cases that need nothing but the package, the SDK and
// TypeScript run below the e2e base project (test/e2e/setup.ts installed the tarball there, as the
// other engine tests use it); every other install is a project of its own in a temporary directory
// outside the checkout, so nothing can resolve from the checkout's node_modules by accident.
// Those installs run in the background (child processes) from the start, while the base-project
// cases run; each case awaits its own install. One tarball (the global setup's) serves them all.
//
// Tiers (test/support/tier.mts): npm test runs one row for each package manager, module format and
// SDK end (npm with an ES module and with plain JavaScript on the newest SDK, pnpm and Yarn with
// TypeScript, npm with TypeScript on the oldest SDK), then destroys what they deployed; npm run
// test:deep runs every row, and removes the package from the pnpm, Yarn and oldest-SDK projects
// before destroying.
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type WebhookRecord } from "../../src/emulator";
import {
  addCommand,
  installProjectAsync,
  installWorkspaceAsync,
  installedCopies,
  removePackage,
  type Installed,
  type MemberInstalled,
  type PackageManager,
} from "../../scripts/harness/pack.mjs";
import { PASSPHRASE } from "../../scripts/harness/pulumi.mjs";
import { runProcess } from "../../scripts/harness/process.mjs";
import { PACKAGE_NAME, readJson, repoSdkVersion, repoVersion } from "../../scripts/harness/repo.mjs";
import { TIER } from "../support/tier.mjs";
import { BASE_DIR, PACK_DIR, REPO } from "./paths";
import { Project, isSecretValue, backendFor, leaks, readTree, transcript, webhookResources } from "./support";

const TOKEN = "e2e_tok_setups_5b2f8c41d7e9";
const FIXTURES = join(REPO, "test", "e2e", "programs", "setups");
const QUICKSTART = join(REPO, "examples", "quickstart");

/** The SDK range the package declares (package.json: "^3.216.0"), and its lower bound. */
const SDK_RANGE = readJson<{ dependencies: Record<string, string> }>(join(REPO, "package.json")).dependencies[
  "@pulumi/pulumi"
]!;
const OLDEST_SDK = /^\^(\d+\.\d+\.\d+)$/.exec(SDK_RANGE)?.[1];
/** The newest SDK: what this checkout's lockfile installs (3.270.0), and what the e2e base project has. */
const NEWEST_SDK = repoSdkVersion();
/**
 * The TypeScript for a program on the oldest SDK: @pulumi/pulumi before 3.229.0 declares
 * `typescript >= 3.8.3 < 6` as its peer (npm refuses TypeScript 6 next to it with ERESOLVE), so
 * such a user has TypeScript 5.
 */
const TYPESCRIPT_5 = "5.9.3";
/** What the TypeScript programs compile with: the checkout's TypeScript and Node types. */
const TS_DEV_DEPENDENCIES = {
  typescript: repoVersion("typescript"),
  "@types/node": repoVersion("@types/node"),
};
interface PreviewJson {
  changeSummary?: Record<string, number>;
}

interface DriverReport {
  mode: string;
  workDir: string;
  up: {
    result: string;
    changes: Record<string, number>;
    outputs: Record<string, { secret: boolean; sha256?: string; value?: unknown }>;
  };
  outputs: Record<string, { secret: boolean; sha256?: string; value?: unknown }>;
  preview: Record<string, number>;
  refresh: { result: string; changes: Record<string, number> };
  idsAfterRefresh: string[];
  destroy: { result: string; changes: Record<string, number> };
  idsAfterDestroy: string[];
  sdk: { version: string; script: string; package: string };
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const noop = () => undefined;

/** Runs at most `n` of the functions given to it at once, the others in turn as slots free up. */
function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running < n) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

describe("every way Pulumi users work: package managers, module formats, workspaces, Automation API, SDK versions", () => {
  let emulator: Emulator;
  let scratch: string;
  let tarball: string;
  /** Every backend directory used, for the plaintext sweep. */
  const backends: string[] = [];
  /** What the Automation API drivers printed, for the plaintext sweep. */
  const driverOutput: string[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    scratch = mkdtempSync(join(tmpdir(), "pwe-setups-"));
    // The one tarball the global setup packed: every case installs it.
    const packed = readdirSync(PACK_DIR).filter((f) => f.endsWith(".tgz"));
    expect(packed).toHaveLength(1);
    tarball = join(PACK_DIR, packed[0]!);
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A fresh file backend and PULUMI_HOME for one case. */
  function backendEnv(suite: string): Record<string, string> {
    const backend = backendFor(`setups-${suite}`);
    backends.push(backend.dir);
    return backend.env;
  }

  function recordsNamed(name: string): WebhookRecord[] {
    return emulator.records().filter((r) => r.webhook_name === name);
  }

  async function initStack(project: Project, webhookName: string): Promise<void> {
    await project.ok(["stack", "init", "dev"]);
    await project.ok([
      "config",
      "set-all",
      "--plaintext",
      `webhooks:baseUrl=${emulator.url}`,
      "--plaintext",
      `webhookName=${webhookName}`,
      "--plaintext",
      `webhookUrl=https://example.com/hooks/${webhookName}`,
      "--secret",
      `webhooks:accessToken=${TOKEN}`,
    ]);
  }

  /** The state holds exactly this endpoint, its signSecret as a ciphertext, no plaintext secret or token. */
  async function expectStateHolds(project: Project, record: WebhookRecord): Promise<void> {
    const state = await project.exportState();
    const hooks = webhookResources(state);
    expect(hooks.map((h) => h.id)).toEqual([String(record.webhook_id)]);
    const signSecret = hooks[0]!.outputs?.signSecret as Record<string, unknown>;
    expect(isSecretValue(signSecret)).toBe(true);
    expect(typeof signSecret.ciphertext).toBe("string");
    // Compared as booleans: a failed assertion must not print the secret it looked for.
    expect(state.text.includes(record.sign_secret), "signSecret in plaintext in the state").toBe(false);
    expect(state.text.includes(TOKEN), "the token in plaintext in the state").toBe(false);
  }

  /**
   * The core lifecycle up to a deployed stack: preview (two creates, nothing created on the
   * service), up (exactly one endpoint created), outputs (signSecret secret, the right value on
   * request), preview with no changes, refresh with no changes, the state's secret. Each case has
   * its own endpoint name, so cases running at once do not see each other's endpoints.
   * Returns the endpoint the service holds.
   */
  async function deploy(project: Project, webhookName: string): Promise<WebhookRecord> {
    await initStack(project, webhookName);
    const preview = JSON.parse((await project.ok(["preview", "--json"])).stdout) as PreviewJson;
    expect(preview.changeSummary).toEqual({ create: 2 });
    expect(recordsNamed(webhookName).map((r) => r.webhook_id)).toEqual([]);
    await project.ok(["up", "--yes", "--skip-preview"]);
    const created = recordsNamed(webhookName);
    expect(created.map((r) => r.webhook_id)).toHaveLength(1); // ids only: a record holds its signing secret
    const record = created[0]!;
    const outputs = await project.outputs();
    expect(outputs.webhookId).toBe(record.webhook_id);
    expect(outputs.signSecret).toBe("[secret]");
    // The revealed value is the service's signing secret (compared by hash, never printed).
    expect(sha256(String((await project.outputs(true)).signSecret))).toBe(sha256(record.sign_secret));
    await project.ok(["preview", "--expect-no-changes"]);
    await project.ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await expectStateHolds(project, record);
    expect(recordsNamed(webhookName).map((r) => r.webhook_id)).toEqual([record.webhook_id]);
    return record;
  }

  /** destroy: the state is empty; the endpoint stays on the service (the API cannot delete). */
  async function destroy(project: Project, record: WebhookRecord): Promise<void> {
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(webhookResources(await project.exportState())).toEqual([]);
    expect(emulator.records().map((r) => r.webhook_id)).toContain(record.webhook_id);
  }

  async function lifecycle(project: Project, webhookName: string): Promise<void> {
    await destroy(project, await deploy(project, webhookName));
  }

  /** The copies of @pulumi/pulumi an install holds: exactly one, none nested under the package. */
  function expectOneSdk(root: string): void {
    const copies = installedCopies(root, "@pulumi/pulumi");
    expect(copies, copies.join("\n")).toHaveLength(1);
    expect(copies[0]).not.toContain(`${PACKAGE_NAME}/node_modules`);
  }

  /**
   * The package removed from a deployed project (its stack holds `record`): refresh and destroy
   * fail with the provider's message, naming the package and the project's install command, not a
   * module-loader stack, with no API call and the state untouched. Reinstalled as the message
   * says, destroy works.
   */
  async function removedThenReinstalled(
    project: Project,
    dir: string,
    packageManager: PackageManager,
    record: WebhookRecord,
    reinstall: () => Promise<unknown>,
  ): Promise<void> {
    removePackage(dir, { packageManager });
    expect(() => createRequire(join(dir, "package.json")).resolve(PACKAGE_NAME)).toThrow();
    const calls = emulator.counters().total;
    for (const command of [
      ["refresh", "--yes", "--skip-preview"],
      ["destroy", "--yes", "--skip-preview"],
    ]) {
      const result = await project.run(command);
      expect(result.code, command.join(" ")).not.toBe(0);
      const printed = result.stdout + result.stderr;
      expect(printed).toContain(
        `${PACKAGE_NAME} is not installed where the program runs (${realpathSync(dir)})`,
      );
      expect(printed).toContain(addCommand(packageManager));
      expect(printed).not.toMatch(/MODULE_NOT_FOUND|Cannot find module|Require stack/);
    }
    expect(emulator.counters().total).toBe(calls);
    await expectStateHolds(project, record);
    await reinstall();
    await destroy(project, record);
  }

  // The projects that need installs of their own, and the installs: started in beforeAll, in the
  // background (child processes), while the cases that use the e2e base project run first.
  const dirs = {
    pnpm: () => join(scratch, "pnpm-direct"),
    pnpmWorkspace: () => join(scratch, "pnpm-workspace"),
    yarn: () => join(scratch, "yarn"),
    npmWorkspace: () => join(scratch, "npm-workspace"),
    oldest: () => join(scratch, "npm-oldest-sdk"),
  };
  const install = {
    pnpm: () =>
      installProjectAsync(dirs.pnpm(), {
        tarball,
        packageManager: "pnpm",
        devDependencies: TS_DEV_DEPENDENCIES,
      }),
    pnpmWorkspace: () =>
      installWorkspaceAsync(dirs.pnpmWorkspace(), {
        packageManager: "pnpm",
        members: {
          "my-wrapper": {
            tarball,
            peerSdk: true,
            sdkVersion: SDK_RANGE,
            name: "my-wrapper",
            manifest: { version: "1.0.0", main: "index.js" },
          },
          program: { name: "setups-wrapper-program", workspaceDependencies: ["my-wrapper"] },
        },
      }),
    // Yarn 1 resolves each range on its own, so a program pinning an SDK older than the newest the
    // package's range allows may get a second copy nested under the package; its documented cure,
    // resolutions, is what a Yarn 1 user writes (dynamic-resource.md).
    yarn: () =>
      installProjectAsync(dirs.yarn(), {
        tarball,
        packageManager: "yarn",
        devDependencies: TS_DEV_DEPENDENCIES,
        manifest: { resolutions: { "@pulumi/pulumi": NEWEST_SDK } },
      }),
    npmWorkspace: () =>
      installWorkspaceAsync(dirs.npmWorkspace(), {
        members: { infra: { tarball, devDependencies: TS_DEV_DEPENDENCIES, name: "infra" } },
      }),
    oldest: () =>
      installProjectAsync(dirs.oldest(), {
        tarball,
        sdkVersion: OLDEST_SDK!,
        devDependencies: { typescript: TYPESCRIPT_5, "@types/node": repoVersion("@types/node") },
      }),
  };
  const installing: {
    pnpm?: Promise<Installed>;
    pnpmWorkspace?: Promise<MemberInstalled[]>;
    yarn?: Promise<Installed>;
    npmWorkspace?: Promise<MemberInstalled[]>;
    oldest?: Promise<Installed>;
  } = {};
  const projects: Record<"pnpm" | "yarn" | "npmWorkspace" | "oldest", Project> = {} as never;

  beforeAll(() => {
    projects.pnpm = Project.create(QUICKSTART, dirs.pnpm(), { env: backendEnv("pnpm-direct"), transcript });
    cpSync(join(FIXTURES, "wrapper"), dirs.pnpmWorkspace(), { recursive: true });
    projects.yarn = Project.create(QUICKSTART, dirs.yarn(), { env: backendEnv("yarn"), transcript });
    projects.npmWorkspace = Project.create(QUICKSTART, join(dirs.npmWorkspace(), "infra"), {
      env: backendEnv("npm-workspace"),
      transcript,
    });
    // The example's tsconfig says ignoreDeprecations "6.0", which only TypeScript 6 accepts.
    const tsconfig = JSON.parse(readFileSync(join(QUICKSTART, "tsconfig.json"), "utf8")) as {
      compilerOptions: Record<string, unknown>;
    };
    delete tsconfig.compilerOptions.ignoreDeprecations;
    projects.oldest = Project.create(QUICKSTART, dirs.oldest(), {
      env: backendEnv("oldest-sdk"),
      transcript,
      overrides: { "tsconfig.json": `${JSON.stringify(tsconfig, null, 2)}\n` },
    });
    // Three chains at a time (pnpm's store, Yarn's cache and npm's cache each used by one install);
    // the workspaces only for npm run test:deep, which runs their rows.
    const after = (previous: Promise<unknown>) => previous.then(noop, noop);
    installing.pnpm = install.pnpm();
    installing.yarn = install.yarn();
    if (TIER === "deep") {
      installing.pnpmWorkspace = after(installing.pnpm).then(install.pnpmWorkspace);
      installing.npmWorkspace = install.npmWorkspace();
      installing.oldest = after(installing.npmWorkspace).then(install.oldest);
    } else {
      installing.oldest = install.oldest();
    }
    // A failed install is reported by the test that awaits it, not as an unhandled rejection.
    for (const promise of Object.values(installing)) promise.catch(noop);
  });

  /**
   * At most two cases at once: each Pulumi command runs the CLI, a language host, a program and
   * the dynamic provider, about one core's worth on this 2-core machine. A case waits for its
   * install before it takes a slot.
   */
  const slot = limiter(2);
  /** The endpoints the removal tests go on with, by package manager. */
  const deployed: Partial<Record<PackageManager, WebhookRecord>> = {};

  /** A program below the e2e base project, which has the tarball, the newest SDK and TypeScript installed. */
  function baseProject(source: string, id: string, overrides: Record<string, string> = {}): Project {
    const dir = join(BASE_DIR, "projects", `setups-${id}`);
    const resolver = createRequire(join(dir, "package.json"));
    expect(realpathSync(resolver.resolve(`${PACKAGE_NAME}/package.json`))).toBe(
      realpathSync(join(BASE_DIR, "node_modules", PACKAGE_NAME, "package.json")),
    );
    expect(readJson<{ version: string }>(resolver.resolve("@pulumi/pulumi/package.json")).version).toBe(
      NEWEST_SDK,
    );
    return Project.create(source, dir, { env: backendEnv(id), transcript, overrides });
  }

  /** The Automation API driver (programs/setups/automation/driver.cjs) in the user's project `dir`. */
  async function drive(dir: string, mode: "inline" | "local", webhookName: string): Promise<DriverReport> {
    const temp = join(scratch, `automation-${mode}-tmp`);
    mkdirSync(temp, { recursive: true });
    const result = await runProcess(
      process.execPath,
      ["driver.cjs", mode, ...(mode === "local" ? [dir] : [])],
      {
        cwd: dir,
        env: {
          ...backendEnv(`automation-${mode}`),
          PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
          PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
          NO_COLOR: "1",
          // An inline program's workspace is a new directory in the temporary directory.
          TMPDIR: temp,
          DRIVER_PROJECT: `setups-automation-${mode}`,
          DRIVER_BASE_URL: emulator.url,
          DRIVER_TOKEN: TOKEN,
          DRIVER_WEBHOOK_NAME: webhookName,
          DRIVER_WEBHOOK_URL: `https://example.com/hooks/${webhookName}`,
        },
      },
    );
    driverOutput.push(result.output);
    expect(result.code, result.output).toBe(0);
    return JSON.parse(result.stdout.trim().split("\n").pop()!) as DriverReport;
  }

  /** What the driver reported against what the service holds. */
  function expectDriverReport(report: DriverReport, webhookName: string): void {
    const created = recordsNamed(webhookName);
    expect(created.map((r) => r.webhook_id)).toHaveLength(1); // ids only: a record holds its signing secret
    const record = created[0]!;
    expect(report.up.result).toBe("succeeded");
    expect(report.up.changes).toEqual({ create: 2 });
    for (const outputs of [report.up.outputs, report.outputs]) {
      expect(outputs.webhookId).toEqual({ secret: false, value: record.webhook_id });
      expect(outputs.signSecret).toEqual({ secret: true, sha256: sha256(record.sign_secret) });
    }
    expect(report.preview).toEqual({ same: 2 });
    expect(report.refresh.result).toBe("succeeded");
    expect(report.idsAfterRefresh).toEqual([String(record.webhook_id)]);
    expect(report.destroy).toEqual({ result: "succeeded", changes: { delete: 2 } });
    expect(report.idsAfterDestroy).toEqual([]);
    // One @pulumi/pulumi: the script's and the package's are the same file.
    expect(report.sdk.version).toBe(NEWEST_SDK);
    expect(report.sdk.package).toBe(report.sdk.script);
  }

  describe.concurrent("each setup, two at a time", { timeout: 900_000 }, () => {
    // npm, below the e2e base project (no install of their own: these start first).
    it(
      `npm, a TypeScript CommonJS program, with the newest SDK (${NEWEST_SDK}): preview, up, preview without changes, refresh, signSecret a ciphertext in state, destroy`,
      { tags: ["deep"] },
      async () => {
        expectOneSdk(BASE_DIR);
        const project = baseProject(QUICKSTART, "typescript");
        await slot(() => lifecycle(project, "npm-typescript"));
      },
    );

    it(
      'npm, an ES module program (package.json "type": "module"): the same lifecycle',
      { tags: ["budgeted"] },
      async () => {
        const manifest = `${JSON.stringify({ name: "setups-esm", private: true, type: "module" }, null, 2)}\n`;
        const project = baseProject(join(FIXTURES, "esm"), "esm", { "package.json": manifest });
        await slot(() => lifecycle(project, "npm-esm"));
      },
    );

    it("npm, a plain JavaScript program: the same lifecycle", { tags: ["budgeted"] }, async () => {
      const project = baseProject(join(FIXTURES, "javascript"), "javascript");
      await slot(() => lifecycle(project, "npm-javascript"));
    });

    it(
      "Automation API, an inline program (createOrSelectStack with projectName and program), one @pulumi/pulumi in the project: up, preview with no changes (only same), signSecret output secret, refresh, destroy",
      { tags: ["deep"] },
      async () => {
        // The user's project: the e2e base install (exactly one @pulumi/pulumi, none nested under the
        // package) and the script.
        expectOneSdk(BASE_DIR);
        expect(
          existsSync(join(BASE_DIR, "node_modules", PACKAGE_NAME, "node_modules", "@pulumi", "pulumi")),
        ).toBe(false);
        const dir = join(BASE_DIR, "projects", "setups-automation-inline");
        mkdirSync(dir, { recursive: true });
        cpSync(join(FIXTURES, "automation", "driver.cjs"), join(dir, "driver.cjs"));
        const report = await slot(() => drive(dir, "inline", "automation-inline"));
        expect(report.workDir.startsWith(join(scratch, "automation-inline-tmp"))).toBe(true);
        expectDriverReport(report, "automation-inline");
      },
    );

    it(
      "Automation API, a local program (createOrSelectStack with workDir): the same",
      { tags: ["deep"] },
      async () => {
        // The user's project: the plain JavaScript program and the script beside it.
        const dir = join(BASE_DIR, "projects", "setups-automation-local");
        Project.create(join(FIXTURES, "javascript"), dir);
        cpSync(join(FIXTURES, "automation", "driver.cjs"), join(dir, "driver.cjs"));
        const report = await slot(() => drive(dir, "local", "automation-local"));
        expect(report.workDir).toBe(dir);
        expectDriverReport(report, "automation-local");
      },
    );

    // Installs of their own (started in beforeAll).
    it(
      "npm workspaces, the program a member and the package hoisted to the root: the same lifecycle",
      { tags: ["deep"] },
      async () => {
        const root = dirs.npmWorkspace();
        const [member] = await installing.npmWorkspace!;
        expect(member?.packageDir).toBe(join(realpathSync(root), "node_modules", PACKAGE_NAME));
        expect(member?.sdkVersion).toBe(NEWEST_SDK);
        expectOneSdk(root);
        expect(installedCopies(join(root, "infra"), PACKAGE_NAME)).toEqual([]);
        expect(installedCopies(join(root, "infra"), "@pulumi/pulumi")).toEqual([]);
        await slot(() => lifecycle(projects.npmWorkspace, "npm-workspace"));
      },
    );

    it(
      "pnpm, the package a direct dependency (TypeScript program): preview, up, preview without changes, refresh, signSecret a ciphertext in state (destroy: below, after the package is removed and reinstalled)",
      { tags: ["budgeted"] },
      async () => {
        const installed = await installing.pnpm!;
        // pnpm's layout: the package is a link into its virtual store.
        expect(installed.packageDir).toContain(join("node_modules", ".pnpm"));
        expect(installed.sdkVersion).toBe(NEWEST_SDK);
        expectOneSdk(dirs.pnpm());
        deployed.pnpm = await slot(() => deploy(projects.pnpm, "pnpm-direct"));
      },
    );

    it(
      "pnpm, the package a dependency of a wrapper library in a pnpm workspace (not resolvable from the program): preview, up, preview without changes, refresh; refresh and destroy from the workspace moved elsewhere",
      { tags: ["deep"] },
      async () => {
        const root = dirs.pnpmWorkspace();
        const [wrapper, program] = await installing.pnpmWorkspace!;
        expect(wrapper?.packageDir).toContain(join("node_modules", ".pnpm"));
        // The layout where a provider that requires the package from the program's directory fails
        // with "Cannot find module 'pulumi-webhook-endpoints/provider'".
        expect(() => createRequire(join(root, "program", "package.json")).resolve(PACKAGE_NAME)).toThrow();
        expect(program?.sdkVersion).toBe(NEWEST_SDK);
        expectOneSdk(root);
        const project = new Project(join(root, "program"), { env: backendEnv("pnpm-wrapper"), transcript });
        await slot(async () => {
          const record = await deploy(project, "pnpm-wrapper");
          // The same workspace at another path (CI's checkout, a colleague's), installed the same
          // way: the directory the program loaded the package from on `up` is gone, so the provider
          // must find the package through pnpm's store from where the program is now.
          const moved = `${root}-elsewhere`;
          renameSync(root, moved);
          const elsewhere = new Project(join(moved, "program"), { env: project.env, transcript });
          await elsewhere.ok(["stack", "select", "dev"]);
          await elsewhere.ok(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
          await destroy(elsewhere, record);
        });
      },
    );

    it(
      "Yarn classic (node_modules), the package a direct dependency (TypeScript program): preview, up, preview without changes, refresh, signSecret a ciphertext in state (destroy: below)",
      { tags: ["budgeted"] },
      async () => {
        const installed = await installing.yarn!;
        expect(installed.packageDir).toBe(join(realpathSync(dirs.yarn()), "node_modules", PACKAGE_NAME));
        expect(installed.sdkVersion).toBe(NEWEST_SDK);
        expectOneSdk(dirs.yarn());
        deployed.yarn = await slot(() => deploy(projects.yarn, "yarn"));
      },
    );

    it(
      `the oldest supported SDK, ${OLDEST_SDK ?? "?"} (the lower bound of ${SDK_RANGE}), with TypeScript ${TYPESCRIPT_5}, npm: preview, up, preview without changes, refresh, signSecret a ciphertext in state (destroy: below)`,
      { tags: ["budgeted"] },
      async () => {
        expect(SDK_RANGE).toMatch(/^\^3\.\d+\.\d+$/);
        const dir = dirs.oldest();
        const installed = await installing.oldest!;
        expect(installed.sdkVersion).toBe(OLDEST_SDK);
        expect(
          readJson<{ version: string }>(join(dir, "node_modules", "@pulumi", "pulumi", "package.json"))
            .version,
        ).toBe(OLDEST_SDK);
        expectOneSdk(dir);
        deployed.npm = await slot(() => deploy(projects.oldest, "oldest-sdk"));
      },
    );
    // The newest SDK is the e2e base project's: the npm TypeScript CommonJS case runs the same
    // lifecycle and state checks with it and asserts its version.
  });

  // npm test: the rows' stacks destroyed as they are.
  describe("destroy what the rows left deployed", () => {
    it("pnpm, Yarn and npm on the oldest SDK: destroy empties the state and leaves the endpoint on the service", async () => {
      const left = { pnpm: projects.pnpm, yarn: projects.yarn, npm: projects.oldest } as const;
      for (const [manager, project] of Object.entries(left)) {
        const record = deployed[manager as PackageManager];
        expect(record, `the ${manager} stack was not deployed`).toBeDefined();
        await destroy(project, record!);
      }
    });
  });

  // One at a time: these count every API call the emulator receives.
  describe(
    "the package removed from a project whose stack still holds an endpoint",
    { tags: ["deep"] },
    () => {
      it("pnpm (pnpm remove, then a fresh install from the lockfile): refresh and destroy fail naming the package and `pnpm add`; reinstalled, destroy works", async () => {
        expect(deployed.pnpm, "the pnpm stack was not deployed").toBeDefined();
        await removedThenReinstalled(projects.pnpm, dirs.pnpm(), "pnpm", deployed.pnpm!, install.pnpm);
      });

      it("Yarn (yarn remove): refresh and destroy fail naming the package and `yarn add`; reinstalled, destroy works", async () => {
        expect(deployed.yarn, "the Yarn stack was not deployed").toBeDefined();
        await removedThenReinstalled(projects.yarn, dirs.yarn(), "yarn", deployed.yarn!, install.yarn);
      });

      it(`npm, on the oldest SDK (npm uninstall): refresh and destroy fail naming the package and \`npm install\`; reinstalled (SDK ${OLDEST_SDK ?? "?"} still), destroy works`, async () => {
        expect(deployed.npm, "the npm stack on the oldest SDK was not deployed").toBeDefined();
        await removedThenReinstalled(projects.oldest, dirs.oldest(), "npm", deployed.npm!, async () => {
          expect((await install.oldest()).sdkVersion).toBe(OLDEST_SDK);
        });
      });
    },
  );

  it(
    "no token or signing secret appears in plaintext in CLI output, driver output or state on disk",
    { tags: ["budgeted"] },
    () => {
      const secrets = [TOKEN, ...emulator.records().map((r) => r.sign_secret)];
      expect(
        leaks(secrets, [transcript.join("\n"), driverOutput.join("\n"), ...backends.map((b) => readTree(b))]),
      ).toEqual([]);
    },
  );
});
