/**
 * Work outliving the store: a watchdog closed while it is busy (a budget being set, usage
 * arriving) does nothing more on the store it used, which is then closed. The bench's watchdog
 * section crashed so (`BudgetGuard.set` → `BudgetStore.list` on a closed database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { openDb } from '../store/db.js';
import { UsageTracker } from '../usage/index.js';
import type { WatchdogSessions } from './sessions.js';
import { Watchdog } from './watchdog.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Sessions as the watchdog sees them: none, and every call recorded. */
function noSessions(calls: string[]): WatchdogSessions {
  return {
    get: () => undefined,
    list: () => [],
    on: () => calls.push('on'),
    off: () => calls.push('off'),
    pause: async () => void calls.push('pause'),
    stop: async () => void calls.push('stop'),
    release: async () => (calls.push('release'), true),
    addGate: () => () => void calls.push('gate removed'),
    schedule: async () => void calls.push('schedule'),
  } as unknown as WatchdogSessions;
}

/** Every turn of the event loop until nothing is left queued for a few turns (no timer involved). */
async function drain(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('a watchdog closed while busy', () => {
  it('touches nothing after it is closed, so the store can close under it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-watchdog-close-'));
    dirs.push(dir);
    const db = openDb(join(dir, 'baton.db'));
    const bus = new WorkspaceBus(db);
    const usage = new UsageTracker(db);
    const calls: string[] = [];
    const dog = new Watchdog({ db, bus, sessions: noSessions(calls), usage });
    await dog.start();
    const unexpected: unknown[] = [];
    const onRejection = (error: unknown): void => void unexpected.push(error);
    process.on('unhandledRejection', onRejection);
    try {
      // Busy: a budget change under way (its first write done), then shutdown in the same turn.
      const setting = dog.budgets.set({ session: '5usd', day: '50usd', window: ['5h:20usd'] });
      const outcome = setting.then(
        () => 'finished',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      dog.close();
      db.close();
      await drain();
      // The change stops at its next step with a clear word, never on the closed database.
      expect(await outcome).toMatch(/watchdog has closed/);
      expect(unexpected).toEqual([]);
      // Its listener on the usage is gone with it: a late report reaches nothing on the store.
      expect(() =>
        usage.observe({ id: 's', name: 's', project: 'p', agent: 'codex', model: 'gpt-5.5' }, {
          seq: 1,
          ts: new Date().toISOString(),
          type: 'usage.reported',
          inputTokens: 10,
          outputTokens: 1,
          model: 'gpt-5.5',
        } as never),
      ).not.toThrow();
      await drain();
      expect(unexpected).toEqual([]);
      expect(calls).toContain('off');
      expect(calls).toContain('gate removed');
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
