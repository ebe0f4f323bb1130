import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionDispatched, SessionPinned } from '../events/workspace.js';
import { openDb, type Db } from '../store/db.js';
import { WorkspaceBus, type FollowedEvent } from './index.js';

let dir: string;
let db: Db;
let bus: WorkspaceBus;
const at = new Date('2026-01-02T03:04:05.000Z');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-bus-'));
  db = openDb(join(dir, 'baton.db'));
  bus = new WorkspaceBus(db, () => at);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const ref = { sessionId: 's1', name: 'w', project: 'repo' };

describe('the workspace bus', () => {
  it('delivers an event a subscriber publishes only after the one it answers has reached every subscriber', async () => {
    // The first subscriber answers a dispatch with a pin (as tasks answer a state change with a move).
    bus.subscribe((event) => {
      if (event.type === 'session.dispatched') bus.publish(SessionPinned, { ...ref, pinned: true });
    });
    const heard: number[] = [];
    bus.subscribe((event) => heard.push(event.seq));
    const followed: number[] = [];
    const controller = new AbortController();
    const closed = new Promise<void>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve()),
    );
    const following = bus.follow(
      0,
      (event) => {
        followed.push(event.seq);
        if (event.seq === 2) controller.abort();
        return Promise.resolve();
      },
      closed,
      () => {
        bus.publish(SessionDispatched, { ...ref, agent: 'claude', branch: 'baton/w' });
        return Promise.resolve();
      },
    );
    await following;
    expect(heard).toEqual([1, 2]);
    // A follower drops what is older than the last it saw: delivered out of order, seq 1 would be lost.
    expect(followed).toEqual([1, 2]);
  });

  it('stores events with one global sequence and the injected clock', () => {
    const a = bus.publish(SessionDispatched, { ...ref, agent: 'claude', branch: 'baton/w' });
    const b = bus.publish(SessionPinned, { ...ref, pinned: true });
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(bus.list()).toEqual([
      {
        seq: 1,
        ts: at.toISOString(),
        type: 'session.dispatched',
        data: { ...ref, agent: 'claude', branch: 'baton/w' },
      },
      { seq: 2, ts: at.toISOString(), type: 'session.pinned', data: { ...ref, pinned: true } },
    ]);
    expect(bus.lastSeq()).toBe(2);
  });

  it('orders by sequence, never by time: a clock that jumps back and forward changes only the timestamps', async () => {
    const times = [
      '2026-01-02T03:00:00.000Z',
      '2026-01-02T02:00:00.000Z',
      '2026-01-02T05:00:00.000Z',
      '2026-01-02T04:59:59.000Z',
    ];
    let tick = 0;
    const jumping = new WorkspaceBus(db, () => new Date(times[tick++] as string));
    for (const pinned of [true, false, true, false]) jumping.publish(SessionPinned, { ...ref, pinned });
    expect(jumping.list().map((e) => [e.seq, e.ts])).toEqual(times.map((ts, i) => [i + 1, ts]));
    expect(jumping.list(2).map((e) => e.seq)).toEqual([3, 4]);
    // Replay then live, after a seq whose timestamp is later than the ones after it.
    const seen: number[] = [];
    const controller = new AbortController();
    const closed = new Promise<void>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve()),
    );
    const following = jumping.follow(
      1,
      (event) => {
        seen.push(event.seq);
        if (event.seq === 5) controller.abort();
        return Promise.resolve();
      },
      closed,
      () => {
        times.push('2020-01-01T00:00:00.000Z');
        jumping.publish(SessionPinned, { ...ref, pinned: true });
        return Promise.resolve();
      },
    );
    await following;
    expect(seen).toEqual([2, 3, 4, 5]);
  });

  it('keeps its sequence across a reopen of the database', () => {
    bus.publish(SessionPinned, { ...ref, pinned: true });
    db.close();
    db = openDb(join(dir, 'baton.db'));
    bus = new WorkspaceBus(db, () => at);
    expect(bus.publish(SessionPinned, { ...ref, pinned: false }).seq).toBe(2);
  });

  it('refuses data that does not match the event definition, and stores nothing', () => {
    expect(() => bus.publish(SessionPinned, { ...ref, pinned: 'yes' } as never)).toThrow();
    expect(bus.list()).toEqual([]);
  });

  it('replays from a sequence number, then delivers live events, each once and in order', async () => {
    for (let i = 0; i < 3; i++) bus.publish(SessionPinned, { ...ref, pinned: i % 2 === 0 });
    const got: number[] = [];
    let close!: () => void;
    const closed = new Promise<void>((resolve) => (close = resolve));
    let live!: () => void;
    const isLive = new Promise<void>((resolve) => (live = resolve));
    const following = bus.follow(
      1,
      async (event: FollowedEvent) => {
        got.push(event.seq);
        // Publishing while the replay is under way must neither be lost nor repeated.
        if (event.seq === 2) bus.publish(SessionPinned, { ...ref, pinned: true });
        await Promise.resolve();
      },
      closed,
      async () => live(),
    );
    await isLive;
    bus.publish(SessionPinned, { ...ref, pinned: false });
    await new Promise<void>((resolve) => {
      const check = (): void => (got.length >= 4 ? resolve() : void setImmediate(check));
      check();
    });
    close();
    await following;
    expect(got).toEqual([2, 3, 4, 5]);
  });

  it('delivers an event published inside a transaction only once it commits, and never one rolled back', () => {
    const got: number[] = [];
    bus.subscribe((e) => got.push(e.seq));
    db.transaction(() => {
      bus.publish(SessionPinned, { ...ref, pinned: true });
      expect(got).toEqual([]);
    })();
    bus.release();
    expect(got).toEqual([1]);
    expect(() =>
      db.transaction(() => {
        bus.publish(SessionPinned, { ...ref, pinned: false });
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    bus.discard();
    bus.release();
    expect(got).toEqual([1]);
    expect(bus.list().map((e) => e.seq)).toEqual([1]);
  });

  it('delivers a committed batch whole before an event a subscriber publishes in answer to its first', async () => {
    // Tasks answer a session's state change with a move; three changes ingested in one
    // transaction must reach a follower before that move, or the follower (which drops what is
    // older than the newest it saw) loses the last two.
    bus.subscribe((event) => {
      if (event.type === 'session.pinned' && event.seq === 1)
        bus.publish(SessionDispatched, { ...ref, agent: 'scripted', branch: 'baton/w' });
    });
    const heard: number[] = [];
    bus.subscribe((event) => heard.push(event.seq));
    const followed: number[] = [];
    const controller = new AbortController();
    const closed = new Promise<void>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve()),
    );
    const following = bus.follow(0, async (event) => void followed.push(event.seq), closed);
    await new Promise<void>((resolve) => setImmediate(resolve));
    db.transaction(() => {
      for (const pinned of [true, false, true]) bus.publish(SessionPinned, { ...ref, pinned });
    })();
    bus.release();
    expect(heard).toEqual([1, 2, 3, 4]);
    await new Promise<void>((resolve) => {
      const check = (): void => (followed.length >= 4 ? resolve() : void setImmediate(check));
      check();
    });
    controller.abort();
    await following;
    expect(followed).toEqual([1, 2, 3, 4]);
  });

  it('stops delivering once the follower has gone', async () => {
    const got: number[] = [];
    const following = bus.follow(0, async (e) => void got.push(e.seq), Promise.resolve());
    await following;
    bus.publish(SessionPinned, { ...ref, pinned: true });
    expect(got).toEqual([]);
  });

  it("stores another machine's event in the same sequence for followers, never for subscribers or the domains' reads", async () => {
    const heard: number[] = [];
    bus.subscribe((e) => heard.push(e.seq));
    bus.publish(SessionPinned, { ...ref, pinned: true });
    const relayed = bus.ingest({
      ts: at.toISOString(),
      type: 'task.removed',
      data: { taskId: 3, title: 't' },
      machine: 'beta',
      logSeq: 7,
    });
    expect(relayed).toMatchObject({ seq: 2, machine: 'beta', logSeq: 7 });
    // The same log seq read twice (a follower catching up after a reconnect) is stored once.
    expect(
      bus.ingest({
        ts: at.toISOString(),
        type: 'task.removed',
        data: { taskId: 3, title: 't' },
        machine: 'beta',
        logSeq: 7,
      }),
    ).toBeUndefined();
    bus.publish(SessionPinned, { ...ref, pinned: false });
    expect(heard).toEqual([1, 3]);
    expect(bus.list().map((e) => e.seq)).toEqual([1, 3]);
    expect(bus.latestOfType('task.removed' as 'session.pinned', 10)).toEqual([]);
    expect(bus.listAll().map((e) => [e.seq, 'machine' in e ? e.machine : 'here'])).toEqual([
      [1, 'here'],
      [2, 'beta'],
      [3, 'here'],
    ]);
    expect(bus.lastSeq()).toBe(3);
    expect(bus.lastIngested()).toBe(7);

    const got: string[] = [];
    let close!: () => void;
    const closed = new Promise<void>((resolve) => (close = resolve));
    const send = async (e: FollowedEvent): Promise<void> => {
      got.push(`${e.seq}:${'machine' in e ? e.machine : 'here'}`);
      if (got.length === 3) close();
    };
    const following = bus.follow(1, send, closed, async () => {
      bus.ingest({
        ts: at.toISOString(),
        type: 'budget.removed',
        data: { scope: 'day' },
        machine: 'gamma',
        logSeq: 9,
      });
    });
    await following;
    expect(got).toEqual(['2:beta', '3:here', '4:gamma']);
  });

  it("forgets other machines' events older than the retention, never this machine's, and the sequence goes on", () => {
    bus.publish(SessionPinned, { ...ref, pinned: true });
    bus.ingest({
      ts: '2026-10-01T00:00:00.000Z',
      type: 'task.removed',
      data: { taskId: 1, title: 'old' },
      machine: 'beta',
      logSeq: 3,
    });
    bus.ingest({
      ts: '2026-11-20T00:00:00.000Z',
      type: 'task.removed',
      data: { taskId: 2, title: 'recent' },
      machine: 'beta',
      logSeq: 4,
    });
    expect(bus.pruneRelayed('2026-11-01T00:00:00.000Z')).toBe(1);
    expect(bus.listAll().map((e) => ('machine' in e ? `${e.machine}:${e.logSeq}` : 'here'))).toEqual([
      'here',
      'beta:4',
    ]);
    expect(bus.publish(SessionPinned, { ...ref, pinned: false }).seq).toBe(4);
  });

  it('keeps named cursors with the events', () => {
    expect(bus.cursor('relay.out')).toBeUndefined();
    bus.setCursor('relay.out', 4);
    bus.setCursor('relay.out', 5);
    expect(bus.cursor('relay.out')).toBe(5);
  });
});
