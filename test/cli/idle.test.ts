/**
 * The watchdog's idle rule through the real binary: a session left ready for review has its host
 * let go by the supervisor, keeping its state, and a reply resumes the conversation in a new host.
 * The watchdog looks every 100 ms here (BATON_WATCHDOG_TICK_MS); BATON_IDLE_HOST_SECONDS is the
 * user's default, a repository's `watchdog.idle` its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertList } from '../../src/api/watchdog.js';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { sendToSessionHost } from '../../src/sessions/host-client.js';
import { TestBaton } from '../support/baton.js';
import { watchExit } from '../support/process.js';

let t: TestBaton;
afterEach(() => t.cleanup());

const TICK = { BATON_WATCHDOG_TICK_MS: '100' };
const peek = async (ref: string): Promise<{ session: SessionView; currentStep: string }> =>
  t.json(['peek', ref]);
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('idle agents are let go by the watchdog', () => {
  it('ends the host of a session left ready for review, keeps its state, raises no alert, and a reply resumes it; one waiting for input is kept', async () => {
    t = new TestBaton({ BATON_IDLE_HOST_SECONDS: '1', ...TICK });
    const repo = t.repo();
    await t.ok(['dispatch', 'x', '--name', 'asker', '--script', t.script([{ ask: 'which way?' }])], {
      cwd: repo,
    });
    const asking = await t.waitForState('asker', 'needs_input');
    await t.ok(['dispatch', 'x', '--name', 'idler', '--script', t.script([{ say: 'all done' }])], {
      cwd: repo,
    });
    const ready = await t.waitForState('idler', 'ready_for_review');
    const ended = await t.waitForEvent('idler', (e) => e.type === 'session.ended');
    expect(ended).toMatchObject({
      reason: 'idle',
      message: 'unused for 1 s after the turn; a reply resumes the conversation',
    });
    await watchExit(ready.hostPid!);
    const idle = await peek('idler');
    expect(idle.session).toMatchObject({ state: 'ready_for_review', running: false });
    expect(idle.currentStep).toBe('idle: agent let go, a reply resumes it');
    // Waiting on the user is not idle: the asker has waited longer than a second and still runs.
    expect((await peek('asker')).session).toMatchObject({
      state: 'needs_input',
      running: true,
      hostPid: asking.hostPid,
    });
    // And its host has the last word: asked straight to let go, it refuses.
    await expect(sendToSessionHost(t.home, asking.id, { op: 'release', message: 'unused' })).rejects.toThrow(
      /in use; its agent is kept/,
    );
    expect(alive(asking.hostPid!)).toBe(true);
    // Housekeeping, not news: nothing in the inbox.
    expect((await t.json<AlertList>(['alerts'], { cwd: repo })).alerts).toEqual([]);

    await t.ok(['reply', 'idler', 'one more']);
    await t.waitForEvent(
      'idler',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'Noted: one more',
    );
    const log = (await t.ok(['logs', 'idler', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BatonEvent);
    expect(log.filter((e) => e.type === 'state.changed' && e.to === 'failed')).toEqual([]);
    expect(
      log.filter((e) => e.type === 'session.started').map((e) => e.type === 'session.started' && e.resumed),
    ).toEqual([false, true]);
  });

  it('keeps the agents of a repository whose watchdog.idle is false, while another repository’s are let go', async () => {
    t = new TestBaton({ BATON_IDLE_HOST_SECONDS: '1', ...TICK });
    const kept = t.repo('kept');
    mkdirSync(join(kept, '.baton'));
    writeFileSync(join(kept, '.baton', 'config.json'), JSON.stringify({ watchdog: { idle: false } }));
    const other = t.repo('other');
    await t.ok(['dispatch', 'x', '--name', 'keeper', '--script', t.script([{ say: 'done' }])], { cwd: kept });
    const keeper = await t.waitForState('keeper', 'ready_for_review');
    await t.ok(['dispatch', 'x', '--name', 'goer', '--script', t.script([{ say: 'done' }])], { cwd: other });
    await t.waitForState('goer', 'ready_for_review');
    // The keeper has rested longer than the goer, which has now been let go.
    expect(await t.waitForEvent('goer', (e) => e.type === 'session.ended')).toMatchObject({ reason: 'idle' });
    expect((await peek('keeper')).session).toMatchObject({
      state: 'ready_for_review',
      running: true,
      hostPid: keeper.hostPid,
    });
  });

  it('leaves hosts up while the supervisor is down; a new one lets go only after a full idle time of its own', async () => {
    t = new TestBaton({ BATON_IDLE_HOST_SECONDS: '2', ...TICK });
    const repo = t.repo();
    await t.ok(['dispatch', 'x', '--name', 'rester', '--script', t.script([{ say: 'done' }])], { cwd: repo });
    const ready = await t.waitForState('rester', 'ready_for_review');
    const supervisorPid = t.supervisorPid();
    process.kill(supervisorPid, 'SIGKILL');
    await watchExit(supervisorPid);
    expect(alive(ready.hostPid!)).toBe(true);

    const restarted = performance.now();
    await t.ok(['daemon', 'start']);
    const ended = await t.waitForEvent('rester', (e) => e.type === 'session.ended');
    expect(ended).toMatchObject({
      reason: 'idle',
      message: 'unused for 2 s after the turn; a reply resumes the conversation',
    });
    // Timed from the new supervisor's first look, not from the turn's end before the restart.
    expect(performance.now() - restarted).toBeGreaterThanOrEqual(2_000);
    await watchExit(ready.hostPid!);
    expect((await peek('rester')).session).toMatchObject({ state: 'ready_for_review', running: false });
    await t.ok(['reply', 'rester', 'again']);
    await t.waitForEvent(
      'rester',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'Noted: again',
    );
  });
});
