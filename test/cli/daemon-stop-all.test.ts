/**
 * `baton daemon stop --all --timeout <seconds>` (decision 462): the session hosts' ending is part of
 * the wait `--timeout` bounds, and a wait that runs out while the supervisor still ends them exits
 * 124 ("still stopping"), as a stop without `--all` does (decision 454). The test holds the hosts'
 * ending at its `hosts.ending` point (src/shared/test-points.ts), so the supervisor cannot have
 * answered when the 1 s wait runs out, however busy the machine. Before, the command waited up to
 * 5 minutes for that answer whatever `--timeout` said.
 */
import { describe, expect, it } from 'vitest';
import { eachTest, type TestBaton } from '../support/baton.js';
import { alive, watchExit } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('daemon stop --all --timeout', () => {
  it('counts the hosts ending in its wait, and exits 124 when they are still ending', async () => {
    const points = t.points();
    const script = t.script([{ write: { path: 'notes.txt', content: 'written by the agent\n' } }]);
    await t.ok(['dispatch', 'write the notes', '--name', 'w', '--script', script], { cwd: repo });
    await t.waitForState('w', 'ready_for_review');

    points.hold('hosts.ending');
    const pid = t.supervisorPid();
    const stopping = await t.run(['daemon', 'stop', '--all', '--timeout', '1']);
    expect(points.reached('hosts.ending')).toBe(true);
    expect(stopping.stdout).toContain('still ending the session hosts');
    expect(stopping.code).toBe(124);
    expect(alive(pid)).toBe(true);

    // Let go, the supervisor ends the host and then itself, as asked.
    points.release('hosts.ending');
    await watchExit(pid);
    const again = await t.run(['daemon', 'stop']);
    expect([again.code, again.stdout]).toEqual([0, 'Supervisor: not running.\n']);
  });
});
