// The generated Go and Python SDKs driven by the real engine: each an Automation API inline program
// (test/e2e/programs/go-auto, test/e2e/programs/python-auto) whose program runs in its own process, so no Go or
// Python language host is needed. Both run the same lifecycle against three emulators (the default provider's
// service and two explicit providers' services), with the plugin installed from the archive and a PATH holding
// the Pulumi CLI and no node. The expectations come from the README's "What happens on each command" and
// docs/lifecycle.md: one create per endpoint, a URL change is a replacement that leaves the old endpoint on
// the service, refresh drops what the service lost, import recovers
// the secret, destroy leaves every endpoint on the service and says so, signSecret always a secret.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSPHRASE } from "../../scripts/harness/pulumi.mjs";
import { runProcess, type RunResult } from "../../scripts/harness/process.mjs";
import { startEmulator, type Emulator } from "../../src/emulator";
import { E2E_DIR, REPO } from "./paths";
import { installPlugin, noNodeBin, nodeOn, pathWarnings } from "./plugin";
import { isSecretValue, backendFor, leaks, readTree } from "./support";

type Step = "up" | "preview" | "refresh" | "destroy";
type Config = Record<string, { value: string | null; secret: boolean }>;
interface Report {
  step: Step;
  changes: Record<string, number>;
  outputs: Record<string, { secret: boolean; value?: unknown; sha256?: string }>;
}
/** Runs one step of a lifecycle program with this environment; resolves to what it ran. */
type Runner = (step: Step, env: Record<string, string>) => Promise<RunResult>;

const ENDPOINT_TYPE = "webhooks:index:WebhookEndpoint";
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const cacheDir =
  process.env.PWE_CACHE_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? "/root", ".cache"), "pulumi-webhook-endpoints");

/** The Go program, built once per run (the engine build leaves most of sdk/v3 in Go's build cache). */
async function goRunner(): Promise<Runner> {
  const go = existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : "go";
  const binary = join(E2E_DIR, "go-auto", "lifecycle");
  const build = await runProcess(go, ["build", "-o", binary, "."], {
    cwd: join(REPO, "test", "e2e", "programs", "go-auto"),
    env: { GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local", GOWORK: "off" },
  });
  if (build.code !== 0) throw new Error(`go build of the lifecycle program failed:\n${build.output}`);
  console.log(`go build of test/e2e/programs/go-auto: ${build.ms} ms`);
  return (step, env) => runProcess(binary, [step], { cwd: E2E_DIR, env });
}

/**
 * A virtual environment with `pulumi` of the CLI's version line from PyPI and the generated SDK (pip install
 * sdk/python), kept in the cache under a hash of both, so it is made again only when either changes.
 */
async function pythonRunner(): Promise<Runner> {
  const version = /v?(\d+)\.(\d+)\.\d+/.exec(
    (await runProcess("pulumi", ["version"], { cwd: E2E_DIR })).stdout,
  );
  if (!version) throw new Error("cannot read `pulumi version`");
  const requirement = `pulumi>=${version[1]}.${version[2]}.0,<${version[1]}.${Number(version[2]) + 1}`;
  const sdk = join(REPO, "sdk", "python");
  const hash = createHash("sha256").update(requirement);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (entry.name === "__pycache__" || entry.name.endsWith(".egg-info") || entry.name === "build")
        continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(path.slice(sdk.length)).update(readFileSync(path));
    }
  };
  walk(sdk);
  const venv = join(cacheDir, "python-auto", hash.digest("hex").slice(0, 16));
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) {
    const partial = `${venv}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(join(cacheDir, "python-auto"), { recursive: true });
    const made = await runProcess("python3", ["-m", "venv", partial], { cwd: E2E_DIR });
    // Installed from a copy: setuptools builds in the source tree (build/ and an .egg-info beside pyproject.toml).
    const copy = join(E2E_DIR, "python-auto", "sdk");
    rmSync(copy, { recursive: true, force: true });
    cpSync(sdk, copy, { recursive: true });
    const pip =
      made.code === 0
        ? await runProcess(
            join(partial, "bin", "pip"),
            ["install", "--disable-pip-version-check", "--no-input", "-q", requirement, copy],
            { cwd: E2E_DIR },
          )
        : made;
    if (pip.code !== 0)
      throw new Error(`making the Python environment (${requirement} and sdk/python) failed:\n${pip.output}`);
    console.log(`python venv with ${requirement} and sdk/python: ${made.ms + pip.ms} ms`);
    // The venv's scripts name its directory: it is used from where it was made, so make it there and rename the whole.
    renameSync(partial, venv);
  }
  const program = join(REPO, "test", "e2e", "programs", "python-auto", "lifecycle.py");
  return (step, env) => runProcess(python, [program, step], { cwd: E2E_DIR, env });
}

/** Every resource of the stack in the file backend, and the checkpoint's text. */
function checkpoint(stateDir: string): {
  resources: {
    type: string;
    id?: string;
    urn: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  }[];
  text: string;
} {
  const stacks = join(stateDir, ".pulumi", "stacks");
  for (const project of existsSync(stacks) ? readdirSync(stacks) : []) {
    const file = join(stacks, project, "dev.json");
    if (!existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    const parsed = JSON.parse(text) as {
      checkpoint: {
        latest?: {
          resources?: { type: string; id?: string; urn: string; outputs?: Record<string, unknown> }[];
        };
      };
    };
    return { resources: parsed.checkpoint.latest?.resources ?? [], text };
  }
  throw new Error(`no checkpoint of stack dev under ${stacks}`);
}

function describeLifecycle(language: "Go" | "Python", makeRunner: () => Promise<Runner>): void {
  describe(`the ${language} SDK through the engine: an Automation API inline program`, () => {
    const suffix = language.toLowerCase();
    const tokens = {
      main: `${suffix}_main_token_7e1f`,
      eu: `${suffix}_eu_token_2c9a`,
      us: `${suffix}_us_token_9b4d`,
    };
    const backend = backendFor(`sdk-${suffix}`);
    const workDir = join(backend.dir, "work");
    const output: string[] = [];
    let run: Runner;
    let main: Emulator;
    let eu: Emulator;
    let us: Emulator;
    let config: Config;

    async function step(name: Step, changes: Config = {}): Promise<{ report: Report; result: RunResult }> {
      config = { ...config, ...changes };
      const result = await run(name, {
        PATH: noNodeBin(),
        PULUMI_HOME: backend.home,
        PULUMI_BACKEND_URL: backend.backendUrl,
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        LIFECYCLE_WORK_DIR: workDir,
        LIFECYCLE_CONFIG: JSON.stringify(config),
      });
      output.push(result.output);
      if (result.code !== 0)
        throw new Error(`${language} lifecycle ${name} failed (${result.code}):\n${result.output}`);
      console.log(`${language} ${name}: ${result.ms} ms`);
      return { report: JSON.parse(result.stdout.trim().split("\n").pop()!) as Report, result };
    }
    const endpoints = () =>
      checkpoint(backend.backendUrl.slice("file://".length)).resources.filter(
        (r) => r.type === ENDPOINT_TYPE,
      );
    const stateText = () => checkpoint(backend.backendUrl.slice("file://".length)).text;

    beforeAll(async () => {
      [main, eu, us] = await Promise.all([
        startEmulator({ accessToken: tokens.main }),
        startEmulator({ accessToken: tokens.eu }),
        startEmulator({ accessToken: tokens.us }),
      ]);
      mkdirSync(workDir, { recursive: true });
      await installPlugin(backend.home);
      run = await makeRunner();
      config = {
        "webhooks:baseUrl": { value: main.url, secret: false },
        "webhooks:accessToken": { value: tokens.main, secret: true },
        ordersUrl: { value: "https://example.com/hooks/orders", secret: false },
        euBaseUrl: { value: eu.url, secret: false },
        euToken: { value: tokens.eu, secret: true },
        usBaseUrl: { value: us.url, secret: false },
        usToken: { value: tokens.us, secret: true },
      };
    });
    afterAll(async () => {
      await Promise.all([main?.close(), eu?.close(), us?.close()]);
    });

    it("up, with no node on PATH: one create per endpoint on each service; the explicit providers keep equal ids apart; signSecret secret", async () => {
      expect(await nodeOn(noNodeBin())).toBeUndefined();
      const { report } = await step("up");
      expect([main.counters().create, eu.counters().create, us.counters().create]).toEqual([1, 1, 1]);
      expect(main.records().map((r) => [r.webhook_name, r.webhook_url])).toEqual([
        ["orders", "https://example.com/hooks/orders"],
      ]);
      expect(eu.records().map((r) => r.webhook_url)).toEqual(["https://example.com/hooks/eu"]);
      expect(us.records().map((r) => r.webhook_url)).toEqual(["https://example.com/hooks/us"]);
      expect(report.outputs.ordersId).toEqual({ secret: false, value: main.records()[0]!.webhook_id });
      expect(report.outputs.ordersSecret).toEqual({
        secret: true,
        sha256: sha256(main.records()[0]!.sign_secret),
      });
      expect(report.outputs.euId?.value).toBe(eu.records()[0]!.webhook_id);
      expect(report.outputs.usId?.value).toBe(us.records()[0]!.webhook_id);
      const held = endpoints();
      expect(held.map((r) => r.id).sort()).toEqual(
        [main, eu, us].map((e) => String(e.records()[0]!.webhook_id)).sort(),
      );
      for (const r of held) expect(isSecretValue(r.outputs?.signSecret)).toBe(true);
      // The engine records the plugin version the SDK asks for in each provider's state (package.json's), for
      // the default provider and the explicit ones alike.
      const providers = checkpoint(backend.backendUrl.slice("file://".length)).resources.filter(
        (r) => r.type === "pulumi:providers:webhooks",
      ) as { urn: string; inputs?: Record<string, unknown> }[];
      expect(
        providers.map((p) => [p.urn.split("::").pop()!.replace(/_.*/, ""), p.inputs?.version]).sort(),
      ).toEqual([
        ["default", VERSION],
        ["eu", VERSION],
        ["us", VERSION],
      ]);
      expect(
        leaks(
          [...Object.values(tokens), ...[main, eu, us].map((e) => e.records()[0]!.sign_secret)],
          [stateText()],
        ),
      ).toEqual([]);
    });

    it("preview expects no changes", async () => {
      const { report } = await step("preview");
      expect(Object.keys(report.changes)).toEqual(["same"]);
    });

    it("a changed URL replaces the endpoint; the old one stays on the service and the run says so", async () => {
      const old = main.records()[0]!;
      const { report, result } = await step("up", {
        ordersUrl: { value: "https://example.com/hooks/orders-v2", secret: false },
      });
      expect(report.changes.replace).toBe(1);
      expect(main.records().map((r) => r.webhook_url)).toEqual([
        "https://example.com/hooks/orders",
        "https://example.com/hooks/orders-v2",
      ]);
      expect(main.counters().create).toBe(2);
      expect(result.output).toContain(
        `webhook endpoint ${old.webhook_id} ("orders") still exists on the service`,
      );
      expect(report.outputs.ordersSecret?.sha256).toBe(sha256(main.records()[1]!.sign_secret));
    });

    it("refresh drops an endpoint the service lost; the next up creates it again, once", async () => {
      us.removeRecord(us.records()[0]!.webhook_id);
      const { report } = await step("refresh");
      expect(report.changes.delete).toBe(1);
      expect(endpoints()).toHaveLength(2);
      const again = await step("up");
      expect(again.report.changes.create).toBe(1);
      expect(us.counters().create).toBe(2);
      expect(us.records()).toHaveLength(1);
      expect(again.report.outputs.usId?.value).toBe(us.records()[0]!.webhook_id);
    });

    it("the import option brings an existing endpoint in with its secret, encrypted in state, without a create", async () => {
      const legacy = main.addRecord({
        webhook_name: "legacy",
        webhook_url: "https://example.com/hooks/legacy",
      });
      const creates = main.counters().create;
      const { report } = await step("up", { legacyId: { value: String(legacy.webhook_id), secret: false } });
      expect(report.changes.import).toBe(1);
      expect(main.counters().create).toBe(creates);
      expect(report.outputs.legacyId?.value).toBe(legacy.webhook_id);
      expect(report.outputs.legacySecret).toEqual({ secret: true, sha256: sha256(legacy.sign_secret) });
      const imported = endpoints().find((r) => r.id === String(legacy.webhook_id));
      expect(isSecretValue(imported?.outputs?.signSecret)).toBe(true);
      expect(stateText()).not.toContain(legacy.sign_secret);
      expect(Object.keys((await step("preview")).report.changes)).toEqual(["same"]);
    });

    it("destroy empties the state, leaves every endpoint on the service, and names each", async () => {
      const held = endpoints();
      const before = [main, eu, us].map((e) => e.records().length);
      const { report, result } = await step("destroy");
      expect(report.changes.delete).toBeGreaterThanOrEqual(held.length);
      expect(endpoints()).toEqual([]);
      expect([main, eu, us].map((e) => e.records().length)).toEqual(before);
      for (const r of held) expect(result.output).toContain(`webhook endpoint ${r.id} `);
    });

    it("no run took the plugin from PATH, and nothing secret appears in what the runs printed or left", () => {
      expect(pathWarnings(output.join("\n"))).toBe(0);
      const secrets = [
        ...Object.values(tokens),
        ...[main, eu, us].flatMap((e) => e.records().map((r) => r.sign_secret)),
      ];
      expect(leaks(secrets, [...output, readTree(backend.dir)])).toEqual([]);
    });
  });
}

describeLifecycle("Go", goRunner);
describeLifecycle("Python", pythonRunner);
