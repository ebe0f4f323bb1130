/**
 * How the `baton` command line reports a command that failed: one line for a person on stderr, or
 * with --json one JSON object there for scripts, and the exit code from the one table
 * (`src/shared/errors.ts`, docs/exit-codes.md). `main` holds the one catch and calls `report`.
 */
import type * as Commander from 'commander';
import { BatonError, EXIT_CODES } from '../shared/errors.js';
import type { Context } from './context.js';

/** Prints the error for a person, or with --json as one JSON object on stderr; answers the exit code. */
export function report(error: unknown, ctx: Context, json: boolean): number {
  if (isCommanderError(error)) {
    const exitCode = error.exitCode === 0 ? EXIT_CODES.ok.code : EXIT_CODES.invalidInput.code;
    if (json && exitCode !== 0)
      writeJsonError(ctx, 'invalid_input', error.message.replace(/^error: /, ''), exitCode);
    return exitCode;
  }
  if (error instanceof BatonError) {
    if (json) writeJsonError(ctx, error.code, error.message, error.exitCode, error.data);
    else ctx.err.write(`baton: ${error.message}\n`);
    return error.exitCode;
  }
  ctx.err.write(
    `baton: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT_CODES.internal.code;
}

function writeJsonError(
  ctx: Context,
  code: string,
  message: string,
  exitCode: number,
  data: Record<string, unknown> = {},
): void {
  ctx.err.write(
    JSON.stringify({
      error: { code, message, exitCode, ...(Object.keys(data).length === 0 ? {} : { data }) },
    }) + '\n',
  );
}

/** Commander's own errors (usage, --help, --version) carry a `commander.*` code. */
function isCommanderError(error: unknown): error is Commander.CommanderError {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('commander.');
}
