import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { postgresForFile } from '../../test/support/postgres.js';
import { ClusterDispatches, DISPATCH_ANSWER_CHANNEL, type PlacedDispatch } from './dispatches.js';
import { Listener } from './listener.js';
import { migrate } from './schema.js';

const server = postgresForFile();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One machine's view of the dispatches: its own pool and LISTEN connection. */
async function side(url: string): Promise<{ pool: pg.Pool; dispatches: ClusterDispatches }> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const listener = new Listener(url, [DISPATCH_ANSWER_CHANNEL]);
  await listener.start();
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
  );
  return { pool, dispatches: new ClusterDispatches(pool, listener) };
}

async function two(): Promise<[Awaited<ReturnType<typeof side>>, Awaited<ReturnType<typeof side>>]> {
  const url = await server().database();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await migrate(pool);
  await pool.end();
  return [await side(url), await side(url)];
}

const dispatch = (placementId: string): PlacedDispatch => ({
  placementId,
  origin: 'alpha',
  request: { prompt: 'p', agent: 'scripted' },
  url: 'ssh://git.example/shop.git',
  base: 'main',
  project: 'shop',
});

describe('dispatches placed on another machine', () => {
  test('the dispatcher is woken by the claiming machine’s answer, with the session it started', async () => {
    const [alpha, beta] = await two();
    await alpha.dispatches.create(dispatch('p1'));
    expect(await beta.dispatches.get('p1')).toEqual(dispatch('p1'));
    // A long timeout: woken well before it, the NOTIFY woke it (a busy machine may take seconds).
    const waiting = alpha.dispatches.waitForOutcome('p1', 120_000);
    const started = performance.now();
    await beta.dispatches.answer('p1', {
      kind: 'started',
      machine: 'beta',
      sessionId: 's1',
      session: { id: 's1', name: 'n' },
    });
    expect(await waiting).toEqual({
      kind: 'started',
      machine: 'beta',
      sessionId: 's1',
      session: { id: 's1', name: 'n' },
    });
    // By the NOTIFY, not by the timeout.
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  test('an answer given before the dispatcher listens is found, and a refusal keeps its code', async () => {
    const [alpha, beta] = await two();
    await alpha.dispatches.create(dispatch('p2'));
    await beta.dispatches.answer('p2', {
      kind: 'failed',
      machine: 'beta',
      error: { code: 'invalid_input', message: 'no such base' },
    });
    expect(await alpha.dispatches.waitForOutcome('p2', 10_000)).toEqual({
      kind: 'failed',
      machine: 'beta',
      error: { code: 'invalid_input', message: 'no such base' },
    });
  });

  test('no answer in time resolves undefined; the dispatch stays for a machine to take later', async () => {
    const [alpha] = await two();
    await alpha.dispatches.create(dispatch('p3'));
    expect(await alpha.dispatches.waitForOutcome('p3', 200)).toBeUndefined();
    expect(await alpha.dispatches.get('p3')).toBeDefined();
  });

  test('pruning deletes old answered dispatches only', async () => {
    const [alpha] = await two();
    await alpha.dispatches.create(dispatch('old'));
    await alpha.dispatches.create(dispatch('waiting'));
    await alpha.dispatches.answer('old', { kind: 'started', machine: 'beta', sessionId: 's', session: {} });
    await alpha.pool.query(
      "UPDATE cluster_dispatches SET answered_at = now() - interval '2 days' WHERE placement_id = 'old'",
    );
    await alpha.pool.query(
      "UPDATE cluster_dispatches SET created_at = now() - interval '2 days' WHERE placement_id = 'waiting'",
    );
    expect(await alpha.dispatches.prune(24 * 60 * 60_000)).toBe(1);
    expect(await alpha.dispatches.get('old')).toBeUndefined();
    expect(await alpha.dispatches.get('waiting')).toBeDefined();
  });
});
