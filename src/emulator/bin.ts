#!/usr/bin/env node
// Command line entry: `webhooks-emulator [flags]`. Precedence: flags, then environment, then the
// --config file, then the profile, then defaults.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import { EmulatorConfigError, WELL_KNOWN_TOKEN, nonLoopbackWithoutToken, validateOptions } from "./resolve";
import { isLoopbackAddress } from "./server";
import type { Emulator, EmulatorOptions, FaultOptions } from "./types";

export const USAGE = `Usage: webhooks-emulator [flags]
  --port <n>          TCP port (default 0: any free port)
  --host <addr>       interface (default 127.0.0.1); 0.0.0.0 or :: is every interface. Any but a
                      loopback one (127.0.0.1, ::1, localhost) needs a chosen access token
  --token <t>         access token (default $WEBHOOKS_ACCESS_TOKEN, else "emulator-token", which
                      only a loopback interface accepts)
  --persist <file>    keep records in this JSON file across restarts
  --profile <name>    option preset (see EMULATOR_PROFILES)
  --seed <n>          fault PRNG seed (default 1)
  --latency-ms <n>    delay added to every API response
  --fault-rate <r>    random fault probability 0..1 on list and create
  --config <file>     JSON file with any EmulatorOptions
  --help              show this text
The first line is "webhooks emulator listening on <url>" (for 0.0.0.0 or ::, a loopback URL that works
here; the next line names the address bound and says other machines can reach it).
The admin routes under /__emulator/ take only the admin token printed at start (never the access
token) in Authorization, from a loopback Host, with Content-Type: application/json on anything but
GET. A request without the access token is answered 401 before its body is read.`;

export interface MainIo {
  /** Environment to read WEBHOOKS_ACCESS_TOKEN from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Receives each output line. @default console.log */
  log?: (line: string) => void;
  /** Close the emulator on SIGINT/SIGTERM. @default true */
  handleSignals?: boolean;
}

/** Runs the CLI; resolves to the running emulator, or undefined after `--help`. */
export async function main(argv: readonly string[], io: MainIo = {}): Promise<Emulator | undefined> {
  const log = io.log ?? ((line: string) => console.log(line));
  const options = optionsFromArgs(argv, io.env ?? process.env);
  if (options === undefined) {
    log(USAGE);
    return undefined;
  }
  const emulator = await startEmulator(options);
  // Scripts read this line (scripts/harness/emulator.mjs): nothing but the URL after the prefix.
  log(`webhooks emulator listening on ${emulator.url}`);
  const bound = emulator.bound;
  if (!bound.loopback) {
    const where = bound.allInterfaces
      ? `all ${bound.address === "::" ? "" : `${bound.family} `}interfaces`
      : "a non-loopback interface";
    log(
      `bound to ${bound.family === "IPv6" ? `[${bound.address}]` : bound.address}:${bound.port} (${where}): other machines can reach it; the admin routes take only the admin token`,
    );
  }
  // The token is a secret in real use; its length is enough to check the right one was picked up.
  log(`token: set (${(options.accessToken ?? "").length} chars)`);
  // A generated admin token is shown once, here: it is how the person who started the emulator
  // (and nobody else on the machine) reaches the admin routes. One they chose is not repeated.
  log(
    options.adminToken === undefined
      ? `admin token: ${emulator.adminToken}`
      : `admin token: set (${emulator.adminToken.length} chars)`,
  );
  if (io.handleSignals ?? true) stopOnSignals(emulator, log);
  return emulator;
}

/** Turns flags into options; undefined means `--help` was asked for. */
export function optionsFromArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): EmulatorOptions | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        token: { type: "string" },
        persist: { type: "string" },
        profile: { type: "string" },
        seed: { type: "string" },
        "latency-ms": { type: "string" },
        "fault-rate": { type: "string" },
        config: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    throw new EmulatorConfigError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (parsed.help === true) return undefined;

  const options: EmulatorOptions = parsed.config === undefined ? {} : readConfigFile(parsed.config);
  const chosen = parsed.token ?? env.WEBHOOKS_ACCESS_TOKEN ?? options.accessToken;
  options.accessToken = chosen ?? WELL_KNOWN_TOKEN;
  if (parsed.port !== undefined) options.port = integerFlag("--port", parsed.port);
  if (parsed.host !== undefined) options.host = parsed.host;
  // Where other machines can connect, the default token would let anyone in: refused before
  // listening (startEmulator checks the address actually bound as well).
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackAddress(host) && (chosen === undefined || chosen === WELL_KNOWN_TOKEN)) {
    throw new EmulatorConfigError(nonLoopbackWithoutToken(host, "--token <t> or WEBHOOKS_ACCESS_TOKEN"));
  }
  if (parsed.persist !== undefined) options.persistPath = parsed.persist;
  if (parsed.profile !== undefined) options.profile = parsed.profile;
  if (parsed.seed !== undefined) options.seed = integerFlag("--seed", parsed.seed);
  if (parsed["latency-ms"] !== undefined)
    options.latencyMs = integerFlag("--latency-ms", parsed["latency-ms"]);
  if (parsed["fault-rate"] !== undefined) {
    const rate = Number(parsed["fault-rate"]);
    if (parsed["fault-rate"].trim() === "" || !(rate >= 0 && rate <= 1)) {
      throw new EmulatorConfigError("--fault-rate must be a number from 0 to 1");
    }
    // Only the rate changes: kinds and timings from the config file still apply.
    const faults: FaultOptions = options.faults ?? {};
    options.faults = { list: { ...faults.list, rate }, create: { ...faults.create, rate } };
  }
  return validateOptions(options, "options");
}

function readConfigFile(path: string): EmulatorOptions {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new EmulatorConfigError(
      `--config ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return validateOptions(value, `--config ${path}`);
}

function integerFlag(flag: string, value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isInteger(number) || number < 0) {
    throw new EmulatorConfigError(`${flag} must be a non-negative integer`);
  }
  return number;
}

function stopOnSignals(emulator: Emulator, log: (line: string) => void): void {
  const stop = (signal: NodeJS.Signals): void => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    log(`webhooks emulator stopping (${signal})`);
    emulator.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

// Run only when executed, not when imported (tests import main). The typeof guards keep this
// harmless where CommonJS globals do not exist, such as the test runner's ES module loader.
if (typeof require !== "undefined" && typeof module !== "undefined" && require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`webhooks emulator: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
