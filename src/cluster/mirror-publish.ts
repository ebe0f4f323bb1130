/**
 * The publishing half of the session mirror: this machine's sessions into the workspace log.
 * Views are coalesced per session — at most one append in flight, and whatever arrives meanwhile
 * folds into one more append of the newest — because a busy session changes its view many times
 * a second and the others only need the latest. Events are never coalesced: each is appended,
 * one session's in call order; both are tried again after a failure.
 */
import type { z } from 'zod';
import { InvalidInputError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import type { PgWorkspaceLog } from './bus.js';
import { capEvent } from './cut.js';
import {
  ClusterEventPublished,
  ClusterSessionPublished,
  ClusterSessionRemoved,
  MirroredEvent,
  SessionView,
} from './events.js';

/** 64 KiB: a long assistant message fits, a multi-megabyte tool output does not. */
export const EVENT_CAP_BYTES = 64 * 1024;
/** Tries of one event's append before it is given up (about 1.5 min with the default backoff). */
const EVENT_TRIES = 8;

type Next = { kind: 'view'; view: SessionView } | { kind: 'removed' };

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

interface Slot {
  next: Next | undefined;
  waiters: Waiter[];
  running: Promise<void> | undefined;
}

/** How a failed view append is retried: after `firstMs`, doubling up to `maxMs`. */
export interface RetryTiming {
  firstMs: number;
  maxMs: number;
}

export class SessionPublisher {
  private readonly slots = new Map<string, Slot>();
  private readonly eventChains = new Map<string, Promise<unknown>>();
  private readonly retries = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly log: PgWorkspaceLog,
    private readonly machine: string,
    private readonly capBytes = EVENT_CAP_BYTES,
    private readonly retry: RetryTiming = { firstMs: 500, maxMs: 30_000 },
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  /**
   * Appends the latest view of one local session, or folds it into the append already waiting:
   * resolves once this view, or a newer one of the same session, is in the log.
   */
  publish(view: unknown): Promise<void> {
    const parsed = checked(SessionView, view, 'view');
    return this.enqueue(parsed.id, { kind: 'view', view: parsed });
  }

  /** The session is gone from this machine: a tombstone, after any view still waiting. */
  removed(sessionId: unknown): Promise<void> {
    return this.enqueue(checkedId(sessionId), { kind: 'removed' });
  }

  /** Appends one normalized event of a session, cut to the size cap if it is larger. */
  publishEvent(sessionId: unknown, event: unknown): Promise<void> {
    const id = checkedId(sessionId);
    const parsed = checked(MirroredEvent, event, 'event');
    const { event: capped, originalBytes } = capEvent(parsed, this.capBytes);
    const data = {
      machine: this.machine,
      sessionId: id,
      eventSeq: parsed.seq,
      event: capped,
      ...(originalBytes === undefined ? {} : { cut: { originalBytes } }),
    };
    const previous = this.eventChains.get(id) ?? Promise.resolve();
    const appended = previous.catch(() => {}).then(() => this.appendEvent(data));
    this.eventChains.set(id, appended);
    void appended
      .finally(() => {
        if (this.eventChains.get(id) === appended) this.eventChains.delete(id);
      })
      .catch(() => {});
    return appended.then(() => {});
  }

  /**
   * One event appended, tried again after a failure (the store gone for a moment) with the view's
   * backoff, up to EVENT_TRIES times: a gap in another machine's peek or follow of the session
   * would otherwise stay for good. The session's later events wait behind it, so order holds.
   */
  private async appendEvent(data: unknown): Promise<void> {
    for (let failures = 0; ; failures++) {
      try {
        await this.log.append(ClusterEventPublished.type, data);
        return;
      } catch (error) {
        if (this.closed || failures + 1 >= EVENT_TRIES) throw error;
        this.logger?.warn('a session event did not reach the shared store; trying again', {
          error: error instanceof Error ? error.message : String(error),
          tries: failures + 1,
        });
        await this.pause(Math.min(this.retry.maxMs, this.retry.firstMs * 2 ** failures));
      }
    }
  }

  /** Drops the retries waiting, then resolves once nothing is being appended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const stop of this.retries) stop();
    await this.idle();
  }

  /** Resolves once nothing is being appended. */
  async idle(): Promise<void> {
    while (this.slots.size > 0 || this.eventChains.size > 0) {
      await Promise.allSettled([
        ...[...this.slots.values()].map((slot) => slot.running),
        ...this.eventChains.values(),
      ]);
    }
  }

  private enqueue(sessionId: string, next: Next): Promise<void> {
    let slot = this.slots.get(sessionId);
    if (slot === undefined) {
      slot = { next: undefined, waiters: [], running: undefined };
      this.slots.set(sessionId, slot);
    }
    slot.next = next;
    const done = new Promise<void>((resolve, reject) => slot.waiters.push({ resolve, reject }));
    slot.running ??= this.drain(sessionId, slot);
    return done;
  }

  private async drain(sessionId: string, slot: Slot): Promise<void> {
    let failures = 0;
    while (slot.next !== undefined && !this.closed) {
      const next = slot.next;
      const waiters = slot.waiters;
      slot.next = undefined;
      slot.waiters = [];
      try {
        if (next.kind === 'view')
          await this.log.append(ClusterSessionPublished.type, {
            machine: this.machine,
            sessionId,
            view: next.view,
          });
        else await this.log.append(ClusterSessionRemoved.type, { machine: this.machine, sessionId });
        for (const waiter of waiters) waiter.resolve();
        failures = 0;
      } catch (error) {
        // The caller hears of it now; the others still get this view (or a newer one) once the
        // store is back, without waiting for the session's next change.
        for (const waiter of waiters) waiter.reject(error);
        slot.next ??= next;
        await this.pause(Math.min(this.retry.maxMs, this.retry.firstMs * 2 ** failures++));
      }
    }
    for (const waiter of slot.waiters) waiter.reject(new Error('the session mirror is closed'));
    this.slots.delete(sessionId);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const stop = (): void => {
        clearTimeout(timer);
        this.retries.delete(stop);
        resolve();
      };
      const timer = setTimeout(stop, ms);
      this.retries.add(stop);
    });
  }
}

function checkedId(sessionId: unknown): string {
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new InvalidInputError(`sessionId must be a session id; got ${JSON.stringify(sessionId)}.`, {
      key: 'sessionId',
      value: sessionId,
    });
  return sessionId;
}

function checked<T extends z.ZodType>(schema: T, value: unknown, name: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = [name, ...(issue?.path ?? [])].join('.');
  throw new InvalidInputError(`The ${name} to mirror is invalid at ${key}: ${issue?.message ?? 'invalid'}.`, {
    key,
  });
}
