import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { SessionStateChanged, type WorkspaceEvent } from '../events/workspace.js';
import { SessionNotFoundError } from '../shared/errors.js';
import { openDb, type Db } from '../store/db.js';
import type { SessionWithProject } from '../store/sessions.js';
import { SyncPushError, type PushInput, type PushOutcome } from './push.js';
import { SyncService } from './service.js';

let dir: string;
let db: Db;
let now: number;
let bus: WorkspaceBus;
let timers: { fn: () => void; at: number }[];
const session = {
  id: 'sid1',
  name: 'one',
  project_name: 'proj',
  branch: 'baton/one',
  worktree: '/nowhere',
  removed_at: null,
} as SessionWithProject;
const sessions = {
  get: (id: string) => (id === session.id ? session : undefined),
  resolve: (ref: string) =>
    ref === session.name
      ? session
      : (() => {
          throw new SessionNotFoundError(ref);
        })(),
  list: () => [session],
  whileHeld: <T>(_id: string, work: () => Promise<T>): Promise<T> => work(),
};

function config(sync: unknown): void {
  mkdirSync(join(dir, '.baton'), { recursive: true });
  writeFileSync(join(dir, '.baton', 'config.json'), JSON.stringify({ sync }));
}

/** A push that answers as told, and records what it was asked. */
function pusher(outcomes: (PushOutcome | SyncPushError)[]): {
  calls: PushInput[];
  push: (input: PushInput) => Promise<PushOutcome>;
} {
  const calls: PushInput[] = [];
  return {
    calls,
    push: async (input) => {
      calls.push(input);
      const next = outcomes.shift();
      if (next === undefined || next instanceof Error) throw next ?? new Error('no outcome scripted');
      return next;
    },
  };
}

const ok = (commit: string): PushOutcome => ({
  ref: 'refs/heads/baton/one',
  commit,
  snapshotRef: null,
  snapshotCommit: null,
});
const turnEnds = (to: 'ready_for_review' | 'needs_input' = 'ready_for_review', reason?: unknown): void =>
  void bus.publish(SessionStateChanged, {
    sessionId: session.id,
    name: session.name,
    project: 'proj',
    from: 'working',
    to,
    ...(reason === undefined ? {} : { reason }),
  } as never);

function service(
  push: (input: PushInput) => Promise<PushOutcome>,
  lost?: (sessionId: string) => boolean,
): SyncService {
  const s = new SyncService({
    bus,
    sessions,
    push,
    // The notes round is tested on real git in notes.test.ts; here it has nothing to do.
    notes: () => Promise.resolve({ local: null, merged: false, pushed: false }),
    ...(lost === undefined ? {} : { lost }),
    now: () => now,
    schedule: (fn, ms) => (
      timers.push({ fn, at: now + ms }),
      () => (timers = timers.filter((t) => t.fn !== fn))
    ),
    backoffMs: 1_000,
  });
  s.start();
  return s;
}
const syncEvents = (): WorkspaceEvent[] => bus.list().filter((e) => e.type.startsWith('sync.'));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-sync-service-'));
  db = openDb(join(dir, 'baton.db'));
  now = Date.parse('2026-01-01T00:00:00Z');
  bus = new WorkspaceBus(db, () => new Date(now));
  timers = [];
  Object.assign(session, { project_root: dir, removed_at: null });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pushes at turn ends', () => {
  it('pushes only in a repository that asks for it, and not while an approval is waited on', async () => {
    const { calls, push } = pusher([ok('c1')]);
    const s = service(push);
    turnEnds();
    await s.idle();
    expect(calls).toHaveLength(0);
    config({ push: 'turn', remote: 'backup' });
    turnEnds('needs_input', { kind: 'approval', requestId: 'r', tool: 'Bash', input: 'rm' });
    await s.idle();
    expect(calls).toHaveLength(0);
    turnEnds();
    await s.idle();
    expect(calls.map((c) => c.remote)).toEqual(['backup']);
    expect(syncEvents().map((e) => e.type)).toEqual(['sync.pushed']);
    s.close();
  });

  it('never pushes a session another machine holds now (its placement was taken)', async () => {
    const { calls, push } = pusher([ok('c1')]);
    let lost = false;
    const s = service(push, () => lost);
    config({ push: 'turn' });
    lost = true;
    turnEnds('ready_for_review');
    await s.idle();
    expect(calls).toHaveLength(0);
    expect(syncEvents()).toEqual([]);
    s.close();
  });

  it('after a failure, waits out a doubling backoff: turn ends within it fold into one push when it is over', async () => {
    config({ push: 'turn' });
    const { calls, push } = pusher([
      new SyncPushError('error', 'network down'),
      new SyncPushError('error', 'still down'),
      ok('c3'),
    ]);
    const s = service(push);
    turnEnds();
    await s.idle();
    expect(syncEvents().at(-1)).toMatchObject({
      type: 'sync.failed',
      data: { reason: 'network down', failures: 1 },
    });
    now += 500;
    turnEnds();
    turnEnds();
    await s.idle();
    expect(calls).toHaveLength(1);
    expect(timers.map((t) => t.at - now)).toEqual([500]);
    now += 500;
    timers.shift()?.fn();
    await s.idle();
    expect(calls).toHaveLength(2);
    expect(s.list()[0]).toMatchObject({ failures: 2, nextTryAt: new Date(now + 2_000).toISOString() });
    // The second failure doubles the wait; a push asked for now goes at once and clears the timer.
    turnEnds();
    expect(timers.map((t) => t.at - now)).toEqual([2_000]);
    const pushed = await s.pushNow('one', undefined, false);
    expect(timers).toEqual([]);
    expect(pushed).toMatchObject({ commit: 'c3', failure: null, failures: 0, nextTryAt: null });
    s.close();
  });

  it('remembers the last push across a restart, from the stored events, and leases the next push on it', async () => {
    config({ push: 'turn' });
    const first = pusher([ok('c1')]);
    const before = service(first.push);
    turnEnds();
    await before.idle();
    before.close();
    const second = pusher([ok('c2')]);
    const after = service(second.push);
    expect(after.list('one')[0]).toMatchObject({ commit: 'c1', pushedAt: new Date(now).toISOString() });
    turnEnds();
    await after.idle();
    expect(second.calls[0]?.lastPushed).toBe('c1');
    after.close();
  });

  it('retries a failed push when its backoff is over, with no turn end after it (the last turn’s work is not left behind)', async () => {
    config({ push: 'turn' });
    const { calls, push } = pusher([
      new SyncPushError('error', 'network down'),
      new SyncPushError('error', 'still down'),
      ok('c1'),
    ]);
    const s = service(push);
    turnEnds('ready_for_review');
    await s.idle();
    expect(timers.map((t) => t.at - now)).toEqual([1_000]);
    now += 1_000;
    timers.shift()?.fn();
    await s.idle();
    expect(calls).toHaveLength(2);
    // The second failure arms the doubled wait by itself.
    expect(timers.map((t) => t.at - now)).toEqual([2_000]);
    now += 2_000;
    timers.shift()?.fn();
    await s.idle();
    expect(syncEvents().map((e) => e.type)).toEqual(['sync.failed', 'sync.failed', 'sync.pushed']);
    expect(timers).toEqual([]);
    s.close();
  });

  it('re-arms a retry still owed after a restart, for what is left of its backoff; close clears it', async () => {
    config({ push: 'turn' });
    const before = service(pusher([new SyncPushError('error', 'network down')]).push);
    turnEnds('ready_for_review');
    await before.idle();
    before.close();
    expect(timers).toEqual([]);
    now += 400;
    const second = pusher([ok('c1')]);
    const after = service(second.push);
    expect(timers.map((t) => t.at - now)).toEqual([600]);
    now += 600;
    timers.shift()?.fn();
    await after.idle();
    expect(second.calls).toHaveLength(1);
    expect(after.list('one')[0]).toMatchObject({ commit: 'c1', failures: 0 });
    after.close();
  });
});

describe('a session removed around a push', () => {
  it('is removed only once the push reading its worktree has taken the snapshot; then it is not pushed again', async () => {
    config({ push: 'turn' });
    const order: string[] = [];
    let finishRead = (): void => undefined;
    const calls: PushInput[] = [];
    const push = async (input: PushInput): Promise<PushOutcome> => {
      calls.push(input);
      await input.readWorktree?.(async () => {
        order.push('read started');
        await new Promise<void>((resolve) => (finishRead = resolve));
        order.push('read done');
      });
      return ok('c1');
    };
    const s = service(push);
    turnEnds('completed' as never);
    await Promise.resolve();
    const removal = s.whileRemoving(session.id, async () => void order.push('removed'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['read started']);
    finishRead();
    await removal;
    await s.idle();
    expect(order).toEqual(['read started', 'read done', 'removed']);
    turnEnds();
    await s.idle();
    expect(calls).toHaveLength(1);
    expect(syncEvents().map((e) => e.type)).toEqual(['sync.pushed']);
    s.close();
  });

  it('gets no sync.failed for a turn end heard after its worktree was removed, and its retry is cancelled', async () => {
    config({ push: 'turn' });
    const { calls, push } = pusher([
      new SyncPushError('error', 'network down'),
      new SyncPushError('error', 'the branch baton/one and its worktree are gone; there is nothing to push'),
    ]);
    const s = service(push);
    turnEnds();
    await s.idle();
    expect(timers).toHaveLength(1);
    await s.whileRemoving(session.id, async () => undefined);
    expect(timers).toEqual([]);
    session.removed_at = new Date(now).toISOString();
    now += 60_000;
    turnEnds('completed' as never);
    await s.idle();
    expect(calls).toHaveLength(1);
    expect(syncEvents().map((e) => e.type)).toEqual(['sync.failed']);
    // After a restart too (the store says removed).
    s.close();
    const after = service(push);
    turnEnds('completed' as never);
    await after.idle();
    expect(calls).toHaveLength(1);
    expect(timers).toEqual([]);
    after.close();
  });

  it('is pushed again when its removal failed', async () => {
    config({ push: 'turn' });
    const { calls, push } = pusher([ok('c1')]);
    const s = service(push);
    await expect(s.whileRemoving(session.id, () => Promise.reject(new Error('disk full')))).rejects.toThrow(
      'disk full',
    );
    turnEnds();
    await s.idle();
    expect(calls).toHaveLength(1);
    s.close();
  });
});
