import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { SpendLog } from '../usage/index.js';
import { Listener } from './listener.js';
import { SharedSpend, SPEND_CHANNEL } from './spend.js';

const { database, cleanups } = clusterDatabases();
const DAY = 24 * 3_600_000;

interface Machine {
  spend: SharedSpend;
  mine: SpendLog;
  pool: pg.Pool;
  warnings: string[];
}

async function machine(
  url: string,
  name: string,
  now: () => number,
  horizonMs: () => number = () => DAY,
): Promise<Machine> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const listener = new Listener(url, [SPEND_CHANNEL], { firstMs: 20, maxMs: 200 });
  await listener.start();
  const mine = new SpendLog();
  const warnings: string[] = [];
  const spend = new SharedSpend({
    pool,
    listener,
    machine: name,
    mine: () => mine,
    horizonMs,
    clock: () => new Date(now()),
    timing: { firstMs: 20, maxMs: 100 },
    logger: { warn: (message) => warnings.push(message) },
  });
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
    async () => spend.close(),
  );
  return { spend, mine, pool, warnings };
}

/** Resolves once `check` holds, looked at after each change `of` reports. */
function until(of: Machine, check: () => boolean, what: string): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting until ${what}`)), 10_000);
    const off = of.spend.onChange(() => {
      if (!check()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

describe("the machines' shared spend", () => {
  test("each machine reads the others' spends, not its own; a minute written again replaces its total", async () => {
    const url = await database();
    const now = Date.parse('2026-11-24T12:00:30Z');
    const [alpha, beta] = [await machine(url, 'alpha', () => now), await machine(url, 'beta', () => now)];
    // Spent before alpha started: published by start().
    alpha.mine.add(now - 3 * 60_000, 0.5);
    await alpha.spend.start();
    await beta.spend.start();
    const elsewhere = () => beta.spend.elsewhere().sum(now - DAY, now);
    expect(elsewhere()).toBeCloseTo(0.5, 9);
    expect(alpha.spend.elsewhere().sum(now - DAY, now)).toBe(0);

    alpha.mine.add(now - 10_000, 0.25);
    alpha.spend.spent(now - 10_000);
    await until(beta, () => Math.abs(elsewhere() - 0.75) < 1e-9, 'beta sees 0.75');
    alpha.mine.add(now - 5_000, 0.25);
    alpha.spend.spent(now - 5_000);
    await until(beta, () => Math.abs(elsewhere() - 1) < 1e-9, 'beta sees 1.00');
    // The minute's total is placed at its latest spend: a window ending before it does not hold it.
    expect(beta.spend.elsewhere().sum(now - DAY, now - 6_000)).toBeCloseTo(0.5, 9);
    expect(beta.spend.elsewhere().first(now - 60_000, now)).toBe(now - 5_000);
    const { rows } = await alpha.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM spend_minutes WHERE machine = 'alpha'",
    );
    expect(Number(rows[0]!.n)).toBe(2);

    // A machine started again publishes the same minutes: nothing is counted twice.
    const again = await machine(url, 'alpha', () => now);
    for (const spend of alpha.mine.within(0, now)) again.mine.add(spend.at, spend.amount);
    await again.spend.start();
    const gamma = await machine(url, 'gamma', () => now);
    await gamma.spend.start();
    expect(gamma.spend.elsewhere().sum(now - DAY, now)).toBeCloseTo(1, 9);
  });

  test("a longer horizon reads the others' older spend, and publishes this machine's", async () => {
    const url = await database();
    const now = Date.parse('2026-11-24T12:00:30Z');
    let horizon = DAY;
    const alpha = await machine(
      url,
      'alpha',
      () => now,
      () => horizon,
    );
    const beta = await machine(
      url,
      'beta',
      () => now,
      () => horizon,
    );
    beta.mine.add(now - 3 * DAY, 4);
    beta.mine.add(now - 60_000, 1);
    await beta.spend.start();
    await alpha.spend.start();
    expect(alpha.spend.elsewhere().sum(now - 7 * DAY, now)).toBe(1);
    // A 7-day window budget: beta publishes its older minutes, alpha reads them.
    horizon = 7 * DAY;
    beta.spend.horizonChanged();
    alpha.spend.horizonChanged();
    await until(
      alpha,
      () => alpha.spend.elsewhere().sum(now - 7 * DAY, now) === 5,
      'alpha counts beta’s spend of three days ago',
    );
  });

  test('a write that fails is tried again until the store takes it', async () => {
    const url = await database();
    const now = Date.now();
    const [alpha, beta] = [await machine(url, 'alpha', () => now), await machine(url, 'beta', () => now)];
    await beta.spend.start();
    await alpha.spend.start();
    await alpha.pool.query('ALTER TABLE spend_minutes RENAME TO spend_minutes_away');
    alpha.mine.add(now, 2);
    alpha.spend.spent(now);
    await alpha.spend.settled();
    expect(alpha.warnings).toContain("could not share this machine's spend; trying again");
    await alpha.pool.query('ALTER TABLE spend_minutes_away RENAME TO spend_minutes');
    await until(beta, () => beta.spend.elsewhere().sum(now - DAY, now) === 2, 'beta sees the retried write');
  });
});
