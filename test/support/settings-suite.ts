/**
 * The settings store suite (src/settings): what every store must do, run against the SQLite store
 * (src/settings/sqlite.test.ts) and the PostgreSQL one (src/cluster/settings.test.ts). A harness
 * gives two handles on one store (two connections here; two machines on a shared store) and
 * repositories to scope rules by.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { AlertRow, BudgetRow, SettingsStore, SettingsTable } from '../../src/settings/index.js';

export interface SettingsHarness {
  /** Two handles on one fresh store. */
  open(): Promise<{ a: SettingsStore; b: SettingsStore }>;
}

/** Folders made by `repository`, removed after each test. */
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git repository whose `origin` is `remote` (none: no remote); its root. */
export function repository(remote?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-settings-'));
  made.push(dir);
  const root = join(dir, 'repo');
  mkdirSync(root);
  execFileSync('git', ['init', '--quiet', root]);
  if (remote !== undefined) execFileSync('git', ['-C', root, 'remote', 'add', 'origin', remote]);
  return root;
}

/** Resolves with the next table `store` reports changed; fails after `timeoutMs`. */
export function nextChange(store: SettingsStore, timeoutMs = 5_000): Promise<SettingsTable> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error('no change was reported'));
    }, timeoutMs);
    const off = store.onChange((table) => {
      clearTimeout(timer);
      off();
      resolve(table);
    });
  });
}

const budget = (scope: string, more: Partial<BudgetRow> = {}): BudgetRow => ({
  scope,
  window_ms: null,
  limit_usd: 12.5,
  warn_ratio: 0.8,
  updated_at: '2026-11-24T03:00:00.000Z',
  ...more,
});

let alertCount = 0;
const alert = (more: Partial<AlertRow> = {}): AlertRow => ({
  id: `alert-${++alertCount}`,
  raised_at: `2026-11-24T03:00:${String(alertCount % 60).padStart(2, '0')}.000Z`,
  rule: 'loop',
  session_id: 's1',
  session_name: 'fixer',
  project: 'shop',
  message: 'the same command failed 3 times',
  evidence_json: '["npm test"]',
  action: 'alert',
  dedupe_key: 'loop:s1',
  acknowledged_at: null,
  ...more,
});

export function settingsStoreSuite(label: string, harness: SettingsHarness): void {
  describe(`the settings store: ${label}`, () => {
    test('an allow rule is stored with an id and its time, read back, listed and removed once', async () => {
      const { a } = await harness.open();
      const before = Date.now();
      const rule = await a.allowRules.add({
        project_root: null,
        tool: null,
        pattern: 'npm test',
        source: 'cli',
      });
      expect(rule).toMatchObject({ project_root: null, tool: null, pattern: 'npm test', source: 'cli' });
      expect(rule.id).toBeGreaterThan(0);
      expect(Date.parse(rule.created_at)).toBeGreaterThanOrEqual(before - 1_000);
      expect(await a.allowRules.get(rule.id)).toEqual(rule);
      expect(await a.allowRules.list()).toEqual([rule]);
      expect(await a.allowRules.remove(rule.id)).toBe(true);
      expect(await a.allowRules.remove(rule.id)).toBe(false);
      expect(await a.allowRules.get(rule.id)).toBeUndefined();
      expect(await a.allowRules.list()).toEqual([]);
    });

    test('a rule needs a tool or a pattern', async () => {
      const { a } = await harness.open();
      await expect(
        a.allowRules.add({ project_root: null, tool: null, pattern: null, source: 'cli' }),
      ).rejects.toThrow();
      expect(await a.allowRules.list()).toEqual([]);
    });

    test("a repository's rules hold in it, everyone's everywhere, and another repository's nowhere else, oldest first", async () => {
      const { a } = await harness.open();
      const here = repository('https://example.test/team/app.git');
      const there = repository('https://example.test/team/other.git');
      const everywhere = await a.allowRules.add({
        project_root: null,
        tool: 'Read',
        pattern: null,
        source: 'page',
      });
      const mine = await a.allowRules.add({
        project_root: here,
        tool: null,
        pattern: 'npm run lint',
        source: 'approval',
      });
      await a.allowRules.add({ project_root: there, tool: null, pattern: 'make', source: 'cli' });
      expect((await a.allowRules.list(here)).map((r) => r.id)).toEqual([everywhere.id, mine.id]);
      expect((await a.allowRules.list(here))[1]).toMatchObject({
        project_root: here,
        pattern: 'npm run lint',
        source: 'approval',
      });
      expect(
        (await a.allowRules.list(repository('https://example.test/team/third.git'))).map((r) => r.id),
      ).toEqual([everywhere.id]);
      expect(await a.allowRules.list()).toHaveLength(3);
    });

    test('the other handle sees the rules, and ids never repeat between handles', async () => {
      const { a, b } = await harness.open();
      const first = await a.allowRules.add({
        project_root: null,
        tool: null,
        pattern: 'npm test',
        source: 'cli',
      });
      const second = await b.allowRules.add({
        project_root: null,
        tool: null,
        pattern: 'npm run build',
        source: 'cli',
      });
      expect(second.id).toBeGreaterThan(first.id);
      expect((await b.allowRules.list()).map((r) => r.id)).toEqual([first.id, second.id]);
      expect(await b.allowRules.remove(first.id)).toBe(true);
      expect((await a.allowRules.list()).map((r) => r.id)).toEqual([second.id]);
    });

    test('budgets are set, replaced by scope, listed by scope and removed once, their figures exact', async () => {
      const { a, b } = await harness.open();
      await a.budgets.put(budget('session', { limit_usd: 2.25, warn_ratio: 0.75 }));
      await a.budgets.put(budget('day'));
      await a.budgets.put(budget('window:18000000', { window_ms: 18_000_000, limit_usd: 0.1 }));
      await b.budgets.put(budget('day', { limit_usd: 40, updated_at: '2026-11-24T04:00:00.000Z' }));
      expect(await a.budgets.list()).toEqual([
        budget('day', { limit_usd: 40, updated_at: '2026-11-24T04:00:00.000Z' }),
        budget('session', { limit_usd: 2.25, warn_ratio: 0.75 }),
        budget('window:18000000', { window_ms: 18_000_000, limit_usd: 0.1 }),
      ]);
      expect(await a.budgets.remove('day')).toBe(true);
      expect(await b.budgets.remove('day')).toBe(false);
      expect((await b.budgets.list()).map((row) => row.scope)).toEqual(['session', 'window:18000000']);
    });

    test('an alert is stored once while open, listed newest first, found by session, and acknowledged once; its key may then be raised again', async () => {
      const { a, b } = await harness.open();
      const first = alert();
      expect(await a.alerts.insert(first)).toBe(true);
      expect(await b.alerts.insert(alert())).toBe(false);
      const other = alert({
        session_id: 's2',
        session_name: 'tester',
        dedupe_key: 'loop:s2',
        rule: 'stuck',
        action: 'pause',
      });
      expect(await b.alerts.insert(other)).toBe(true);
      expect(await a.alerts.get(first.id)).toMatchObject(first);
      expect(await a.alerts.get('no-such-alert')).toBeUndefined();
      expect((await a.alerts.list()).map((row) => row.id)).toEqual([other.id, first.id]);
      expect((await a.alerts.list({ limit: 1 })).map((row) => row.id)).toEqual([other.id]);
      expect((await a.alerts.openFor('s2')).map((row) => row.id)).toEqual([other.id]);

      expect(await b.alerts.acknowledge(first.id, '2026-11-24T04:00:00.000Z')).toBe(true);
      expect(await a.alerts.acknowledge(first.id, '2026-11-24T04:00:01.000Z')).toBe(false);
      expect(await a.alerts.get(first.id)).toMatchObject({ acknowledged_at: '2026-11-24T04:00:00.000Z' });
      expect((await a.alerts.list({ open: true })).map((row) => row.id)).toEqual([other.id]);
      expect(await a.alerts.openFor('s1')).toEqual([]);
      // Acknowledged, its key is free: the rule may raise it again.
      const again = alert();
      expect(await a.alerts.insert(again)).toBe(true);
      expect((await b.alerts.list({ open: true })).map((row) => row.id)).toEqual([again.id, other.id]);
    });

    test('each write is reported as a change of its table; a removal of nothing is not', async () => {
      const { a } = await harness.open();
      let seen = nextChange(a);
      const rule = await a.allowRules.add({ project_root: null, tool: 'Read', pattern: null, source: 'cli' });
      expect(await seen).toBe('allow_rules');
      seen = nextChange(a);
      await a.budgets.put(budget('day'));
      expect(await seen).toBe('budgets');
      const changes: SettingsTable[] = [];
      const off = a.onChange((table) => changes.push(table));
      await a.budgets.remove('no-such-scope');
      await a.allowRules.remove(rule.id + 1_000);
      seen = nextChange(a);
      await a.allowRules.remove(rule.id);
      expect(await seen).toBe('allow_rules');
      off();
      // Notifications arrive in commit order: the removals of nothing would have come first.
      expect(changes).toEqual(['allow_rules']);
    });
  });
}
