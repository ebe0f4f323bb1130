/**
 * Named errors with data. Each maps to one HTTP status and one CLI exit code, here and nowhere
 * else. Messages say what happened and what to do next.
 */
import { statfsSync } from 'node:fs';

export type ErrorCode =
  | 'invalid_input'
  | 'too_large'
  | 'not_found'
  | 'ambiguous'
  | 'conflict'
  | 'not_a_repository'
  | 'unauthorized'
  | 'forbidden'
  | 'supervisor_unreachable'
  | 'agent_unavailable'
  | 'host_unresponsive'
  | 'disk_full'
  | 'store_unreachable'
  | 'internal';

const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  too_large: 413,
  not_found: 404,
  ambiguous: 409,
  conflict: 409,
  not_a_repository: 400,
  unauthorized: 401,
  forbidden: 403,
  supervisor_unreachable: 503,
  agent_unavailable: 422,
  host_unresponsive: 504,
  disk_full: 507,
  store_unreachable: 503,
  internal: 500,
};

/**
 * Every exit code of `baton`, each with one meaning (decision 170, "One table of exit codes, each
 * meaning once"). Commands take their codes from here; the "Exit codes" table of
 * docs/exit-codes.md is this one, word for word (src/shared/exit-codes.test.ts holds them together).
 */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'done (for `wait`: every session ready for review or completed)' },
  internal: { code: 1, meaning: 'an internal error (a bug: please report it with the message)' },
  invalidInput: {
    code: 2,
    meaning: 'bad input: a usage error, an unknown flag or state, an invalid value or config',
  },
  notFound: {
    code: 3,
    meaning: 'not found (no such session, group or project), or an ambiguous reference',
  },
  notDone: {
    code: 4,
    meaning:
      'the session is in the wrong state for that, or it did not happen (e.g. `approve` without a pending approval; a merge that did not land; `sync --now` that did not push)',
  },
  refused: {
    code: 5,
    meaning:
      'refused: a consent is needed (`accept-dangerous`, dangerous permission modes), a wrong token, a forbidden call',
  },
  supervisorUnreachable: {
    code: 6,
    meaning: 'the supervisor could not be started or reached; `daemon status` when it is not running',
  },
  agentUnavailable: { code: 7, meaning: "the agent's CLI is not available" },
  hostUnresponsive: { code: 8, meaning: "the session's host did not answer in time" },
  diskFull: { code: 9, meaning: "the state folder's disk is full" },
  needsInput: { code: 10, meaning: '`wait` and `dispatch --wait`: a session needs input' },
  failed: {
    code: 11,
    meaning: '`wait` and `dispatch --wait`: a session failed; `routine run --now`: the run failed',
  },
  stopped: { code: 12, meaning: '`wait` and `dispatch --wait`: a session was stopped' },
  removed: { code: 13, meaning: '`wait` and `dispatch --wait`: a session was removed' },
  storeUnreachable: {
    code: 14,
    meaning: "the workspace's shared store (PostgreSQL) cannot be reached; nothing was lost, retry",
  },
  checkFailed: {
    code: 15,
    meaning: '`doctor`: a check failed (each failed line says the command that fixes it)',
  },
  timedOut: {
    code: 124,
    meaning:
      '`wait --timeout` ran out; `daemon stop`: the supervisor was still stopping when its wait ran out',
  },
  interrupted: { code: 130, meaning: '`baton merge` stopped waiting on Ctrl-C (the merge goes on)' },
} as const satisfies Record<string, { code: number; meaning: string }>;

const EXIT_CODE: Record<ErrorCode, number> = {
  invalid_input: EXIT_CODES.invalidInput.code,
  too_large: EXIT_CODES.invalidInput.code,
  not_found: EXIT_CODES.notFound.code,
  ambiguous: EXIT_CODES.notFound.code,
  conflict: EXIT_CODES.notDone.code,
  not_a_repository: EXIT_CODES.invalidInput.code,
  unauthorized: EXIT_CODES.refused.code,
  forbidden: EXIT_CODES.refused.code,
  supervisor_unreachable: EXIT_CODES.supervisorUnreachable.code,
  agent_unavailable: EXIT_CODES.agentUnavailable.code,
  host_unresponsive: EXIT_CODES.hostUnresponsive.code,
  disk_full: EXIT_CODES.diskFull.code,
  store_unreachable: EXIT_CODES.storeUnreachable.code,
  internal: EXIT_CODES.internal.code,
};

/**
 * The supervisor process's own exit when another supervisor already holds the home: read by the
 * command that started it (which then uses the other one), never an exit code of `baton`.
 */
export const SUPERVISOR_EXIT_ALREADY_RUNNING = 3;

/** The exit code an error code maps to. */
export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODE[code];
}

/** A code this version knows (one carried back from another machine may not be). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(HTTP_STATUS, value);
}

export class BatonError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }
  get exitCode(): number {
    return EXIT_CODE[this.code];
  }
}

export class InvalidInputError extends BatonError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('invalid_input', message, data);
  }
}

export class RequestTooLargeError extends BatonError {
  constructor(limitBytes: number) {
    super('too_large', `The request body is larger than the limit of ${limitBytes} bytes.`, { limitBytes });
  }
}

export class SessionNotFoundError extends BatonError {
  constructor(readonly ref: string) {
    super('not_found', `No session matches "${ref}". Run \`baton ls\` to see sessions.`, { ref });
  }
}

export class ProjectNotFoundError extends BatonError {
  constructor(
    readonly ref: string,
    known: string[],
  ) {
    super(
      'not_found',
      `No live session belongs to a project "${ref}"${known.length === 0 ? ' (there are no live sessions)' : `; projects with live sessions: ${known.join(', ')}`}. Give a project's name or root folder.`,
      { ref, known },
    );
  }
}

export class AmbiguousSessionError extends BatonError {
  constructor(
    readonly ref: string,
    readonly candidates: string[],
  ) {
    super(
      'ambiguous',
      `"${ref}" matches ${candidates.length} sessions (${candidates.join(', ')}); use more of the id or the name.`,
      {
        ref,
        candidates,
      },
    );
  }
}

export class AllowRuleNotFoundError extends BatonError {
  constructor(readonly id: string) {
    super('not_found', `No allow rule ${id}. Run \`baton policy ls\` to see them.`, { id });
  }
}

/** An allow rule asked for where the gate decides: the gate always wins over allow rules. */
export class GateWinsError extends BatonError {
  constructor(
    readonly rule: string,
    what: string,
  ) {
    super(
      'conflict',
      `The gate's rule ${rule} decides about ${what}; an allow rule cannot cover it. Approve it once, or change the rule under "policy" in .baton/config.json.`,
      { rule },
    );
  }
}

/** `baton sync restore`: the remote holds neither the session's snapshot nor its branch. */
export class RemoteSessionNotFoundError extends BatonError {
  constructor(
    readonly ref: string,
    readonly remote: string,
  ) {
    super(
      'not_found',
      `The remote "${remote}" has no work of a session "${ref}": neither refs/baton/snapshots/${ref} (by session id) nor the branch baton/${ref} (by name). \`baton sync\` on the machine that ran it shows its id and whether its pushes reached the remote.`,
      { ref, remote },
    );
  }
}

export class SessionStateError extends BatonError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('conflict', message, data);
  }
}

export class NotAGitRepositoryError extends BatonError {
  constructor(readonly path: string) {
    super(
      'not_a_repository',
      `${path} is not inside a git repository. Run baton from a repository (or \`git init\` first).`,
      { path },
    );
  }
}

/** No space (or quota) left where Baton keeps its state: nothing was half-written; free space and retry. */
export class DiskFullError extends BatonError {
  constructor(what: string, cause: string) {
    super(
      'disk_full',
      `The disk holding Baton's state is full (${cause}) while ${what}. Nothing was half-written; free some space and retry.`,
      { cause },
    );
  }
}

/** The error codes of a full disk or quota: ENOSPC and EDQUOT from the OS, SQLITE_FULL from SQLite. */
export function isDiskFull(error: unknown, folder: string = process.cwd()): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') return true;
  // SQLite's message, and git's (whose stderr a GitError carries).
  const stderr = (error as { stderr?: unknown } | null)?.stderr;
  const text = error instanceof Error ? `${error.message} ${typeof stderr === 'string' ? stderr : ''}` : '';
  if (/database or disk is full|No space left on device|Disk quota exceeded/.test(text)) return true;
  // Some of git's write failures name no cause ("unable to write file README.md"): a write that
  // failed where no space is left (the supervisor works in BATON_HOME) is the full disk.
  return /unable to write|could not write|failed to write|short write/i.test(text) && noSpaceLeft(folder);
}

function noSpaceLeft(folder: string): boolean {
  try {
    return statfsSync(folder).bavail === 0;
  } catch {
    return false;
  }
}

export class GitError extends BatonError {
  constructor(
    message: string,
    readonly args: string[],
    readonly stderr: string,
    code: 'internal' | 'conflict' = 'internal',
  ) {
    super(code, message, { args, stderr });
  }
}

export class SupervisorUnreachableError extends BatonError {
  constructor(message: string) {
    super('supervisor_unreachable', message);
  }
}

export class UnauthorizedError extends BatonError {
  constructor(
    message = 'The supervisor rejected the token. Check $BATON_HOME/token, or restart it with `baton daemon stop`.',
  ) {
    super('unauthorized', message);
  }
}

/** A request the caller may not make this way (e.g. a cookie-authenticated page asking for login codes). */
export class ForbiddenError extends BatonError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/**
 * A repository's `.baton/config.json` would run commands (setup, teardown, merge check, routines,
 * variables) whose exact content the user has not trusted (decision 161): nothing of it ran.
 */
export class UntrustedConfigError extends BatonError {
  constructor(
    readonly root: string,
    readonly sha256: string,
    readonly commands: { part: string; command: string }[],
    changed: boolean,
  ) {
    const shown = commands.map((c) => `\n  ${c.part}: ${c.command}`).join('');
    super(
      'forbidden',
      `${changed ? 'The commands in' : 'Baton has not been told to trust'} ${root}/.baton/config.json${changed ? ' changed since you trusted them' : ''}; nothing of it ran. It would run:${shown}\nRead them, then run \`baton trust\` in ${root} (\`baton trust --yes\` in scripts) to let them run.`,
      { reason: 'config_not_trusted', root, sha256, commands },
    );
  }
}

/** Dispatch in a dangerous permission mode before the user accepted it for the folder. */
export class DangerousModeNotAcceptedError extends BatonError {
  constructor(
    readonly root: string,
    readonly mode: string,
  ) {
    super(
      'forbidden',
      `--permission-mode ${mode} lets agents edit files and run any command without asking. Accept it once for ${root}: run this dispatch in a terminal and answer the prompt, or run \`baton accept-dangerous\` there.`,
      { reason: 'dangerous_mode_not_accepted', root, mode },
    );
  }
}

/**
 * A folder Baton would put its sockets in is not the user's alone: another user could replace a
 * socket there and receive what Baton sends (replies, approvals).
 */
export class UnsafeSocketFolderError extends BatonError {
  constructor(
    readonly folder: string,
    readonly problem: string,
  ) {
    super(
      'forbidden',
      `Baton will not use ${folder} for its sockets: ${problem}. Another user may have made it to intercept Baton. Remove it (as its owner or root) and try again, or set a shorter BATON_HOME (under ~70 characters), whose sockets then stay inside it.`,
      { reason: 'unsafe_socket_folder', folder, problem },
    );
  }
}

export class AgentUnavailableError extends BatonError {
  constructor(
    readonly agent: string,
    message: string,
  ) {
    super('agent_unavailable', message, { agent });
  }
}

/** A session host took the request but did not answer in time: it may still act on it. */
export class HostUnresponsiveError extends BatonError {
  constructor(readonly ms: number) {
    super(
      'host_unresponsive',
      `The session host did not answer within ${Math.round(ms / 1000)} s; it may still act on the request. Check with \`baton peek\`; a reply sent again with the same client id is applied once.`,
      { ms },
    );
  }
}

/** For states that cannot happen; the message is for the bug report. */
export class InternalError extends BatonError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('internal', message, data);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A zod error as one readable line: `field: problem; other.field: problem`. */
export function formatIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message,
    )
    .join('; ');
}
