/**
 * The `planwarden` command's errors (docs/ci.md exit codes), apart from the API client
 * (api-client.ts) so that a run that never talks to a server does not load the client and the
 * answer schemas (zod) it validates with.
 */

/** An error the command reports on stderr and answers with exit code 2 (usage, input, service). */
export class CliError extends Error {
  readonly exitCode = 2;
}

/** A request the server answered with a non-2xx status (kept, so the command can tell a model failure from a refusal). */
export class HttpError extends CliError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A request cut short because the command's `--timeout` expired (the caller says what it waited for). */
export class TimeoutError extends CliError {}
