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
  /** `recover` refused to guess, or found a conflict that needs a person (nothing was changed); `adopt` could declare none of the endpoints. */
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

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  unexpected failure
  2  usage error (unknown command or flag, missing or bad value)
  3  configuration error (a setting missing or invalid; pulumi or the stack unusable)
  4  the service failed or refused (including an access token it does not accept)
  5  recover refused to guess or found a conflict that needs a person; nothing was changed;
     or adopt could print no declaration (the warnings say why)`;
