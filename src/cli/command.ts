// What a command of `webhooks` is: its name, its words for `--help`, its flags, the checks of
// their values and what it runs. Each command lives in one file under commands/ and is registered
// by its name in COMMANDS (commands/index.ts); main.ts parses, dispatches and maps failures to
// exit codes for all of them alike.
import type { ParseArgsConfig } from "node:util";
import type { WebhooksClient } from "../client";
import type { ShownSecrets } from "../text";
import type { ListingClient } from "./commands/listing";
import type { Sink } from "./output/output";
import type { CliConnection } from "./stack/config";
import type { PulumiRunner } from "./stack/pulumi";

/** What `main` needs from the outside world; tests pass their own. */
export interface MainIo {
  sink: Sink;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** @default the `pulumi` on PATH */
  pulumi?: PulumiRunner;
  /** @default a WebhooksClient for the resolved connection */
  client?: (options: ClientOptions) => OpenedClient;
}

export type ClientOptions = ConstructorParameters<typeof WebhooksClient>[0];
export type OpenedClient = ListingClient & { close?(): Promise<void> };

/** The flags every command takes (the connection, the output). */
export const COMMON_OPTIONS = {
  "base-url": { type: "string" },
  "access-token": { type: "string" },
  json: { type: "boolean" },
  progress: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

/** The parsed flags of one invocation, read by name. */
export interface Flags {
  str: (name: string) => string | undefined;
  bool: (name: string) => boolean;
  list: (name: string) => string[];
}

/** What a command's run is given: the parsed flags and the ways to reach the stack and the service. */
export interface CommandContext {
  io: MainIo;
  flags: Flags;
  pulumi: PulumiRunner;
  /** Resolves the connection (flags, then the stack's config, then the environment) and opens a client, once. */
  connect: () => Promise<ListingClient>;
  /** The resolved connection; only after {@link connect}. */
  connection: () => CliConnection;
  /** The secrets nothing printed may show: the connection's, and any a command finds later. */
  secrets: () => ShownSecrets;
  /** Secrets found while running (other providers' tokens): kept out of everything, errors included. */
  addSecrets: (found: readonly string[]) => void;
  /** Connection secrets to keep out of the client's own errors. */
  addConnectionSecrets: (found: readonly string[]) => void;
  /** A client for other connections than the stack's own (other providers). */
  open: (options: ClientOptions) => OpenedClient;
}

export interface Command {
  readonly name: string;
  /** One line for `webhooks --help`. */
  readonly summary: string;
  /** `webhooks <command> --help`: the command's own usage; the common part is added. */
  readonly usage: string;
  /** The command's flags besides {@link COMMON_OPTIONS}. */
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  /** Checks flag values before anything is read or called; throws a usage error. */
  validate?(flags: Flags): void;
  run(context: CommandContext): Promise<void>;
}
