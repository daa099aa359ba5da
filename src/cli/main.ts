#!/usr/bin/env node
// `webhooks`: the operator CLI of pulumi-webhook-endpoints. Argument parsing, dispatch and exit
// codes here; each command's logic in its own module (list, adopt, recover, orphans), taking a
// client and an output sink so that it runs in tests without spawning.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { WebhooksClient } from "../client";
import { serviceOf } from "../core/settings";
import { redact, showable, unsupportedNode } from "../text";
import { ADOPT_USAGE, FORMATS, resourceNameProblem, runAdopt, type AdoptFormat } from "./adopt";
import { resolveCliConnection, type CliConnection } from "./config";
import { EXIT, EXIT_CODES_HELP, exitCodeOf, usageError, type ExitCode } from "./exit";
import type { ListingClient } from "./listing";
import { LIST_USAGE, runList } from "./list";
import { ORPHANS_USAGE, runOrphans } from "./orphans";
import { redactShown, type Sink } from "./output";
import { PLUGIN_ARCHIVE_USAGE, pluginArchiveCommand } from "./plugin-archive";
import { pulumiCli, type PulumiRunner } from "./pulumi";
import { RECOVER_USAGE, runRecover } from "./recover";
import { parsePicks } from "./recover-plan";

export const MAIN_USAGE = `Usage: webhooks <command> [flags]

The operator CLI of pulumi-webhook-endpoints. The API can never delete, so endpoints accumulate:
  list      list the endpoints on the service
  adopt     print declarations that take existing endpoints over (TypeScript, Pulumi YAML, pulumi import)
  recover   after a killed \`pulumi up\`: record the endpoints its creates made, clear the rest
  orphans   the endpoints none of the given stacks holds (to remove on the service)
  plugin-archive  the native provider plugin as archives for \`pulumi plugin install\` (no service needed)
Run \`webhooks <command> --help\` for a command's flags.

${commonHelp()}`;

function commonHelp(): string {
  return `Connection, each setting on its own, first found wins:
  1. --base-url URL, --access-token TOKEN (discouraged: the token lands in shell history and in
     the process list; prefer the stack config or the environment)
  2. the stack's config, when run in a Pulumi project (Pulumi.yaml here or above): webhooks:baseUrl,
     webhooks:accessToken (read with \`pulumi config --json --show-secrets [--stack S]\`), and the
     tuning settings webhooks:timeoutMs, maxRetries, pageSize, ascending, allowInsecureHttp
  3. the environment: WEBHOOKS_BASE_URL, WEBHOOKS_ACCESS_TOKEN, WEBHOOKS_TIMEOUT_MS,
     WEBHOOKS_MAX_RETRIES, WEBHOOKS_PAGE_SIZE, WEBHOOKS_ASCENDING, WEBHOOKS_ALLOW_INSECURE_HTTP
  --stack S      the stack whose config is read (default: the current stack)

Output: a table for people on stdout, --json for scripts (stable camelCase field names). Progress
("listed 300 endpoints…") goes to stderr when it is a terminal, or always with --progress. The
sign secret is never shown without --show-secrets; the access token never is.

${EXIT_CODES_HELP}`;
}

const COMMON = {
  "base-url": { type: "string" },
  "access-token": { type: "string" },
  json: { type: "boolean" },
  progress: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

const OPTIONS = {
  list: {
    ...COMMON,
    stack: { type: "string" },
    name: { type: "string" },
    url: { type: "string" },
    match: { type: "string" },
    "show-secrets": { type: "boolean" },
  },
  adopt: {
    ...COMMON,
    stack: { type: "string" },
    id: { type: "string", multiple: true },
    name: { type: "string" },
    url: { type: "string" },
    "resource-name": { type: "string" },
    format: { type: "string" },
  },
  recover: {
    ...COMMON,
    stack: { type: "string" },
    yes: { type: "boolean", short: "y" },
    "dry-run": { type: "boolean" },
    pick: { type: "string", multiple: true },
    since: { type: "string" },
    "release-lock": { type: "boolean" },
  },
  orphans: {
    ...COMMON,
    stack: { type: "string", multiple: true },
    "state-file": { type: "string", multiple: true },
  },
  "plugin-archive": {
    out: { type: "string" },
    platform: { type: "string", multiple: true },
    launcher: { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
} as const satisfies Record<string, ParseArgsConfig["options"]>;

type Command = keyof typeof OPTIONS;
const USAGE: Record<Command, string> = {
  list: LIST_USAGE,
  adopt: ADOPT_USAGE,
  recover: RECOVER_USAGE,
  orphans: ORPHANS_USAGE,
  "plugin-archive": PLUGIN_ARCHIVE_USAGE,
};

/** What `main` needs from the outside world; tests pass their own. */
export interface MainIo {
  sink: Sink;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** @default the `pulumi` on PATH */
  pulumi?: PulumiRunner;
  /** @default a WebhooksClient for the resolved connection */
  client?: (
    options: ConstructorParameters<typeof WebhooksClient>[0],
  ) => ListingClient & { close?(): Promise<void> };
}

/** Runs `webhooks <argv>`; resolves to the exit code and never throws. */
export async function main(argv: readonly string[], unredacted: MainIo): Promise<ExitCode> {
  let secrets: string[] = [];
  // Everything printed, errors included, passes this filter: whatever path a service's echo of the
  // token takes (a name, a URL, a principal, a message), it is never printed. Commands still redact
  // what they show themselves (a table cell cut before the whole token is shown), and adopt refuses
  // to declare what holds it.
  const io: MainIo = { ...unredacted, sink: redactingSink(unredacted.sink, () => secrets) };
  try {
    return await dispatch(argv, io, (found) => (secrets = found));
  } catch (error) {
    const code = exitCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    const prefix =
      code === EXIT.unexpected ? `unexpected ${error instanceof Error ? error.name : "failure"}: ` : "";
    io.sink.stderr(`webhooks: ${showable(redact(`${prefix}${message}`, secrets), 4000)}\n`);
    if (code === EXIT.usage && !/--help/.test(message)) io.sink.stderr("(see `webhooks --help`)\n");
    return code;
  }
}

async function dispatch(
  argv: readonly string[],
  io: MainIo,
  onSecrets: (secrets: string[]) => void,
): Promise<ExitCode> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.sink.stderr(MAIN_USAGE + "\n");
    return EXIT.usage;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    io.sink.stdout(MAIN_USAGE + "\n");
    return EXIT.ok;
  }
  if (first === "--version") {
    io.sink.stdout(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (!(first in OPTIONS))
    throw usageError(
      `unknown command ${JSON.stringify(showable(first, 40))}: use list, adopt, recover, orphans or plugin-archive`,
    );
  const command = first as Command;
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    const parsed = parseArgs({
      args: [...rest],
      options: OPTIONS[command],
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    values = parsed.values as unknown as typeof values;
    // A flag that takes one value, given twice, would keep only the last one silently (`--name A --name B`).
    const options = OPTIONS[command] as Record<string, { type: string; multiple?: boolean }>;
    const seen = new Set<string>();
    for (const token of parsed.tokens) {
      if (token.kind !== "option" || options[token.name]?.multiple === true) continue;
      if (seen.has(token.name)) throw new Error(`--${token.name} was given more than once; give it once`);
      seen.add(token.name);
    }
  } catch (error) {
    throw usageError(`${command}: ${(error as Error).message}`);
  }
  if (command === "plugin-archive") return pluginArchiveCommand(io.sink, io.cwd, values);
  if (values.help === true) {
    io.sink.stdout(`${USAGE[command]}\n\n${commonHelp()}\n`);
    return EXIT.ok;
  }
  const str = (name: string): string | undefined =>
    typeof values[name] === "string" ? values[name] : undefined;
  const bool = (name: string): boolean => values[name] === true;
  const list = (name: string): string[] => (Array.isArray(values[name]) ? values[name] : []);
  validate(command, str, list);

  const pulumi = io.pulumi ?? pulumiCli({ cwd: io.cwd, env: io.env });
  const configStack = command === "orphans" ? list("stack")[0] : str("stack");
  let opened: (ListingClient & { close?(): Promise<void> }) | undefined;
  let resolvedConnection: CliConnection | undefined;
  let secrets: string[] = [];
  // Resolved when a command first needs the service (recover repairs a broken checkpoint first: pulumi config cannot read the stack before).
  const connect = async (): Promise<ListingClient> => {
    if (opened === undefined) {
      const resolved = await resolveCliConnection({
        flags: { baseUrl: str("base-url"), accessToken: str("access-token") },
        stack: configStack,
        cwd: io.cwd,
        env: io.env,
        pulumi,
        warn: (message) => io.sink.stderr(`webhooks: ${message}\n`),
      });
      resolvedConnection = resolved;
      secrets = resolved.secrets;
      onSecrets(secrets);
      opened = io.client
        ? io.client(resolved.connection.client)
        : new WebhooksClient(resolved.connection.client);
    }
    return opened;
  };
  try {
    switch (command) {
      case "list":
        await runList(await connect(), io.sink, {
          name: str("name"),
          url: str("url"),
          match: (str("match") ?? "exact") as "exact" | "service",
          json: bool("json"),
          showSecrets: bool("show-secrets"),
          progress: bool("progress"),
          secrets,
          secretFields: resolvedConnection!.secretFields,
        });
        return EXIT.ok;
      case "adopt":
        await runAdopt(await connect(), io.sink, {
          ids: list("id").map(Number),
          name: str("name"),
          url: str("url"),
          resourceName: str("resource-name"),
          format: (str("format") ?? "all") as AdoptFormat,
          json: bool("json"),
          progress: bool("progress"),
          secrets,
          secretFields: resolvedConnection!.secretFields,
        });
        return EXIT.ok;
      case "recover":
        await runRecover(
          {
            client: connect,
            home: async () => {
              await connect();
              const resolved = resolvedConnection!;
              return {
                service: serviceOf(resolved.connection.client.baseUrl),
                config: resolved.config,
                env: io.env,
                secretConfigKeys: resolved.secretConfigKeys,
              };
            },
            open: (options) => (io.client ? io.client(options) : new WebhooksClient(options)),
            onSecrets: (found) => {
              secrets = [...secrets, ...found];
              onSecrets(secrets);
            },
            pulumi,
            sink: io.sink,
            cwd: io.cwd,
          },
          {
            stack: str("stack"),
            yes: bool("yes"),
            dryRun: bool("dry-run"),
            json: bool("json"),
            progress: bool("progress"),
            releaseLock: bool("release-lock"),
            since: str("since") === undefined ? undefined : Date.parse(str("since")!),
            picks: parsePicks(list("pick")),
            get secrets() {
              return secrets;
            },
          },
        );
        return EXIT.ok;
      case "orphans":
        await runOrphans(
          {
            client: await connect(),
            home: {
              service: serviceOf(resolvedConnection!.connection.client.baseUrl),
              config: resolvedConnection!.config,
              env: io.env,
              secretConfigKeys: resolvedConnection!.secretConfigKeys,
            },
            pulumi,
            sink: io.sink,
            cwd: io.cwd,
          },
          {
            stacks: list("stack"),
            stateFiles: list("state-file"),
            json: bool("json"),
            progress: bool("progress"),
            secrets,
          },
        );
        return EXIT.ok;
      default:
        throw usageError(`unknown command ${String(command)}`);
    }
  } finally {
    await opened?.close?.();
  }
}

/** Checks flag values before anything is read or called. */
function validate(
  command: Command,
  str: (name: string) => string | undefined,
  list: (name: string) => string[],
): void {
  if (command === "list") {
    const match = str("match");
    if (match !== undefined && match !== "exact" && match !== "service")
      throw usageError(`list: --match must be exact or service, got ${JSON.stringify(showable(match, 40))}`);
  }
  if (command === "adopt") {
    const ids = list("id");
    for (const id of ids)
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id)) || Number(id) <= 0)
        throw usageError(
          `adopt: --id must be a webhook_id (a positive whole number), got ${JSON.stringify(showable(id, 40))}`,
        );
    const byName = str("name") !== undefined || str("url") !== undefined;
    if (ids.length === 0 && !byName)
      throw usageError(
        "adopt: select the endpoints with --id N (one or more, narrowed by --name or --url if given), or with --name and/or --url",
      );
    const format = str("format");
    if (format !== undefined && !(FORMATS as readonly string[]).includes(format))
      throw usageError(`adopt: --format must be one of ${FORMATS.join(", ")}`);
    const resourceName = str("resource-name");
    const problem = resourceName === undefined ? undefined : resourceNameProblem(resourceName);
    if (problem !== undefined) throw usageError(`adopt: --resource-name ${problem}`);
  }
  if (command === "recover") {
    const since = str("since");
    if (since !== undefined && !Number.isFinite(Date.parse(since)))
      throw usageError(
        `recover: --since must be an ISO time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(showable(since, 40))}`,
      );
  }
}

function packageVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }
    ).version;
  } catch {
    return "unknown";
  }
}

/** A sink that redacts `secrets()` (known once the connection is resolved) from everything written, as a person would read it. */
function redactingSink(sink: Sink, secrets: () => readonly string[]): Sink {
  const redacting: Sink = {
    stdout: (text) => sink.stdout(redactShown(text, secrets())),
    stderr: (text) => sink.stderr(redactShown(text, secrets())),
    get stderrIsTTY() {
      return sink.stderrIsTTY;
    },
    get stdinIsTTY() {
      return sink.stdinIsTTY;
    },
  };
  if (sink.confirm !== undefined)
    redacting.confirm = (question) => sink.confirm!(redactShown(question, secrets()));
  return redacting;
}

/** The sink of the real process. */
export function processSink(): Sink {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    async confirm(question) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
      } finally {
        rl.close();
      }
    },
  };
}

if (require.main === module) {
  const tooOld = unsupportedNode("webhooks");
  if (tooOld !== undefined) {
    process.stderr.write(`webhooks: ${tooOld}\n`);
    process.exit(EXIT.config);
  }
  void main(process.argv.slice(2), { sink: processSink(), env: process.env, cwd: process.cwd() }).then(
    (code) => {
      process.exitCode = code;
    },
  );
}
