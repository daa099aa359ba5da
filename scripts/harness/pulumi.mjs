// @ts-check
/**
 * Driving the real Pulumi CLI: one runner, a transcript for the plaintext-secret sweeps, and a
 * `Project` (a real Pulumi project directory with its own backend and environment).
 *
 * The CLI must be on PATH (`source scripts/node-env.sh && source scripts/engine.sh`).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "./process.mjs";
import { parseJson } from "./repo.mjs";

/** The passphrase that encrypts every harness stack's secrets. */
export const PASSPHRASE = "e2e-test-passphrase";
const { runtime: rpc } = await import("@pulumi/pulumi");
/**
 * Whether a value in a state export is a secret: Pulumi's secret wrapper (its signature key holding
 * the secret signature, with `ciphertext` in place of the value), taken from the SDK's own markers.
 * @param {unknown} value
 */
export function isSecretValue(value) {
  return (
    typeof value === "object" &&
    value !== null &&
    /** @type {Record<string, unknown>} */ (value)[rpc.specialSigKey] === rpc.specialSecretSig
  );
}
/** The type token of a WebhookEndpoint (a dynamic resource) in state. */
export const WEBHOOK_RESOURCE_TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";

/** @typedef {import("./process.mjs").RunResult} RunResult */
/** @typedef {Record<string, string | undefined>} Env */

/**
 * @typedef {object} PulumiOptions
 * @property {string} cwd
 * @property {Env} [env] over process.env and the harness defaults (passphrase, NO_COLOR)
 * @property {string[]} [transcript] receives the command line and everything it printed
 * @property {AbortSignal} [signal] aborting kills the CLI with `killSignal`
 * @property {NodeJS.Signals} [killSignal] default SIGTERM
 * @property {boolean} [sample] poll /proc for peak RSS and CPU of the CLI ("engine"), the provider
 *   host ("provider"), the program ("program") and everything else it starts ("other")
 */

/**
 * Runs `pulumi <args> --non-interactive`; never throws, the caller checks `code`.
 * @param {readonly string[]} args
 * @param {PulumiOptions} options
 * @returns {Promise<RunResult>}
 */
export async function runPulumi(args, options) {
  const result = await runProcess("pulumi", [...args, "--non-interactive"], {
    cwd: options.cwd,
    env: {
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
      NO_COLOR: "1",
      ...options.env,
    },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.killSignal ? { killSignal: options.killSignal } : {}),
    ...(options.sample ? { sample: { rootKind: "engine", classify: pulumiProcessKind } } : {}),
  });
  options.transcript?.push(transcriptEntry(args, result));
  return result;
}

/**
 * What a transcript keeps of one run: the command line with any `--secret` value replaced, and
 * what the CLI printed, unless it was asked to show secrets (tests compare those on purpose).
 * @param {readonly string[]} args
 * @param {RunResult} result
 */
function transcriptEntry(args, result) {
  const printed = args.includes("--show-secrets")
    ? "(output with secrets shown on request, not kept)"
    : `${result.output}${result.error ? `\n${result.error}` : ""}`;
  return `$ pulumi ${redactArgs(args).join(" ")}\n${printed}`;
}

/** `config set` flags that take a value, so their value is not mistaken for the key or the value. */
const CONFIG_FLAGS_WITH_VALUE = new Set(["--stack", "-s", "--config-file", "--cwd", "-C", "--type"]);

/**
 * The command line with secret values replaced by `<secret>`: the value of
 * `config set --secret <key> <value>` and of each `--secret <key>=<value>` of `config set-all`.
 * @param {readonly string[]} args
 * @returns {string[]}
 */
function redactArgs(args) {
  if (args[0] !== "config" || !args.includes("--secret")) return [...args];
  if (args[1] === "set-all") {
    return args.map((arg, i) => (args[i - 1] === "--secret" ? arg.replace(/=.*$/s, "=<secret>") : arg));
  }
  if (args[1] !== "set") return [...args];
  // The positionals after "set" are the key and the value (the value may come on stdin instead).
  const positional = [];
  for (let i = 2; i < args.length; i++) {
    const arg = /** @type {string} */ (args[i]);
    if (CONFIG_FLAGS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) positional.push(i);
  }
  const valueAt = positional[1];
  return args.map((arg, i) => (i === valueAt ? "<secret>" : arg));
}

/**
 * The kind of a process below the CLI, from its argv: the node process running the SDK's
 * cmd/dynamic-provider ("provider") or cmd/run ("program"); anything else is undefined ("other").
 * @param {string[]} argv
 * @returns {string | undefined}
 */
function pulumiProcessKind(argv) {
  if (argv.includes("-e") || argv.includes("--eval")) return undefined; // the plugin's require.resolve probe
  for (const arg of argv) {
    if (/cmd\/dynamic-provider(\/index\.js)?$/.test(arg)) return "provider";
    if (/cmd\/run(\/index\.js)?$/.test(arg)) return "program";
  }
  return undefined;
}

/** `pulumi version`, or undefined when the CLI is not on PATH. */
export function pulumiVersion() {
  try {
    return execFileSync("pulumi", ["version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * @typedef {object} Backend
 * @property {string} backendUrl a `file://` state backend
 * @property {string} home a PULUMI_HOME of its own
 * @property {string} dir holds both
 * @property {{ PULUMI_BACKEND_URL: string, PULUMI_HOME: string }} env both, as the CLI reads them
 */

/**
 * A fresh `file://` backend and PULUMI_HOME for one suite, in `<root>/<suite>`.
 * @param {string} root
 * @param {string} suite
 * @returns {Backend}
 */
export function backendFor(root, suite) {
  const dir = join(root, suite);
  const state = join(dir, "state");
  const home = join(dir, "home");
  mkdirSync(state, { recursive: true });
  mkdirSync(home, { recursive: true });
  const backendUrl = `file://${state}`;
  return { backendUrl, home, dir, env: { PULUMI_BACKEND_URL: backendUrl, PULUMI_HOME: home } };
}

/**
 * @typedef {object} StateResource
 * @property {string} type
 * @property {string} [urn]
 * @property {string} [id]
 * @property {Record<string, unknown>} [outputs]
 */

/**
 * @typedef {object} ProjectOptions
 * @property {Env} [env] for every command run in the project (backend, PULUMI_HOME, settings)
 * @property {string[]} [transcript] receives everything the project's commands print
 */

/**
 * @typedef {object} RunExtras
 * @property {AbortSignal} [signal] aborting kills the CLI with `killSignal`
 * @property {NodeJS.Signals} [killSignal]
 * @property {boolean} [sample] see PulumiOptions.sample
 */

/**
 * What a copy of a project leaves out: its dependencies (they resolve from a directory above), its build
 * output, its stacks.
 */
const NOT_COPIED = /^(package\.json|package-lock\.json|node_modules|bin|Pulumi\.[^.]+\.yaml)$/;

/** A real Pulumi project directory, its environment, and the commands a test runs in it. */
export class Project {
  /**
   * Opens an existing project directory.
   * @param {string} dir holds Pulumi.yaml
   * @param {ProjectOptions} [options]
   */
  constructor(dir, options = {}) {
    /** @readonly */
    this.dir = dir;
    /** @readonly */
    this.env = options.env ?? {};
    /** @readonly */
    this.transcript = options.transcript;
    const name = /^name:\s*(\S+)/m.exec(readFileSync(join(dir, "Pulumi.yaml"), "utf8"))?.[1];
    if (name === undefined) throw new Error(`${join(dir, "Pulumi.yaml")} has no name`);
    /** @readonly the project name from Pulumi.yaml */
    this.name = name;
  }

  /**
   * Copies a project's program (not its package.json nor stack files) into `dir`, where node_modules
   * resolves from a directory above, then opens it.
   * @param {string} source a project directory, e.g. examples/quickstart or bench/program
   * @param {string} dir
   * @param {ProjectOptions & { overrides?: Record<string, string> }} [options] overrides: file name -> text
   */
  static create(source, dir, options = {}) {
    mkdirSync(dir, { recursive: true });
    for (const file of readdirSync(source)) {
      if (!NOT_COPIED.test(file)) cpSync(join(source, file), join(dir, file), { recursive: true });
    }
    for (const [file, text] of Object.entries(options.overrides ?? {})) writeFileSync(join(dir, file), text);
    /** @type {ProjectOptions} */
    const projectOptions = {};
    if (options.env) projectOptions.env = options.env;
    if (options.transcript) projectOptions.transcript = options.transcript;
    return new Project(dir, projectOptions);
  }

  /**
   * Runs a command in the project; never throws.
   * @param {readonly string[]} args
   * @param {Env} [extraEnv] over the project's environment
   * @param {RunExtras} [extras]
   */
  run(args, extraEnv = {}, extras = {}) {
    /** @type {PulumiOptions} */
    const options = { cwd: this.dir, env: { ...this.env, ...extraEnv }, ...extras };
    if (this.transcript) options.transcript = this.transcript;
    return runPulumi(args, options);
  }

  /**
   * Runs a command and throws, with the CLI's own output, when its exit code is not 0.
   * @param {readonly string[]} args
   * @param {Env} [extraEnv]
   * @param {RunExtras} [extras]
   */
  async ok(args, extraEnv = {}, extras = {}) {
    const result = await this.run(args, extraEnv, extras);
    if (result.code !== 0) throw new Error(failure(args, result));
    return result;
  }

  /**
   * `stack init`, then `config set` for each value and `config set --secret` for each secret.
   * @param {string} stack
   * @param {Record<string, string>} [config]
   * @param {Record<string, string>} [secrets]
   */
  async initStack(stack, config = {}, secrets = {}) {
    await this.ok(["stack", "init", stack]);
    for (const [key, value] of Object.entries(config)) await this.ok(["config", "set", key, value]);
    for (const [key, value] of Object.entries(secrets))
      await this.ok(["config", "set", "--secret", key, value]);
  }

  /**
   * `stack output --json`; secrets read "[secret]" unless `showSecrets` (whose output no transcript keeps).
   * @param {boolean} [showSecrets]
   * @returns {Promise<Record<string, unknown>>}
   */
  async outputs(showSecrets = false) {
    const result = await this.ok(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])]);
    return /** @type {Record<string, unknown>} */ (parseJson(result.stdout));
  }

  /**
   * `stack export`: the text as printed and its resources.
   * @returns {Promise<{ text: string, resources: StateResource[] }>}
   */
  async exportState() {
    const result = await this.ok(["stack", "export"]);
    const parsed = /** @type {{ deployment: { resources?: StateResource[] } }} */ (parseJson(result.stdout));
    return { text: result.stdout, resources: parsed.deployment.resources ?? [] };
  }
}

/** Kept of each stream in a failure message: the end, where the CLI says what went wrong. */
const FAILURE_TAIL = 16_000;

/**
 * @param {readonly string[]} args
 * @param {RunResult} result
 */
function failure(args, result) {
  const tail = (/** @type {string} */ text) =>
    text.length > FAILURE_TAIL ? `…${text.slice(-FAILURE_TAIL)}` : text;
  return [
    `pulumi ${redactArgs(args).join(" ")} exited ${result.code}${result.signal ? ` (${result.signal})` : ""}${result.error ? `: ${result.error}` : ""}`,
    `--- stdout\n${tail(result.stdout)}`,
    `--- stderr\n${tail(result.stderr)}`,
  ].join("\n");
}

/**
 * The WebhookEndpoint resources of a state export.
 * @param {{ resources: StateResource[] }} state
 */
export function webhookResources(state) {
  return state.resources.filter((r) => r.type === WEBHOOK_RESOURCE_TYPE);
}

/**
 * Every file under a directory, as text (state files on disk, logs); files of 50 MiB or more are skipped.
 * @param {string} dir
 * @returns {string}
 */
export function readTree(dir) {
  if (!existsSync(dir)) return "";
  let text = "";
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = statSync(path);
    if (stat.isDirectory()) text += readTree(path);
    else if (stat.size < 50 * 1024 * 1024) text += readFileSync(path, "utf8");
  }
  return text;
}

/**
 * The plaintext sweep: which of `secrets` appear in any of `haystacks` (named by their first four
 * characters only). Refuses secrets under 8 characters: they would match by accident.
 * @param {readonly string[]} secrets
 * @param {readonly string[]} haystacks
 * @returns {string[]}
 */
export function leaks(secrets, haystacks) {
  /** @type {string[]} */
  const found = [];
  for (const secret of secrets) {
    if (secret.length < 8) throw new Error("a secret under 8 characters cannot be searched for reliably");
    for (const hay of haystacks) if (hay.includes(secret)) found.push(`${secret.slice(0, 4)}… found`);
  }
  return found;
}
