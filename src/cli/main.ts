#!/usr/bin/env node
// `webhooks`: the operator CLI of pulumi-webhook-endpoints. Argument parsing, dispatch and exit
// codes here; each command's logic in its own module (list, adopt, recover, orphans), taking a
// client and an output sink so that it runs in tests without spawning.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { WebhookApiError, WebhooksClient } from "../client";
import { SETTINGS, SETTING_NAMES, configKey } from "../core/settings-table";
import { redactShown, showable, unsupportedNode, type ShownSecrets } from "../text";
import { COMMON_OPTIONS, type Command, type CommandContext, type Flags, type MainIo } from "./command";
import { COMMANDS } from "./commands";
import type { ListingClient } from "./commands/listing";
import { EXIT, EXIT_CODES_HELP, exitCodeOf, usageError, type ExitCode } from "./exit";
import type { Sink } from "./output/output";
import { resolveCliConnection, type CliConnection } from "./stack/config";
import { pulumiCli } from "./stack/pulumi";

export type { MainIo } from "./command";

const COMMAND_WIDTH = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;

export const MAIN_USAGE = `Usage: webhooks <command> [flags]

The operator CLI of pulumi-webhook-endpoints. The API can never delete, so endpoints accumulate:
${COMMANDS.map((command) => `  ${command.name.padEnd(COMMAND_WIDTH)}${command.summary}`).join("\n")}
Run \`webhooks <command> --help\` for a command's flags.

${commonHelp()}`;

/**
 * `webhooks plugin-archive` left the package: what a user of an earlier release, or of its docs, is told
 * instead (docs/native-plugin.md).
 */
export const PLUGIN_ARCHIVE_GONE =
  "plugin-archive is gone from the npm package, which no longer carries the plugin's bundle or the tools that pack it: " +
  "download pulumi-resource-webhooks-v<version>-<os>-<arch>.tar.gz and the checksums file from the release (or build them in a checkout of the repository: npm run release:archives), " +
  "check it with `sha256sum -c --ignore-missing <checksums file>`, then run `pulumi plugin install resource webhooks <version> --file <archive>`; " +
  "the npm plugin (node_modules/.bin/pulumi-resource-webhooks) still runs from PATH. See docs/native-plugin.md";

/** The connection settings, derived from the settings table: each setting's config key and environment variable. */
function settingsHelp(): string {
  const [baseUrl, accessToken] = ["baseUrl", "accessToken"] as const;
  const tuning = SETTING_NAMES.filter((name) => name !== baseUrl && name !== accessToken);
  const lines = tuning.map((name) => `     ${configKey(name).padEnd(28)}${SETTINGS[name].env}`);
  return `Connection, each setting on its own, first found wins:
  1. --base-url URL, --access-token TOKEN (discouraged: the token lands in shell history and in
     the process list; prefer the stack config or the environment)
  2. the stack's config, when run in a Pulumi project (Pulumi.yaml here or above), read with
     \`pulumi config --json --show-secrets [--stack S]\`
  3. the environment
  Each setting, by its stack config key and its environment variable:
     ${configKey(baseUrl).padEnd(28)}${SETTINGS[baseUrl].env}
     ${configKey(accessToken).padEnd(28)}${SETTINGS[accessToken].env}
${lines.join("\n")}
  --stack S      the stack whose config is read (default: the current stack)`;
}

function commonHelp(): string {
  return `${settingsHelp()}

Output: a table for people on stdout, --json for scripts (stable camelCase field names). Progress
("listed 300 endpoints…") goes to stderr when it is a terminal, or always with --progress. The
sign secret is never shown without --show-secrets; the access token never is.

${EXIT_CODES_HELP}`;
}

/**
 * Runs `webhooks <argv>`; resolves to the exit code and never throws.
 *
 * Nothing printed is searched for secrets after it is written: each value from the outside world
 * passes the text policy (src/text/policy.ts) as a command puts it in a table, in `--json` or in a
 * message, so no secret, however short or common a word, alters a header, a label or our words,
 * or breaks the JSON. The one exception is the client's own errors, which name the host they could
 * not reach: the connection's secrets (its token, a base URL held secret) are kept out of those.
 */
export async function main(argv: readonly string[], io: MainIo): Promise<ExitCode> {
  let connectionSecrets: string[] = [];
  try {
    return await dispatch(argv, io, (found) => (connectionSecrets = [...connectionSecrets, ...found]));
  } catch (error) {
    const code = exitCodeOf(error);
    const raw = error instanceof Error ? error.message : String(error);
    const message = error instanceof WebhookApiError ? redactShown(raw, connectionSecrets) : raw;
    const prefix =
      code === EXIT.unexpected ? `unexpected ${error instanceof Error ? error.name : "failure"}: ` : "";
    io.sink.stderr(`webhooks: ${showable(`${prefix}${message}`, 4000)}\n`);
    if (code === EXIT.usage && !/--help/.test(message)) io.sink.stderr("(see `webhooks --help`)\n");
    return code;
  }
}

/** The words before a command: none, help, version, or a command that left. */
function preamble(first: string | undefined, io: MainIo): ExitCode | undefined {
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
  if (first === "plugin-archive") throw usageError(PLUGIN_ARCHIVE_GONE);
  return undefined;
}

async function dispatch(
  argv: readonly string[],
  io: MainIo,
  onConnectionSecrets: (secrets: readonly string[]) => void,
): Promise<ExitCode> {
  const [first, ...rest] = argv;
  const early = preamble(first, io);
  if (early !== undefined) return early;
  const command = COMMANDS.find((candidate) => candidate.name === first);
  if (command === undefined)
    throw usageError(
      `unknown command ${JSON.stringify(showable(first!, 40))}: use ${COMMANDS.map((c) => c.name).join(", ")}`,
    );
  const flags = parseFlags(command, rest);
  if (flags.bool("help")) {
    io.sink.stdout(`${command.usage}\n\n${commonHelp()}\n`);
    return EXIT.ok;
  }
  command.validate?.(flags);
  const context = commandContext(io, flags, onConnectionSecrets);
  try {
    await command.run(context);
    return EXIT.ok;
  } finally {
    await context.close();
  }
}

/** Parses a command's flags strictly: an unknown flag, or one that takes one value given twice, is a usage error. */
function parseFlags(command: Command, args: readonly string[]): Flags {
  const options: NonNullable<ParseArgsConfig["options"]> = { ...COMMON_OPTIONS, ...command.options };
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    const parsed = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    values = parsed.values;
    // A flag that takes one value, given twice, would keep only the last one silently (`--name A --name B`).
    const seen = new Set<string>();
    for (const token of parsed.tokens) {
      if (token.kind !== "option" || options[token.name]?.multiple === true) continue;
      if (seen.has(token.name)) throw new Error(`--${token.name} was given more than once; give it once`);
      seen.add(token.name);
    }
  } catch (error) {
    throw usageError(`${command.name}: ${(error as Error).message}`);
  }
  return {
    str: (name) => (typeof values[name] === "string" ? values[name] : undefined),
    bool: (name) => values[name] === true,
    list: (name) => (Array.isArray(values[name]) ? values[name].filter((v) => typeof v === "string") : []),
  };
}

/** The stack and the service as a command reaches them, resolved when first needed and closed after. */
function commandContext(
  io: MainIo,
  flags: Flags,
  onConnectionSecrets: (secrets: readonly string[]) => void,
): CommandContext & { close(): Promise<void> } {
  const pulumi = io.pulumi ?? pulumiCli({ cwd: io.cwd, env: io.env });
  const open: CommandContext["open"] = (options) =>
    io.client ? io.client(options) : new WebhooksClient(options);
  let opened: (ListingClient & { close?(): Promise<void> }) | undefined;
  let resolved: CliConnection | undefined;
  let secrets: ShownSecrets = { inText: [] };
  return {
    io,
    flags,
    pulumi,
    open,
    async connect() {
      if (opened === undefined) {
        resolved = await resolveCliConnection({
          flags: { baseUrl: flags.str("base-url"), accessToken: flags.str("access-token") },
          stack: flags.str("stack"),
          cwd: io.cwd,
          env: io.env,
          pulumi,
          warn: (message) => io.sink.stderr(`webhooks: ${message}\n`),
        });
        secrets = {
          inText: resolved.secrets,
          whole: resolved.wholeSecrets,
          signing: resolved.signingSecrets,
        };
        onConnectionSecrets(resolved.connectionSecrets);
        opened = open(resolved.connection.client);
      }
      return opened;
    },
    connection() {
      if (resolved === undefined) throw new Error("the connection is read before it is resolved");
      return resolved;
    },
    secrets: () => secrets,
    addSecrets(found) {
      secrets = { ...secrets, inText: [...secrets.inText, ...found] };
    },
    addConnectionSecrets: onConnectionSecrets,
    close: async () => opened?.close?.(),
  };
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
