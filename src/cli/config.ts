import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { WebhookConfigError } from "../client/errors";
import {
  SETTINGS,
  SETTING_NAMES,
  configKey,
  resolveConnection,
  retiredSettingsInUse,
  stackConfig,
  type Connection,
  type ProviderConfig,
  type SettingName,
} from "../core/settings";
import { parseState, secretTexts, type Deployment } from "./deployment";
import { CliError, EXIT } from "./exit";
import { PulumiMissingError, pulumiFailure, stackArgs, type PulumiRunner } from "./pulumi";

/**
 * Where `webhooks` finds its connection, like the provider does, each setting on its own, first
 * found wins:
 * 1. the flags `--base-url` and `--access-token` (the token flag is discouraged: shell history);
 * 2. the stack's config (`webhooks:baseUrl`, `webhooks:accessToken`, and the tuning settings), read
 *    with `pulumi config --json --show-secrets [--stack S]` when run in a Pulumi project;
 * 3. the environment: `WEBHOOKS_BASE_URL`, `WEBHOOKS_ACCESS_TOKEN`, and the other `WEBHOOKS_*`.
 * The settings and their environment variables are the provider core's (`SETTINGS`); the core's
 * `resolveConnection` does the validation.
 */
export interface ConnectionFlags {
  baseUrl?: string | undefined;
  accessToken?: string | undefined;
}

/** A Pulumi project directory: where Pulumi.yaml is, here or above. */
export interface ProjectDir {
  dir: string;
  file: string;
}

export function findProject(cwd: string): ProjectDir | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
      const file = join(dir, name);
      if (existsSync(file)) return { dir, file };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export interface CliConnection {
  connection: Connection;
  /** The configuration it was resolved from (flags over stack config), for resources that resolve their own. */
  config: ProviderConfig;
  /** Stack config keys set with `--secret` (`webhooks:baseUrl`, ...). */
  secretConfigKeys: string[];
  /** Where the base URL and the token came from (never the token). */
  sources: { baseUrl: string; accessToken: string };
  /**
   * What everything printed is scrubbed of: the token, and, in a Pulumi project, every value the
   * stack holds secret (a name or URL the program marked secret shows on the service as it is, and
   * must not show here), signing secrets excepted (shown only on request, `--show-secrets`).
   */
  secrets: string[];
}

export interface ResolveOptions {
  flags: ConnectionFlags;
  /** `--stack`: the stack whose config is read. */
  stack?: string | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  pulumi: PulumiRunner;
  /** Notices on stderr: pulumi missing or failing, a retired setting. */
  warn: (message: string) => void;
}

/** Resolves the connection; a missing or invalid setting is a CliError (exit 3) naming every place. */
export async function resolveCliConnection(options: ResolveOptions): Promise<CliConnection> {
  const project = findProject(options.cwd);
  const { values: stackValues, secretKeys } = project === undefined ? { values: {}, secretKeys: [] } : await readStackConfig(options, project);
  if (project === undefined && options.stack !== undefined) {
    options.warn(`--stack ${options.stack}: no Pulumi.yaml in ${options.cwd} or above, so no stack config is read`);
  }
  const stackLabel = options.stack === undefined ? "" : ` (stack ${options.stack})`;
  const fromStack = stackConfig((key) => stackValues[key]);
  const flagValues: Partial<Record<SettingName, string>> = {};
  if (nonEmpty(options.flags.baseUrl)) flagValues.baseUrl = options.flags.baseUrl;
  if (nonEmpty(options.flags.accessToken)) flagValues.accessToken = options.flags.accessToken;

  const config: ProviderConfig = {
    values: { ...fromStack.values, ...flagValues },
    describe: (name) => (flagValues[name] !== undefined ? `the ${flagName(name)} flag` : `${fromStack.describe(name)}${stackLabel}`),
    howToSet: (name) => fromStack.howToSet(name),
  };
  for (const warning of retiredSettingsInUse((key) => stackValues[key], options.env)) options.warn(`warning: ${warning}`);

  const missing = (["baseUrl", "accessToken"] as const).filter((name) => !nonEmpty(config.values[name]) && !nonEmpty(options.env[SETTINGS[name].env]));
  if (missing.length > 0) {
    throw new CliError(
      EXIT.config,
      missing
        .map(
          (name) =>
            `the ${name === "baseUrl" ? "API base URL" : "access token"} is not set: pass ${flagName(name)}${name === "accessToken" ? " (discouraged: it lands in shell history)" : ""}, or set stack config ${configKey(name)} in the Pulumi project (\`${fromStack.howToSet(name)}\`${project === undefined ? ", run from the project directory" : ""}), or set ${SETTINGS[name].env}`,
        )
        .join("; "),
    );
  }
  let connection: Connection;
  try {
    connection = resolveConnection(config, undefined, options.env);
  } catch (error) {
    if (error instanceof WebhookConfigError) throw new CliError(EXIT.config, error.message);
    throw error;
  }
  const baseUrlSource = nonEmpty(config.values.baseUrl) ? config.describe("baseUrl") : `environment variable ${SETTINGS.baseUrl.env}`;
  return {
    connection,
    config,
    secretConfigKeys: secretKeys,
    sources: { baseUrl: baseUrlSource, accessToken: connection.client.tokenSource },
    secrets: [connection.client.accessToken, ...(project === undefined ? [] : await stackSecrets(options, project))],
  };
}

/**
 * The values the stack's state holds secret, signing secrets excepted, read with
 * `pulumi stack export --show-secrets` into memory (never shown); none when the stack cannot be read
 * (no stack yet, no access to its secrets).
 */
async function stackSecrets(options: ResolveOptions, project: ProjectDir): Promise<string[]> {
  const result = await options.pulumi.run(["stack", "export", "--show-secrets", ...stackArgs(options.stack)], { cwd: project.dir }).catch(() => undefined);
  if (result === undefined || result.code !== 0) return [];
  let deployment: Deployment;
  try {
    deployment = parseState(result.stdout, "`pulumi stack export --show-secrets`").deployment;
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const resource of [...(deployment.resources ?? []), ...(deployment.pending_operations ?? []).map((op) => op.resource)]) {
    for (const properties of [resource.inputs, resource.outputs]) {
      if (properties === undefined) continue;
      const { signSecret: _signSecret, ...rest } = properties;
      for (const text of secretTexts(rest)) if (text.trim().length >= MIN_SECRET_CHARS) found.add(text);
    }
  }
  return [...found];
}

/** Shorter secret values (a secret `true`, a count) would cut ordinary words apart and show nothing. */
const MIN_SECRET_CHARS = 4;

/** The `webhooks:*` values of the stack's config; empty (with a notice) when pulumi is missing or fails. */
async function readStackConfig(options: ResolveOptions, project: ProjectDir): Promise<{ values: Record<string, string>; secretKeys: string[] }> {
  const none = { values: {}, secretKeys: [] };
  const args = ["config", "--json", "--show-secrets", ...stackArgs(options.stack)];
  let stdout: string;
  try {
    const result = await options.pulumi.run(args, { cwd: project.dir });
    if (result.code !== 0) {
      options.warn(`could not read the stack's config (\`pulumi ${args.join(" ")}\`: ${pulumiFailure(result)}); using flags and environment only`);
      return none;
    }
    stdout = result.stdout;
  } catch (error) {
    if (error instanceof PulumiMissingError) {
      options.warn(`${project.file} is here, but ${error.message}: the stack's config is not read; using flags and environment only`);
      return none;
    }
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    options.warn("`pulumi config --json` did not print JSON; the stack's config is not used");
    return none;
  }
  const values: Record<string, string> = {};
  if (typeof parsed !== "object" || parsed === null) return none;
  const secretKeys = Object.entries(parsed as Record<string, unknown>)
    .filter(([key, entry]) => key.startsWith("webhooks:") && typeof entry === "object" && entry !== null && (entry as { secret?: unknown }).secret === true)
    .map(([key]) => key);
  for (const name of SETTING_NAMES) {
    const entry = (parsed as Record<string, unknown>)[configKey(name)];
    const value = typeof entry === "object" && entry !== null ? (entry as { value?: unknown }).value : undefined;
    if (typeof value === "string") values[configKey(name)] = value;
    else if (typeof value === "number" || typeof value === "boolean") values[configKey(name)] = String(value);
  }
  // Retired settings are only reported, never used.
  const retired = (parsed as Record<string, { value?: unknown }>)["webhooks:adoptRecentMinutes"];
  if (typeof retired?.value === "string") values["webhooks:adoptRecentMinutes"] = retired.value;
  return { values, secretKeys };
}

function flagName(name: SettingName): string {
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}
