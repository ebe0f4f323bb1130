import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { nextChange, repository, settingsStoreSuite } from '../../test/support/settings-suite.js';
import { Listener } from './listener.js';
import { PgSettings, SETTINGS_CHANNEL } from './settings.js';

const { database, cleanups } = clusterDatabases();

/** One machine's handle on the shared store: its own pool and LISTEN connection. */
async function machine(url: string, name: string): Promise<PgSettings> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const listener = new Listener(url, [SETTINGS_CHANNEL], { firstMs: 20, maxMs: 200 });
  await listener.start();
  const settings = new PgSettings(pool, listener, name);
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
    async () => settings.close(),
  );
  return settings;
}

settingsStoreSuite('PostgreSQL', {
  open: async () => {
    const url = await database();
    return { a: await machine(url, 'alpha'), b: await machine(url, 'beta') };
  },
});

describe('the settings store shared by machines', () => {
  test("a rule made in one machine's clone holds in another machine's clone of the same remote, shown as that clone's", async () => {
    const url = await database();
    const [alpha, beta] = [await machine(url, 'alpha'), await machine(url, 'beta')];
    const remote = repository();
    const [alphaClone, betaClone] = [repository(remote), repository(`${remote}/`)];
    const rule = await alpha.allowRules.add({
      project_root: alphaClone,
      tool: null,
      pattern: 'npm test',
      source: 'approval',
    });
    expect(await beta.allowRules.list(betaClone)).toEqual([{ ...rule, project_root: betaClone }]);
    expect(await beta.allowRules.list(repository('https://example.test/elsewhere.git'))).toEqual([]);
    expect(await beta.allowRules.get(rule.id)).toEqual(rule);
  });

  test('a repository with no remote keeps its rules to its machine', async () => {
    const url = await database();
    const [alpha, beta] = [await machine(url, 'alpha'), await machine(url, 'beta')];
    const local = repository();
    await alpha.allowRules.add({ project_root: local, tool: 'Edit', pattern: null, source: 'cli' });
    expect(await alpha.allowRules.list(local)).toHaveLength(1);
    // The same path on another machine is another repository.
    expect(await beta.allowRules.list(local)).toEqual([]);
  });

  test("another machine's write is reported as a change here, and a dropped connection as a change of everything", async () => {
    const url = await database();
    const [alpha, beta] = [await machine(url, 'alpha'), await machine(url, 'beta')];
    let seen = nextChange(alpha);
    await beta.budgets.put({
      scope: 'day',
      window_ms: null,
      limit_usd: 5,
      warn_ratio: 0.8,
      updated_at: new Date().toISOString(),
    });
    expect(await seen).toBe('budgets');
    seen = nextChange(alpha);
    await beta.allowRules.add({ project_root: null, tool: 'Read', pattern: null, source: 'page' });
    expect(await seen).toBe('allow_rules');

    const tables: string[] = [];
    const both = new Promise<void>((resolve) => {
      const off = alpha.onChange((table) => {
        tables.push(table);
        if (tables.length === 2) resolve(off());
      });
    });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Alpha's LISTEN connection cut by the server: what changed meanwhile is unknown, so everything did.
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    await admin.end();
    await both;
    expect(tables.sort()).toEqual(['allow_rules', 'budgets']);
  });
});
