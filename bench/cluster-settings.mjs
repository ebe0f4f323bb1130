// The settings machines share (decisions 130, 131, 134), part of `node bench/run.mjs cluster`:
//
// - An allow rule lookup (what an approval costs): SQLite's store against the shared one, which
//   also asks git for the repository's remote; the raw SELECT on each store is the floor.
// - A budget set on beta → alpha's `onChange` (what the budget guard reloads on).
// - A spend on beta → alpha's view of the others' spend (what a shared day budget counts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const LOOKUPS = 300;
const CHANGES = 200;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(2)} ms`;
const figure = (xs) => `p50 ${ms(pct(xs, 0.5))}, p95 ${ms(pct(xs, 0.95))}`;

async function timed(times, fn) {
  const xs = [];
  for (let i = 0; i < times; i++) {
    const t = now();
    await fn(i);
    xs.push(now() - t);
  }
  return xs;
}

export async function settingsFigures(cluster, url, root) {
  const { openDb } = await import(pathToFileURL(join(root, 'dist', 'store', 'db.js')).href);
  const { sqliteSettings } = await import(pathToFileURL(join(root, 'dist', 'settings', 'index.js')).href);
  const { SpendLog } = await import(pathToFileURL(join(root, 'dist', 'usage', 'index.js')).href);
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-settings-'));
  const closers = [];
  try {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '--quiet', repo]);
    execFileSync('git', ['-C', repo, 'remote', 'add', 'origin', 'https://example.test/team/app.git']);
    const db = openDb(join(dir, 'baton.db'));
    closers.push(() => db.close());
    const local = sqliteSettings(db);
    const machine = async (name) => {
      const pool = new pg.Pool({ connectionString: url, max: 3 });
      const listener = new cluster.Listener(url, [cluster.SETTINGS_CHANNEL, cluster.SPEND_CHANNEL]);
      await listener.start();
      const settings = new cluster.PgSettings(pool, listener, name);
      const mine = new SpendLog();
      const spend = new cluster.SharedSpend({
        pool,
        listener,
        machine: name,
        mine: () => mine,
        horizonMs: () => 25 * 3_600_000,
        logger: { warn: () => {} },
      });
      closers.push(async () => (spend.close(), settings.close(), await listener.close(), await pool.end()));
      return { pool, settings, spend, mine };
    };
    const [alpha, beta] = [await machine('bench-alpha'), await machine('bench-beta')];
    for (let i = 0; i < 20; i++) {
      const rule = {
        project_root: i % 2 === 0 ? repo : null,
        tool: null,
        pattern: `npm run task${i}`,
        source: 'cli',
      };
      await local.allowRules.add(rule);
      await alpha.settings.allowRules.add(rule);
    }
    const raw = db.prepare(
      'SELECT * FROM allow_rules WHERE project_root IS NULL OR project_root = ? ORDER BY id',
    );
    const rawSqlite = await timed(LOOKUPS, () => raw.all(repo));
    const sqlite = await timed(LOOKUPS, () => local.allowRules.list(repo));
    const rawPg = await timed(LOOKUPS, () =>
      alpha.pool.query('SELECT * FROM allow_rules WHERE repository IS NULL OR repository = $1 ORDER BY id', [
        'https://example.test/team/app',
      ]),
    );
    const shared = await timed(LOOKUPS, () => beta.settings.allowRules.list(repo));
    console.log(
      `allow rules of a repository (20 rules, ${LOOKUPS}): SQLite ${figure(sqlite)} (raw SELECT ${figure(rawSqlite)}); shared ${figure(shared)} (raw SELECT ${figure(rawPg)}; the rest is git naming the remote)`,
    );

    const heard = await timed(CHANGES, async (i) => {
      const got = new Promise((resolve) => {
        const off = alpha.settings.onChange((table) => table === 'budgets' && resolve(off()));
      });
      await beta.settings.budgets.put({
        scope: 'day',
        window_ms: null,
        limit_usd: 10 + i,
        warn_ratio: 0.8,
        updated_at: new Date().toISOString(),
      });
      await got;
    });
    console.log(`budget set on beta → alpha told (${CHANGES}): ${figure(heard)}`);

    await alpha.spend.start();
    await beta.spend.start();
    const counted = await timed(CHANGES, async (i) => {
      const at = Date.now();
      const before = alpha.spend.elsewhere().sum(at - 3_600_000, at + 1);
      const got = new Promise((resolve) => {
        const off = alpha.spend.onChange(
          () => alpha.spend.elsewhere().sum(at - 3_600_000, at + 1) > before && resolve(off()),
        );
      });
      beta.mine.add(at, 0.01 + i / 1e6);
      beta.spend.spent(at);
      await got;
    });
    console.log(`spend on beta → counted by alpha (${CHANGES}): ${figure(counted)}`);
  } finally {
    for (const close of closers.reverse()) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}
