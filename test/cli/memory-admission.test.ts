/**
 * Memory-aware admission (decision 260) end to end: a supervisor reading a small machine's
 * meminfo (the injected memory source), scripted sessions that stay at work by asking, and the
 * third dispatch held with its reason until the first one's turn ends.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonStatus, PeekView, SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
afterEach(() => t.cleanup());

/** A machine with 2100 MB available, a 100 MB reserve, and scripted sessions said to need 900 MB each. */
function smallMachine(settings: Record<string, unknown> = {}): { repo: string } {
  t = new TestBaton({ BATON_MAX_CONCURRENT: '8' });
  const meminfo = join(t.root, 'meminfo');
  writeFileSync(
    meminfo,
    `MemTotal:        4096000 kB\nMemFree:          100000 kB\nMemAvailable:    ${2100 * 1024} kB\n`,
  );
  t.env.BATON_MEMINFO = meminfo;
  mkdirSync(t.home, { recursive: true });
  writeFileSync(
    join(t.home, 'config.json'),
    JSON.stringify({ memoryReserveMb: 100, memoryFootprintMb: { scripted: 900 }, ...settings }),
  );
  return { repo: t.repo() };
}

async function dispatchAsking(repo: string, name: string): Promise<SessionView> {
  return t.json<SessionView>(
    ['dispatch', `${name} works`, '--name', name, '--script', t.script([{ ask: `${name}: go on?` }])],
    {
      cwd: repo,
    },
  );
}

describe('memory-aware admission', () => {
  it('holds the third session while two fill the memory, and starts it when the first ends', async () => {
    const { repo } = smallMachine();
    await dispatchAsking(repo, 'first');
    await t.waitForState('first', 'needs_input');
    await dispatchAsking(repo, 'second');
    await t.waitForState('second', 'needs_input');

    const third = await dispatchAsking(repo, 'third');
    expect(third.state).toBe('queued');
    expect(third.heldBy).toMatch(/^waiting for memory: \d+ MB free, needs ~900 MB$/);
    const list = await t.ok(['ls']);
    expect(list).toMatch(/queued #1: waiting for memory: \d+ MB free, needs ~900 MB/);
    expect(list).toMatch(/Memory: \d+ MB free for new sessions \(2\.1 GB available, 100 MB reserve/);

    // The machine's headroom, and each session's own process tree, are shown.
    const status = await t.json<DaemonStatus>(['daemon', 'status', '--json']);
    expect(status.memory).toMatchObject({ enabled: true, availableMb: 2100, reserveMb: 100 });
    expect(status.memory?.footprints).toContainEqual({ agent: 'scripted', mb: 900, source: 'setting' });
    const peek = await t.json<PeekView>(['peek', 'second', '--json']);
    expect(peek.memoryMb).toBeGreaterThan(10);
    expect(await t.ok(['peek', 'second'])).toMatch(/memory: {3}\d+ MB \(host, agent and their children\)/);

    // The first one's turn ends: it no longer grows, and the third fits.
    await t.ok(['reply', 'first', 'yes']);
    await t.waitForState('first', 'ready_for_review');
    await t.waitForState('third', 'needs_input');
    const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } });
    expect(session.state).toBe('needs_input');
  });

  it('admits by count alone when memory admission is off', async () => {
    const { repo } = smallMachine({ memoryAdmission: false });
    for (const name of ['first', 'second', 'third']) {
      await dispatchAsking(repo, name);
      await t.waitForState(name, 'needs_input');
    }
    expect(await t.ok(['daemon', 'status'])).toMatch(/memory admission is off/);
  });

  it('refuses a bad memory setting with a clear error', async () => {
    const { repo } = smallMachine({ memoryReserveMb: -5 });
    const result = await t.run(['ls'], { cwd: repo });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/memoryReserveMb/);
  });
});
