/**
 * Processes left behind: a session host whose supervisor does not come back ends itself once
 * idle, keeping its session resumable, and `baton daemon stop --all` ends every host now. The
 * orphan time is a setting (BATON_HOST_ORPHAN_SECONDS), short here; what the test waits on is the
 * hosts' exits, never a fixed time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';
import { watchExit } from '../support/process.js';

let t: TestBaton;
let repo: string;
beforeEach(() => {
  t = new TestBaton({ BATON_HOST_ORPHAN_SECONDS: '2' });
  repo = t.repo();
});
afterEach(() => t.cleanup());

function hostPidOf(session: SessionView): number {
  const pid = session.hostPid;
  if (pid === null) throw new Error(`${session.name} has no host: ${JSON.stringify(session)}`);
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The session as the running supervisor shows it (a request, not a CLI start per look). */
async function show(name: string): Promise<SessionView> {
  return (await t.client().call('GET /api/sessions/:ref', { params: { ref: name } })).session;
}

describe('a host left without a supervisor', () => {
  // One story of three supervisors and six host exits: 50–60 s on a busy 2-core machine, more than
  // the default minute allows; its waits are on events and exits, none fixed.
  it(
    'ends itself once idle, keeping its session resumable; `daemon stop --all` ends the rest now',
    { timeout: 120_000 },
    async () => {
      const dispatch = (name: string, steps: unknown[]): Promise<string> =>
        t.ok(['dispatch', 'x', '--name', name, '--script', t.script(steps)], { cwd: repo });
      await dispatch('done', [{ say: 'finished' }, { say: 'second turn' }]);
      await Promise.all([
        dispatch('asking', [{ ask: 'which one?' }, { say: 'thanks' }]),
        t.waitForState('done', 'ready_for_review'),
      ]);
      await t.waitForState('asking', 'needs_input');
      const idle = hostPidOf(await show('done'));
      const waiting = hostPidOf(await show('asking'));
      // While the supervisor watches, the orphan time passes and nothing ends.
      expect(alive(idle) && alive(waiting)).toBe(true);

      await t.ok(['daemon', 'stop']);
      // No supervisor comes back: both hosts end themselves (the wait is on their exits).
      await watchExit(idle, 20_000);
      await watchExit(waiting, 20_000);

      // The next supervisor finds the sessions resumable, none failed as a lost host.
      await t.ok(['daemon', 'start']);
      const done = await show('done');
      expect(done.state).toBe('ready_for_review');
      const asking = await show('asking');
      expect(asking.state).toBe('stopped');
      expect(JSON.stringify(asking)).toContain('no supervisor for');
      // A reply resumes each in its conversation.
      await t.ok(['reply', 'done', 'once more']);
      await t.waitForState('done', 'ready_for_review');
      await t.ok(['reply', 'asking', 'the first']);
      await t.waitForState('asking', 'ready_for_review');

      // A session at work keeps its host while it works; `daemon stop --all` ends it now.
      await dispatch('busy', [{ say: 'busy' }, { sleep: 600_000 }]);
      await t.waitForState('busy', 'working');
      const busy = hostPidOf(await show('busy'));
      const resumed = [hostPidOf(await show('done')), hostPidOf(await show('asking'))];
      const stopped = await t.run(['daemon', 'stop', '--all']);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stdout).toContain('every session host');
      await watchExit(busy, 20_000);
      for (const pid of resumed) await watchExit(pid, 20_000);
      // Nothing of this home runs any more: no supervisor, no host, no agent.
      expect(t.processes()).toEqual([]);
      await t.ok(['daemon', 'start']);
      expect((await show('busy')).state).toBe('stopped');
      expect((await show('done')).state).toBe('ready_for_review');
    },
  );
});
