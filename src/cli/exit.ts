import { WebhookApiError, WebhookConfigError } from "../client";

/** The exit codes of `webhooks`, stable and documented in `--help`. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** An unexpected failure (a bug, or a pulumi command that failed in a way we did not foresee). */
  unexpected: 1,
  /** The command line was wrong: unknown command or flag, a missing or bad value. */
  usage: 2,
  /** Configuration: a setting is missing or invalid, pulumi or the stack could not be used. */
  config: 3,
  /** The service failed or refused (including an access token it does not accept). */
  service: 4,
  /**
   * `recover` refused to guess, or found a conflict that needs a person (nothing was changed); `adopt`
   * could declare none of the endpoints.
   */
  refused: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the command explains itself, with the exit code it maps to. */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError(EXIT.usage, message);
}

/** The exit code for anything a command threw. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof WebhookConfigError) return EXIT.config;
  if (error instanceof WebhookApiError) return EXIT.service;
  return EXIT.unexpected;
}

/**
 * What each exit code means, for `--help` and docs/operator-cli.md's table (held to it by
 * test/docs/cli-tables.test.ts).
 */
export const EXIT_MEANINGS: Record<ExitCode, string> = {
  [EXIT.ok]: "success",
  [EXIT.unexpected]: "unexpected failure",
  [EXIT.usage]: "usage error (unknown command or flag, a missing or bad value)",
  [EXIT.config]: "configuration error (a setting missing or invalid; `pulumi` or the stack unusable)",
  [EXIT.service]: "the service failed or refused (including an access token it does not accept)",
  [EXIT.refused]:
    "`recover` refused to guess, or found a conflict that needs a person (nothing was changed); " +
    "or `adopt` could print no declaration (its warnings say why)",
};

export const EXIT_CODES_HELP = `Exit codes:\n${Object.entries(EXIT_MEANINGS)
  .map(([code, meaning]) => wrap(`  ${code}  ${meaning.replaceAll("`", "")}`, "     "))
  .join("\n")}`;

/** Wraps a help line at 100 columns, continuing with `indent`. */
function wrap(line: string, indent: string): string {
  const out: string[] = [];
  let current = "";
  for (const word of line.split(/(?<=\S) (?=\S)/)) {
    if (current !== "" && current.length + 1 + word.length > 100) {
      out.push(current);
      current = indent + word;
    } else current = current === "" ? word : `${current} ${word}`;
  }
  return [...out, current].join("\n");
}
