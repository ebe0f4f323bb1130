import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../../test/support/postgres.js';
import { ClusterDispatches, DISPATCH_ANSWER_CHANNEL } from '../dispatches.js';
import { Listener } from '../listener.js';
import { migrate } from '../schema.js';
import { Respawns } from '../respawn.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { resumeGuard } from './holdings.js';

const server = postgresForFile();
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => {})));
});

/** beta's guard on a migrated store where `started` sessions were placed on beta (placement id `p-<session>`). */
async function guardOnBeta(started: { sessionId: string; state: string; reason?: string }[]) {
  const pool = new pg.Pool({ connectionString: await server().database(), max: 2 });
  pools.push(pool);
  await migrate(pool);
  // Never started: ClusterDispatches uses it only to wait for answers.
  const dispatches = new ClusterDispatches(
    pool,
    new Listener('postgres://unused', [DISPATCH_ANSWER_CHANNEL]),
  );
  for (const s of started) {
    const placementId = `p-${s.sessionId}`;
    await pool.query(
      `INSERT INTO placements (session_id, worker, incarnation, state, reason, target, updated_at) VALUES ($1, 'beta', 1, $2, $3, 'any', now())`,
      [placementId, s.state, s.reason ?? null],
    );
    await dispatches.create({
      placementId,
      origin: 'alpha',
      request: { prompt: 'p' },
      url: 'ssh://git.example/shop.git',
      base: 'main',
      project: 'shop',
    });
    await dispatches.answer(placementId, {
      kind: 'started',
      machine: 'beta',
      sessionId: s.sessionId,
      session: { id: s.sessionId },
    });
  }
  const held = {
    placedHere: new Map<string, string>(),
    lost: new Set<string>(),
    claimer: { running: new Set<string>() },
  };
  const guard = resumeGuard({
    member: { machine: 'beta', incarnation: () => 2 },
    dispatches,
    respawns: new Respawns(pool),
    ...held,
  });
  return { pool, guard, ...held };
}

const session = (id: string) => ({ id, name: `n-${id}` }) as SessionWithProject;

describe('a session starting again on the machine it was placed on', () => {
  test('takes its placement back, is refused once another machine took it, and passes when it was never placed', async () => {
    const { pool, guard, placedHere, claimer } = await guardOnBeta([
      { sessionId: 'reaped', state: 'failed', reason: 'worker beta stopped heartbeating' },
      {
        sessionId: 'taken',
        state: 'finished',
        reason: 'respawned by alpha after: worker beta stopped heartbeating',
      },
    ]);
    await guard(session('reaped'));
    expect(placedHere.get('reaped')).toBe('p-reaped');
    expect(claimer.running.has('p-reaped')).toBe(true);
    expect(
      (await pool.query("SELECT state, incarnation FROM placements WHERE session_id = 'p-reaped'")).rows,
    ).toEqual([{ state: 'placed', incarnation: '2' }]);
    await expect(guard(session('taken'))).rejects.toThrow(
      'Session n-taken cannot start again on beta: another machine holds it now, its placement is finished (respawned by alpha after: worker beta stopped heartbeating)',
    );
    await guard(session('dispatched-here'));
    expect(placedHere.has('dispatched-here')).toBe(false);
  });

  test('with the store out of reach, waits for it when the session is known to be placed here, else passes', async () => {
    const { pool, guard, placedHere, lost } = await guardOnBeta([]);
    placedHere.set('held', 'p-held');
    lost.add('lost');
    await pool.end();
    await expect(guard(session('held'))).rejects.toThrow(
      'Session n-held was placed on beta through the shared store, which could not be asked whether another machine runs it now',
    );
    await expect(guard(session('lost'))).rejects.toThrow('try again once the store is back');
    await guard(session('local'));
  });
});
