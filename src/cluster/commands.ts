/**
 * Answering a session from any machine (decision 126): a reply, an approval decision or a stop
 * for a session that runs elsewhere is a row in `cluster_commands` for its machine. The sender
 * inserts it and NOTIFYs in one statement; a server of that machine claims it with
 * `UPDATE … WHERE state = 'pending' … RETURNING` (so it runs once, however many servers share the
 * name), runs the handler, stores the answer or the error and NOTIFYs back. The sender withdraws
 * a command nobody took in time, so a machine that comes back later never runs a stale one.
 * The one-decision-per-approval guarantee stays the owning machine's: its handler refuses.
 */
import type pg from 'pg';
import { z } from 'zod';
import { Coalesced } from '../shared/coalesce.js';
import { BatonError, InvalidInputError, isErrorCode } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { RemoteCommandFailedError, RemoteCommandTimeoutError } from './errors.js';
import type { Listener } from './listener.js';
import { checkWorkerName } from './workers.js';

/** Senders NOTIFY here (payload: the machine) so its servers wake at once. */
export const COMMAND_CHANNEL = 'baton_commands';
/** Servers NOTIFY here (payload: the command's id) when its answer is stored. */
export const COMMAND_DONE_CHANNEL = 'baton_command_done';
/** The channels the process's Listener must LISTEN on for RemoteCommands. */
export const COMMAND_CHANNELS = [COMMAND_CHANNEL, COMMAND_DONE_CHANNEL] as const;
const log = createLogger('cluster.commands');

const sessionId = z.string().min(1);
export const RemoteCommand = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reply'), sessionId, text: z.string().min(1) }),
  z.object({
    kind: z.literal('approval'),
    sessionId,
    approvalId: z.string().min(1).optional(),
    decision: z.enum(['allow', 'deny']),
    reason: z.string().optional(),
  }),
  z.object({ kind: z.literal('stop'), sessionId }),
  // Landing from another machine: commit and push the work now; then, once landed, retire the session.
  z.object({ kind: z.literal('handover'), sessionId }),
  z.object({
    kind: z.literal('retire'),
    sessionId,
    commit: z.string().min(1),
    lastSeq: z.number().int().min(0),
  }),
  // Reads of what only the session's machine has: its worktree and its usage reports.
  z.object({ kind: z.literal('diff'), sessionId }),
  z.object({ kind: z.literal('diffstat'), sessionId }),
  z.object({ kind: z.literal('files'), sessionId }),
  z.object({ kind: z.literal('usage'), sessionId }),
]);
export type RemoteCommand = z.infer<typeof RemoteCommand>;

export type CommandHandler = (command: RemoteCommand) => unknown;

export interface CommandTiming {
  /** How long `send` waits for an answer; default 10 s. */
  timeoutMs?: number;
  /** A server also polls this often, in case a notification was lost; default 5 s. */
  pollMs?: number;
}

export interface Serving {
  /** Stops claiming; resolves once the commands it was running are answered. */
  close(): Promise<void>;
}

interface Waiter {
  machine: string;
  settle(row: CommandRow): boolean;
}

interface CommandRow {
  state: 'pending' | 'running' | 'done' | 'failed' | 'expired';
  answer: unknown;
  error: { code?: unknown; message?: unknown } | null;
}

export class RemoteCommands {
  private readonly waiters = new Map<string, Waiter>();
  private readonly timeoutMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly pool: pg.Pool,
    /** The process's LISTEN connection; it must listen on COMMAND_CHANNELS. */
    private readonly listener: Listener,
    timing: CommandTiming = {},
  ) {
    this.timeoutMs = timing.timeoutMs ?? 10_000;
    this.pollMs = timing.pollMs ?? 5_000;
    listener.on('notification', this.onDone);
    listener.on('connected', this.recheckAll);
  }

  /** Runs `command` on `machine`; resolves with its handler's answer. */
  /**
   * `timeoutMs`: how long the machine has to take the command (else it is withdrawn) and, unless
   * `answerMs` is longer, to answer it; `answerMs`: how long a command taken may run (a push).
   */
  async send(
    machine: unknown,
    command: unknown,
    options: { timeoutMs?: number; answerMs?: number; forget?: boolean } = {},
  ): Promise<unknown> {
    const target = checkWorkerName(machine, 'machine');
    const parsed = RemoteCommand.safeParse(command);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = ['command', ...(issue?.path ?? [])].join('.');
      throw new InvalidInputError(
        `The command for ${target} is invalid at ${key}: ${issue?.message ?? 'invalid'}.`,
        { key },
      );
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    await this.listener.start();
    const { rows } = await this.pool.query<{ id: string }>(
      `WITH sent AS (INSERT INTO cluster_commands (machine, body) VALUES ($1, $2) RETURNING id)
       SELECT id, pg_notify('${COMMAND_CHANNEL}', $1) FROM sent`,
      [target, JSON.stringify(parsed.data)],
    );
    const id = rows[0]!.id;
    const answerMs = Math.max(timeoutMs, options.answerMs ?? timeoutMs);
    return new Promise<unknown>((resolve, reject) => {
      const expire = (final: boolean): void => {
        this.expire(id, target, final ? answerMs : timeoutMs, !final)
          .then((outcome) => {
            // Taken and still running: it has until `answerMs`.
            if (outcome === 'running') timer = setTimeout(() => expire(true), answerMs - timeoutMs);
            else if (outcome !== undefined) reject(outcome);
          }, reject)
          .finally(() => timer === undefined && this.waiters.delete(id));
      };
      let timer: NodeJS.Timeout | undefined = setTimeout(() => {
        timer = undefined;
        expire(answerMs === timeoutMs);
      }, timeoutMs);
      const finish = (row: CommandRow): boolean => {
        if (row.state === 'pending' || row.state === 'running') return false;
        clearTimeout(timer);
        this.waiters.delete(id);
        // A read's answer (a diff can be MiBs) is not kept once delivered.
        if (options.forget === true)
          void this.pool.query('DELETE FROM cluster_commands WHERE id = $1', [id]).catch(() => {});
        if (row.state === 'done') resolve(row.answer);
        else if (row.state === 'failed') reject(failure(target, row.error));
        else reject(new RemoteCommandTimeoutError(target, timeoutMs, false));
        return true;
      };
      this.waiters.set(id, { machine: target, settle: finish });
      // The answer may have come before the waiter was in place.
      this.recheck(id);
    });
  }

  /** Runs the commands sent to `machine` through `handler`, each exactly once. */
  serve(machine: unknown, handler: CommandHandler): Serving {
    const name = checkWorkerName(machine, 'machine');
    const running = new Set<Promise<void>>();
    let closed = false;

    const claimAll = async (): Promise<void> => {
      for (;;) {
        if (closed) return;
        const claimed = await this.claim(name);
        if (claimed === undefined) return;
        const run = this.run(name, claimed.id, claimed.body, handler).finally(() => running.delete(run));
        running.add(run);
      }
    };
    // One claiming pass at a time; a wake-up during it asks for one more.
    const claiming = new Coalesced(() =>
      claimAll().catch((error: unknown) =>
        log.warn('claiming commands failed; the next wake-up retries', {
          machine: name,
          error: errorText(error),
        }),
      ),
    );
    const wake = (): void => {
      if (!closed) void claiming.request();
    };
    const onNotification = (channel: string, payload: string): void => {
      if (channel === COMMAND_CHANNEL && payload === name) wake();
    };
    this.listener.on('notification', onNotification);
    this.listener.on('connected', wake);
    const poll = setInterval(wake, this.pollMs);
    this.listener.start().then(wake, (error: unknown) =>
      log.warn('the command listener could not start; polling only', {
        machine: name,
        error: errorText(error),
      }),
    );
    return {
      close: async () => {
        closed = true;
        clearInterval(poll);
        this.listener.off('notification', onNotification);
        this.listener.off('connected', wake);
        await claiming.idle();
        await Promise.allSettled([...running]);
      },
    };
  }

  /**
   * Deletes the commands finished (answered, failed or withdrawn) more than `olderThanMs` ago,
   * judged on the database's clock; returns how many. Pending and running ones are kept.
   */
  async prune(olderThanMs: unknown): Promise<number> {
    if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
      throw new InvalidInputError(
        `olderThanMs must be a number of milliseconds ≥ 0; got ${JSON.stringify(olderThanMs)}.`,
        { key: 'olderThanMs', value: olderThanMs },
      );
    }
    const { rowCount } = await this.pool.query(
      `DELETE FROM cluster_commands WHERE state IN ('done', 'failed', 'expired') AND done_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [olderThanMs],
    );
    return rowCount ?? 0;
  }

  /** Stops waiting for answers (pending `send`s time out as usual). */
  close(): void {
    this.listener.off('notification', this.onDone);
    this.listener.off('connected', this.recheckAll);
  }

  private async claim(machine: string): Promise<{ id: string; body: unknown } | undefined> {
    const { rows } = await this.pool.query<{ id: string; body: unknown }>(
      `UPDATE cluster_commands SET state = 'running', claimed_at = now()
       WHERE state = 'pending' AND id = (SELECT id FROM cluster_commands WHERE machine = $1 AND state = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, body`,
      [machine],
    );
    return rows[0];
  }

  private async run(machine: string, id: string, body: unknown, handler: CommandHandler): Promise<void> {
    let outcome:
      { state: 'done'; answer: unknown } | { state: 'failed'; error: { code: string; message: string } };
    const parsed = RemoteCommand.safeParse(body);
    if (!parsed.success) {
      outcome = {
        state: 'failed',
        error: {
          code: 'invalid_input',
          message: `The machine "${machine}" cannot read this command (sent by another version?): ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
        },
      };
    } else {
      try {
        outcome = { state: 'done', answer: (await handler(parsed.data)) ?? null };
      } catch (error) {
        outcome = {
          state: 'failed',
          error: { code: error instanceof BatonError ? error.code : 'internal', message: errorText(error) },
        };
      }
    }
    try {
      await this.pool.query(
        `WITH answered AS (UPDATE cluster_commands SET state = $2, answer = $3, error = $4, done_at = now() WHERE id = $1 RETURNING id)
         SELECT pg_notify('${COMMAND_DONE_CHANNEL}', id::text) FROM answered`,
        [
          id,
          outcome.state,
          outcome.state === 'done' ? JSON.stringify(outcome.answer) : null,
          outcome.state === 'failed' ? JSON.stringify(outcome.error) : null,
        ],
      );
    } catch (error) {
      log.warn('storing a command answer failed; its sender will time out', {
        machine,
        id,
        error: errorText(error),
      });
    }
  }

  /** The command took too long: withdrawn if nobody took it, otherwise reported as taken. */
  private async expire(
    id: string,
    machine: string,
    ms: number,
    mayRun = false,
  ): Promise<BatonError | 'running' | undefined> {
    const { rows } = await this.pool.query<CommandRow>(
      `WITH expired AS (UPDATE cluster_commands SET state = 'expired', done_at = now() WHERE id = $1 AND state = 'pending' RETURNING id)
       SELECT state, answer, error FROM cluster_commands WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM expired)`,
      [id],
    );
    const row = rows[0];
    // Answered just now: deliver the answer after all.
    if (row !== undefined && this.waiters.get(id)?.settle(row) === true) return undefined;
    if (row !== undefined && mayRun) return 'running';
    this.waiters.delete(id);
    return new RemoteCommandTimeoutError(machine, ms, row !== undefined);
  }

  private recheck(id: string): void {
    this.pool
      .query<CommandRow>('SELECT state, answer, error FROM cluster_commands WHERE id = $1', [id])
      .then(({ rows }) => {
        if (rows[0] !== undefined) this.waiters.get(id)?.settle(rows[0]);
      })
      .catch((error: unknown) =>
        log.warn('reading a command answer failed; waiting for the next wake-up', {
          id,
          error: errorText(error),
        }),
      );
  }

  private readonly onDone = (channel: string, payload: string): void => {
    if (channel === COMMAND_DONE_CHANNEL && this.waiters.has(payload)) this.recheck(payload);
  };

  /** After a reconnect the notifications sent meanwhile are gone: look at every open command. */
  private readonly recheckAll = (): void => {
    for (const id of this.waiters.keys()) this.recheck(id);
  };
}

function failure(machine: string, error: CommandRow['error']): RemoteCommandFailedError {
  const message =
    typeof error?.message === 'string'
      ? error.message
      : `The machine "${machine}" failed to run the command.`;
  return new RemoteCommandFailedError(machine, isErrorCode(error?.code) ? error.code : 'internal', message);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
