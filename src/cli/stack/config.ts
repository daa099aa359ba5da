import { WebhookConfigError } from "../../client";
import { recognisableInText, secretForms } from "../../text";
import {
  EMPTY_CONFIG,
  SETTINGS,
  SETTING_NAMES,
  configKey,
  resolveConnection,
  retiredSettingsInUse,
  serviceOf,
  stackConfig,
  type Connection,
  type ProviderConfig,
  type SettingName,
} from "../../core/settings";
import {
  SecretFieldIndex,
  endpointResources,
  isSecret,
  revealed,
  parseState,
  secretTexts,
  type UntypedDeployment,
} from "./deployment";
import type { SecretFields } from "../output/output";
import { historyCheckpoints } from "./history";
import type { HomeSettings } from "./services";
import { findProject, type ProjectDir } from "./project";
import { CliError, EXIT } from "../exit";
import { PulumiMissingError, backendUrl, pulumiFailure, stackArgs, type PulumiRunner } from "./pulumi";
import { SECRET_SIG, SIG_KEY } from "../../core/wire";
import { parseUrn } from "../../core/wire";

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

export interface CliConnection {
  connection: Connection;
  /** The configuration it was resolved from (flags over stack config), for resources that resolve their own. */
  config: ProviderConfig;
  /** Stack config keys set with `--secret` (`webhooks:baseUrl`, ...). */
  secretConfigKeys: string[];
  /** Where the base URL and the token came from (never the token). */
  sources: { baseUrl: string; accessToken: string };
  /**
   * The connection's own secrets: the token, and the base URL's forms (its host, its origin) when the
   * stack holds it secret. The client names the host it failed to reach in its errors, so these are
   * kept out of the client's messages as a whole.
   */
  connectionSecrets: string[];
  /**
   * What no value printed may show (src/text/policy.ts): the token, and, in a Pulumi project, every
   * value the stack holds secret (a name or URL the program marked secret shows on the service as it
   * is, and must not show here), its endpoints' signing secrets included; only those long enough to be
   * looked for inside text (`MIN_SECRET_CHARS`), the token always first.
   */
  secrets: string[];
  /**
   * The signing secrets among {@link secrets}: the one field that shows them is the `signSecret` a
   * person asks for (`list --show-secrets`); in any other field (another endpoint's name or URL) they
   * are secrets like the rest.
   */
  signingSecrets: string[];
  /**
   * Every value the stack holds secret, however short (a `principalId` of 7, a flag `true`): too
   * short to be looked for inside text, each is still never shown as a whole value.
   */
  wholeSecrets: string[];
  /**
   * In a Pulumi project: the endpoints (by webhook_id) whose name or URL the stack's state, now or in
   * the history a `file://` backend keeps, holds secret. The service shows them as they are; what
   * `webhooks` prints shows them as secret.
   */
  secretFields: SecretFields;
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
  const {
    values: stackValues,
    secretKeys,
    secretValues,
  } = project === undefined
    ? { values: {}, secretKeys: [], secretValues: [] }
    : await readStackConfig(options, project);
  if (project === undefined && options.stack !== undefined) {
    options.warn(
      `--stack ${options.stack}: no Pulumi.yaml in ${options.cwd} or above, so no stack config is read`,
    );
  }
  const stackLabel = options.stack === undefined ? "" : ` (stack ${options.stack})`;
  const fromStack = stackConfig((key) => stackValues[key]);
  const flagValues: Partial<Record<SettingName, string>> = {};
  if (nonEmpty(options.flags.baseUrl)) flagValues.baseUrl = options.flags.baseUrl;
  if (nonEmpty(options.flags.accessToken)) flagValues.accessToken = options.flags.accessToken;

  const config: ProviderConfig = {
    values: { ...fromStack.values, ...flagValues },
    describe: (name) =>
      flagValues[name] !== undefined
        ? `the ${flagName(name)} flag`
        : `${fromStack.describe(name)}${stackLabel}`,
    howToSet: (name) => fromStack.howToSet(name),
  };
  for (const warning of retiredSettingsInUse((key) => stackValues[key], options.env))
    options.warn(`warning: ${warning}`);

  const missing = (["baseUrl", "accessToken"] as const).filter(
    (name) => !nonEmpty(config.values[name]) && !nonEmpty(options.env[SETTINGS[name].env]),
  );
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
  const baseUrlSource = nonEmpty(config.values.baseUrl)
    ? config.describe("baseUrl")
    : `environment variable ${SETTINGS.baseUrl.env}`;
  // The base URL connected to, held secret: redacted by its host too (an error names the host it could not reach).
  const baseUrlForms =
    secretKeys.includes(configKey("baseUrl")) && !nonEmpty(flagValues.baseUrl)
      ? secretForms(connection.client.baseUrl)
      : [];
  return {
    connection,
    config,
    secretConfigKeys: secretKeys,
    sources: { baseUrl: baseUrlSource, accessToken: connection.client.tokenSource },
    connectionSecrets: [connection.client.accessToken, ...baseUrlForms],
    ...(await stackSecrets(options, project, connection.client.accessToken, [
      ...secretValues,
      ...baseUrlForms,
    ])),
  };
}

/**
 * What everything printed must keep out: the token; in a project, every value the stack's state
 * and config hold secret now (signing secrets too, but for the field that shows them on request), read with
 * `pulumi stack export --show-secrets` and `pulumi config --show-secrets` into memory, never shown;
 * and the endpoints whose name or URL a state of the stack, now or in a `file://` backend's history
 * (whose secrets stay encrypted: which fields were secret is all it tells), held secret. Nothing but
 * the token when the stack cannot be read (no stack yet, no access to its secrets).
 */
async function stackSecrets(
  options: ResolveOptions,
  project: ProjectDir | undefined,
  token: string,
  configSecrets: readonly string[],
): Promise<Pick<CliConnection, "secrets" | "wholeSecrets" | "signingSecrets" | "secretFields">> {
  const values = new Set<string>([token]);
  const signing = new Set<string>();
  const whole = new Set<string>();
  const fields = new SecretFieldIndex();
  const keep = (text: string) => {
    if (recognisableInText(text)) values.add(text);
    else if (text.trim() !== "") whole.add(text.trim());
  };
  const found = () => ({
    secrets: [...values],
    wholeSecrets: [...whole],
    signingSecrets: [...signing],
    secretFields: fields,
  });
  for (const text of configSecrets) keep(text);
  if (project === undefined) return found();
  const exported = async (reveal: boolean): Promise<UntypedDeployment | undefined> => {
    const args = ["stack", "export", ...(reveal ? ["--show-secrets"] : []), ...stackArgs(options.stack)];
    const result = await options.pulumi.run(args, { cwd: project.dir }).catch(() => undefined);
    try {
      return result !== undefined && result.code === 0
        ? parseState(result.stdout, `\`pulumi ${args.join(" ")}\``)
        : undefined;
    } catch {
      return undefined;
    }
  };
  // Without the stack's secrets (no passphrase, no access to its key), the plain export still says
  // which names and URLs are secret: those stay hidden, and the operator is told what cannot be.
  let current = await exported(true);
  if (current === undefined) {
    current = await exported(false);
    if (current === undefined) return found();
    options.warn(
      "warning: the stack's secrets could not be read (`pulumi stack export --show-secrets` failed: set the stack's passphrase or secrets provider access): names and URLs its state holds secret are shown as [secret], but a secret value that appears elsewhere (in another endpoint's name or URL) cannot be recognised",
    );
  }
  const deployment = current.deployment;
  for (const text of stateSecrets(deployment, signing)) keep(text);
  const backend = await backendUrl(options.pulumi);
  // The stack's name: given, else from its resources, else (an empty stack: after destroy its
  // history still holds what it marked secret) the current stack pulumi names.
  const stack =
    options.stack ??
    (deployment.resources ?? []).map((r) => parseUrn(r.urn)?.stack).find((name) => name !== undefined) ??
    (await currentStackName(options.pulumi, project.dir));
  const history =
    backend !== undefined && stack !== undefined
      ? historyCheckpoints(backend, stack, current, project.dir)
      : [];
  // Ids are per service: the index tells another service's endpoint with the same id apart by its
  // creator and creation time (see SecretFieldIndex).
  for (const state of [current, ...history])
    for (const resource of endpointResources(state.deployment)) fields.add(resource);
  return found();
}

/**
 * Every value a state holds secret now, read from its revealed export; the signing secrets among
 * them are also added to `signing` (shown only in the field a person asks for).
 */
function stateSecrets(deployment: UntypedDeployment["deployment"], signing: Set<string>): string[] {
  const found: string[] = [];
  for (const resource of [
    ...(deployment.resources ?? []),
    ...(deployment.pending_operations ?? []).map((op) => op.resource),
  ]) {
    for (const properties of [resource.inputs, resource.outputs]) {
      if (properties === undefined) continue;
      // Not what the resource holds secret whatever the program marked (webhook-endpoint.ts's forced
      // secret outputs): `declared` and `createdAs` repeat the name and URL, secret here only when
      // those fields are; `__secretInputs` lists input names; a provenance held secret (its service's
      // base URL is) would make "created" a secret: its service is kept, as the base URL is.
      const {
        signSecret,
        declared: _declared,
        createdAs: _createdAs,
        __secretInputs: _names,
        provenance,
        ...rest
      } = properties;
      found.push(...secretTexts(rest));
      // A signing secret is a secret of the stack in any other endpoint's name or URL.
      const sign = revealed(signSecret);
      if (typeof sign === "string" && recognisableInText(sign)) {
        found.push(sign);
        signing.add(sign);
      }
      const service = (revealed(provenance) as { service?: unknown } | undefined)?.service;
      if (isSecret(provenance) && typeof service === "string") found.push(service);
    }
  }
  return found;
}

async function currentStackName(pulumi: PulumiRunner, cwd: string): Promise<string | undefined> {
  const result = await pulumi.run(["stack", "--show-name"], { cwd }).catch(() => undefined);
  const name = result !== undefined && result.code === 0 ? result.stdout.trim() : "";
  return name === "" ? undefined : name;
}

/** The `webhooks:*` values of the stack's config; empty (with a notice) when pulumi is missing or fails. */
async function readStackConfig(
  options: ResolveOptions,
  project: ProjectDir,
): Promise<{ values: Record<string, string>; secretKeys: string[]; secretValues: string[] }> {
  const none = { values: {}, secretKeys: [], secretValues: [] };
  const args = ["config", "--json", "--show-secrets", ...stackArgs(options.stack)];
  let stdout: string;
  try {
    const result = await options.pulumi.run(args, { cwd: project.dir });
    if (result.code !== 0) {
      options.warn(
        `could not read the stack's config (\`pulumi ${args.join(" ")}\`: ${pulumiFailure(result)}); using flags and environment only`,
      );
      return none;
    }
    stdout = result.stdout;
  } catch (error) {
    if (error instanceof PulumiMissingError) {
      options.warn(
        `${project.file} is here, but ${error.message}: the stack's config is not read; using flags and environment only`,
      );
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
  const secretEntries = Object.entries(parsed as Record<string, unknown>).filter(
    ([, entry]) =>
      typeof entry === "object" && entry !== null && (entry as { secret?: unknown }).secret === true,
  );
  const secretKeys = secretEntries.map(([key]) => key).filter((key) => key.startsWith("webhooks:"));
  // Every value the stack's config holds secret (the program's own keys too): kept out of everything printed.
  const secretValues = secretEntries.flatMap(([, entry]) =>
    secretTexts({
      [SIG_KEY]: SECRET_SIG,
      plaintext: JSON.stringify((entry as { value?: unknown }).value ?? null),
    }),
  );
  for (const name of SETTING_NAMES) {
    const entry = (parsed as Record<string, unknown>)[configKey(name)];
    const value =
      typeof entry === "object" && entry !== null ? (entry as { value?: unknown }).value : undefined;
    if (typeof value === "string") values[configKey(name)] = value;
    else if (typeof value === "number" || typeof value === "boolean") values[configKey(name)] = String(value);
  }
  // Retired settings are only reported, never used.
  const retired = (parsed as Record<string, { value?: unknown }>)["webhooks:adoptRecentMinutes"];
  if (typeof retired?.value === "string") values["webhooks:adoptRecentMinutes"] = retired.value;
  return { values, secretKeys, secretValues };
}

function flagName(name: SettingName): string {
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** What a command over several stacks (`orphans --stack a --stack b`) connects with, and judges each stack by. */
export interface StacksConnection {
  /** One connection per token the stacks configure for the service (the listings are merged). */
  connections: Connection[];
  /**
   * The service listed, and the settings a state file is judged with: with no `--stack`, the current
   * stack's (as for any command); with stacks, the flags and the environment only, since no stack's
   * config applies to a file.
   */
  home: HomeSettings;
  /** Each stack's own settings: its config decides its `principalId` and its default provider. */
  stackSettings: Map<string, HomeSettings>;
  /** Every stack's secrets (see {@link CliConnection.secrets}): none of them is shown, whichever stack holds it. */
  secrets: string[];
  wholeSecrets: string[];
  signingSecrets: string[];
  connectionSecrets: string[];
}

/**
 * Resolves the connection of each stack on its own (its config, its secrets), never the first
 * stack's for all: the order of the flags must not change what is judged or shown. The stacks must
 * name one service (flags and environment over their config, as for any command).
 */
export async function resolveStacksConnection(
  options: Omit<ResolveOptions, "stack">,
  stacks: readonly string[],
): Promise<StacksConnection> {
  const names = [...new Set(stacks)];
  const resolved: CliConnection[] = [];
  for (const stack of names.length === 0 ? [undefined] : names)
    resolved.push(await resolveCliConnection({ ...options, stack }));
  const settingsOf = (r: CliConnection): HomeSettings => ({
    service: serviceOf(r.connection.client.baseUrl),
    config: r.config,
    env: options.env,
    secretConfigKeys: r.secretConfigKeys,
  });
  const services = new Set(resolved.map((r) => serviceOf(r.connection.client.baseUrl)));
  if (services.size > 1)
    throw new CliError(
      EXIT.config,
      `the stacks ${names.join(", ")} configure different services (webhooks:baseUrl, not shown: it may be secret), and orphans compares them with one: pass --base-url with the service to list`,
    );
  const service = [...services][0]!;
  const connections = new Map(
    resolved.map((r) => [`${r.connection.client.baseUrl}\n${r.connection.client.accessToken}`, r.connection]),
  );
  const union = (pick: (r: CliConnection) => readonly string[]) => [...new Set(resolved.flatMap(pick))];
  return {
    connections: [...connections.values()],
    home:
      names.length === 0
        ? settingsOf(resolved[0]!)
        : { service, config: EMPTY_CONFIG, env: options.env, secretConfigKeys: [] },
    stackSettings: new Map(names.map((name, i) => [name, settingsOf(resolved[i]!)])),
    secrets: union((r) => r.secrets),
    wholeSecrets: union((r) => r.wholeSecrets),
    signingSecrets: union((r) => r.signingSecrets),
    connectionSecrets: union((r) => r.connectionSecrets),
  };
}
