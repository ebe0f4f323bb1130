import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { until as pollFor } from '../../test/support/wait.js';
import { BUS_CHANNEL, PgWorkspaceLog } from './bus.js';
import { CUT_MARK } from './cut.js';
import type { SessionView } from './events.js';
import { Listener } from './listener.js';
import { SessionMirror, type MirrorChange, type SessionMirrorOptions } from './mirror.js';

const { database, cleanups } = clusterDatabases();

interface Machine {
  mirror: SessionMirror;
  pool: pg.Pool;
  warnings: { msg: string; data?: Record<string, unknown> }[];
  changes: MirrorChange[];
}

/** One machine's process: its own pool, LISTEN connection and mirror (not started). */
function machine(url: string, name: string, options: Partial<SessionMirrorOptions> = {}): Machine {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const listener = new Listener(url, [BUS_CHANNEL], { firstMs: 20, maxMs: 200 });
  const warnings: Machine['warnings'] = [];
  const mirror = new SessionMirror({
    log: new PgWorkspaceLog(pool, listener),
    machine: name,
    logger: { warn: (msg, data) => warnings.push({ msg, data }) },
    ...options,
  });
  const changes: MirrorChange[] = [];
  mirror.onChange((change) => changes.push(change));
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
    () => mirror.close(),
  );
  return { mirror, pool, warnings, changes };
}

const view = (id: string, lastSeq = 1, more: Record<string, unknown> = {}): SessionView => ({
  id,
  name: `name-${id}`,
  state: 'running',
  lastSeq,
  ...more,
});

/** Resolves once `check` holds, looked at after every change the mirror reports; fails at the deadline naming `what`. */
function until(
  subject: SessionMirror,
  check: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting until ${what}`));
    }, timeoutMs);
    const off = subject.onChange(() => {
      if (!check()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

const summary = (mirror: SessionMirror): [string, string, number][] =>
  mirror.remoteSessions().map((s) => [s.machine, s.view.id, s.view.lastSeq]);

async function count(pool: pg.Pool, type: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM workspace_events WHERE type = $1',
    [type],
  );
  return Number(rows[0]!.n);
}

describe('the session mirror', () => {
  test("two machines on one database see each other's sessions, not their own, and hear the changes", async () => {
    const url = await database();
    const a = machine(url, 'laptop');
    const b = machine(url, 'build-box');
    await Promise.all([a.mirror.start(), b.mirror.start()]);
    await a.mirror.publish(view('a1', 3, { agent: 'claude', project: 'repo' }));
    await b.mirror.publish(view('b1', 7));
    await b.mirror.publish(view('b2', 2));
    await until(
      a.mirror,
      () => a.mirror.remoteSessions().length === 2,
      "laptop sees both of build-box's sessions",
    );
    await until(b.mirror, () => b.mirror.remoteSessions().length === 1, "build-box sees laptop's session");
    expect(summary(a.mirror)).toEqual([
      ['build-box', 'b1', 7],
      ['build-box', 'b2', 2],
    ]);
    // The view travels whole, fields the mirror does not know included.
    expect(b.mirror.remoteSessions()[0]).toMatchObject({
      machine: 'laptop',
      view: { id: 'a1', name: 'name-a1', state: 'running', lastSeq: 3, agent: 'claude', project: 'repo' },
    });
    expect(a.changes.map((c) => c.kind === 'session' && [c.machine, c.view.id])).toEqual([
      ['build-box', 'b1'],
      ['build-box', 'b2'],
    ]);
  });

  test('a bad view, event or session id is refused naming the bad key, and nothing is stored', async () => {
    const url = await database();
    const a = machine(url, 'laptop');
    expect(() => a.mirror.publish({ id: 's1', name: 'n', state: 'running' })).toThrow(
      expect.objectContaining({ code: 'invalid_input', data: { key: 'view.lastSeq' } }),
    );
    expect(() => a.mirror.publishEvent('s1', { seq: 0, ts: 'now', type: 'x' })).toThrow(
      expect.objectContaining({ data: { key: 'event.seq' } }),
    );
    expect(() => a.mirror.removed('')).toThrow(
      expect.objectContaining({ data: expect.objectContaining({ key: 'sessionId' }) }),
    );
    await expect(a.mirror.events('s1', 0, 0)).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'limit' },
    });
    await expect(a.mirror.events('s1', -1)).rejects.toMatchObject({ data: { key: 'afterSeq' } });
    expect(() => machine(url, 'not a name!')).toThrow(
      expect.objectContaining({ data: { key: 'machine', value: 'not a name!' } }),
    );
    expect(await a.mirror.events('s1')).toEqual([]);
    expect(await count(a.pool, 'cluster.session')).toBe(0);
  });

  test('100 rapid updates of one session become a handful of appends, and the last view wins', async () => {
    const url = await database();
    const a = machine(url, 'laptop');
    const b = machine(url, 'build-box');
    await b.mirror.start();
    const published = Array.from({ length: 100 }, (_, i) => a.mirror.publish(view('busy', i + 1)));
    await Promise.all(published);
    await until(b.mirror, () => b.mirror.remoteSessions()[0]?.view.lastSeq === 100, 'the last view arrives');
    const appends = await count(a.pool, 'cluster.session');
    // The first goes at once; the 99 that arrive while it is in flight fold into one more.
    expect(appends).toBeLessThanOrEqual(3);
    const seen = b.changes.flatMap((c) => (c.kind === 'session' ? [c.view.lastSeq] : []));
    expect(seen.at(-1)).toBe(100);
    expect(seen.length).toBe(appends);
  });

  test('a view whose append failed still reaches the others once the store is back, without another publish', async () => {
    const url = await database();
    const a = machine(url, 'laptop', { retry: { firstMs: 20, maxMs: 100 } });
    const b = machine(url, 'build-box');
    await b.mirror.start();
    await a.mirror.publish(view('s1', 1));
    await until(b.mirror, () => b.mirror.remoteSessions()[0]?.view.lastSeq === 1, 'the first view arrives');
    await a.pool.query('ALTER TABLE workspace_events RENAME TO workspace_events_away');
    await expect(a.mirror.publish(view('s1', 2))).rejects.toThrow(/workspace_events/);
    await a.pool.query('ALTER TABLE workspace_events_away RENAME TO workspace_events');
    await until(
      b.mirror,
      () => b.mirror.remoteSessions()[0]?.view.lastSeq === 2,
      'the failed view arrives on a retry',
    );
  });

  test("an event whose append failed is appended once the store is back, and the session's next event after it", async () => {
    const url = await database();
    const a = machine(url, 'laptop', { retry: { firstMs: 20, maxMs: 100 } });
    const b = machine(url, 'build-box');
    await b.mirror.start();
    await a.mirror.publishEvent('s1', {
      seq: 1,
      ts: new Date().toISOString(),
      type: 'message.added',
      text: 'one',
    });
    await a.pool.query('ALTER TABLE workspace_events RENAME TO workspace_events_away');
    const second = a.mirror.publishEvent('s1', {
      seq: 2,
      ts: new Date().toISOString(),
      type: 'message.added',
      text: 'two',
    });
    const third = a.mirror.publishEvent('s1', {
      seq: 3,
      ts: new Date().toISOString(),
      type: 'message.added',
      text: 'three',
    });
    // Once its first try has failed (the mirror says so), the store is back.
    await pollFor(
      () => a.warnings.some((w) => w.msg.includes('trying again')),
      'the failed append is reported',
      {
        intervalMs: 10,
      },
    );
    await a.pool.query('ALTER TABLE workspace_events_away RENAME TO workspace_events');
    await Promise.all([second, third]);
    expect((await b.mirror.events('s1')).map((e) => e.event.seq)).toEqual([1, 2, 3]);
  });

  test("a session's events page by their own seq, a republished event counts once, and a huge one is cut and marked", async () => {
    const url = await database();
    const a = machine(url, 'laptop', { eventCapBytes: 4_096 });
    const b = machine(url, 'build-box');
    const event = (seq: number, text = `message ${seq}`) => ({
      v: 1,
      seq,
      ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      type: 'message.added',
      role: 'assistant',
      text,
    });
    for (let seq = 1; seq <= 25; seq++) await a.mirror.publishEvent('s1', event(seq));
    await a.mirror.publishEvent('other', event(1));
    await a.mirror.publishEvent('s1', event(5, 'message 5 again'));
    const pages: number[][] = [];
    for (let after = 0; ;) {
      const page = await b.mirror.events('s1', after, 10);
      if (page.length === 0) break;
      pages.push(page.map((e) => e.event.seq));
      after = page.at(-1)!.event.seq;
    }
    expect(pages).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      [11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
      [21, 22, 23, 24, 25],
    ]);
    const fifth = (await b.mirror.events('s1', 4, 1))[0]!;
    expect(fifth).toEqual({ machine: 'laptop', event: event(5, 'message 5 again') });

    await a.mirror.publishEvent('s1', event(26, 'x'.repeat(1_000_000)));
    const [huge] = await b.mirror.events('s1', 25, 10);
    expect(huge!.cut!.originalBytes).toBeGreaterThan(1_000_000);
    expect(Buffer.byteLength(JSON.stringify(huge!.event))).toBeLessThanOrEqual(4_096);
    expect(huge!.event).toMatchObject({ seq: 26, type: 'message.added', role: 'assistant' });
    expect(String(huge!.event.text).endsWith(CUT_MARK)).toBe(true);
  });

  test('a tombstone removes the session from the other machines, but only from its holder', async () => {
    const url = await database();
    const a = machine(url, 'laptop');
    const b = machine(url, 'build-box');
    const c = machine(url, 'spare');
    await Promise.all([a.mirror.start(), c.mirror.start()]);
    await b.mirror.publish(view('s1'));
    await b.mirror.publish(view('s2'));
    await until(a.mirror, () => a.mirror.remoteSessions().length === 2, 'both sessions are seen');
    await b.mirror.removed('s1');
    await until(a.mirror, () => a.mirror.remoteSessions().length === 1, 's1 is gone');
    expect(summary(a.mirror)).toEqual([['build-box', 's2', 1]]);
    expect(a.changes.at(-1)).toEqual({ kind: 'removed', machine: 'build-box', sessionId: 's1' });
    // s2 is respawned on spare; build-box's late clean-up must not hide it.
    await c.mirror.publish(view('s2', 9));
    await until(a.mirror, () => a.mirror.remoteSessions()[0]?.machine === 'spare', 's2 is seen on spare');
    await b.mirror.removed('s2');
    await c.mirror.publish(view('marker'));
    await until(a.mirror, () => a.mirror.remoteSessions().length === 2, 'the marker is seen');
    expect(summary(a.mirror)).toEqual([
      ['spare', 'marker', 1],
      ['spare', 's2', 9],
    ]);
  });

  test.each(['latest', 'replay'] as const)(
    'after a restart the view is rebuilt from the log (%s), and stale sessions of ours are tombstoned',
    async (rebuild) => {
      const url = await database();
      const a = machine(url, 'laptop');
      const b = machine(url, 'build-box');
      for (let i = 1; i <= 20; i++) await b.mirror.publish(view(`b${i % 5}`, i));
      await b.mirror.removed('b0');
      await a.mirror.publish(view('a1'));
      await a.mirror.publish(view('a2'));
      await a.mirror.close();
      await b.mirror.close();

      // build-box restarts: its view of laptop is rebuilt before `start` resolves.
      const b2 = machine(url, 'build-box', {
        rebuild,
        localSessions: () => [view('b1', 21), view('b3', 18)],
      });
      await b2.mirror.start();
      expect(summary(b2.mirror)).toEqual([
        ['laptop', 'a1', 1],
        ['laptop', 'a2', 1],
      ]);
      expect(b2.changes).toEqual([]);
      // A laptop started now sees build-box as it is after the restart: b2 and b4 no longer run.
      const a2 = machine(url, 'laptop', { rebuild });
      await a2.mirror.start();
      expect(summary(a2.mirror)).toEqual([
        ['build-box', 'b1', 21],
        ['build-box', 'b3', 18],
      ]);
    },
  );

  test('malformed rows in the log are skipped with a warning, live and at rebuild, and the follower carries on', async () => {
    const url = await database();
    const a = machine(url, 'laptop');
    const b = machine(url, 'build-box');
    await a.mirror.start();
    const bad = [
      ['cluster.session', { machine: 'old', sessionId: 'x1' }],
      [
        'cluster.session',
        { machine: 'old', sessionId: 'x2', view: { id: 'x2', name: 'n', state: 'running', lastSeq: 'ten' } },
      ],
      ['cluster.session', '"just a string"'],
      ['cluster.session_removed', { sessionId: 'b1' }],
      ['cluster.event', { machine: 'old', sessionId: 's1', eventSeq: 1, event: { seq: 1 } }],
      [
        'cluster.event',
        { machine: 'old', sessionId: 's1', eventSeq: 'two', event: { seq: 2, ts: 't', type: 'x' } },
      ],
    ] as const;
    await b.mirror.publish(view('b1'));
    for (const [type, data] of bad) {
      await b.pool.query('INSERT INTO workspace_events (at, type, data) VALUES (now(), $1, $2)', [
        type,
        typeof data === 'string' ? data : JSON.stringify(data),
      ]);
    }
    await b.mirror.publishEvent('s1', { seq: 3, ts: 't', type: 'turn.started' });
    await b.mirror.publish(view('b2'));
    await until(a.mirror, () => a.mirror.remoteSessions().length === 2, 'the rows after the bad ones arrive');
    expect(summary(a.mirror)).toEqual([
      ['build-box', 'b1', 1],
      ['build-box', 'b2', 1],
    ]);
    expect(a.warnings.map((w) => [w.data?.type, w.data?.key])).toEqual([
      ['cluster.session', 'data.view'],
      ['cluster.session', 'data.view.lastSeq'],
      ['cluster.session', 'data'],
      ['cluster.session_removed', 'data.machine'],
      ['cluster.event', 'data.event.ts'],
      ['cluster.event', 'data.eventSeq'],
    ]);
    // Paging a session's events skips the bad rows too (the one whose eventSeq is not a number
    // never leaves the database: a cast would fail the whole query).
    expect((await a.mirror.events('s1')).map((e) => e.event.seq)).toEqual([3]);
    expect(a.warnings.slice(6).map((w) => w.data?.key)).toEqual(['data.event.ts']);

    const rebuilt = machine(url, 'spare');
    await rebuilt.mirror.start();
    expect(summary(rebuilt.mirror)).toEqual(summary(a.mirror));
    expect(rebuilt.warnings.length).toBeGreaterThan(0);
  });
});
