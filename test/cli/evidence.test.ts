/**
 * Evidence-backed "done" through the real binary: with `"verify": {"run": "turn"}` Baton runs the
 * repository's check in the session's worktree after each turn that changed the work and keeps
 * what it saw with the tree; `baton evidence` says verified, failing or claimed. Off unless
 * configured: without it no check runs, and an agent's own test run is only a claim.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionEvidenceView } from '../../src/api/provenance.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const CHECK =
  'if [ -e ok.txt ]; then echo "Tests  2 passed (2)"; else echo "Tests  1 failed | 1 passed (2)"; exit 1; fi';

async function dispatch(name: string, steps: unknown[]): Promise<string> {
  await t.ok(['dispatch', `${name}: work`, '--name', name, '--script', t.script(steps)], { cwd: repo });
  return (await t.waitForState(name, 'ready_for_review')).worktree;
}

const evidence = async (name: string): Promise<SessionEvidenceView> =>
  (JSON.parse(await t.ok(['evidence', name, '--json'], { cwd: repo })) as SessionEvidenceView[])[0]!;

describe('baton evidence', () => {
  it('runs the check at the turn end and says verified or failing, with the tree, exit, output and test counts', async () => {
    configure(t, repo, { merge: { check: CHECK }, verify: { run: 'turn' } });
    const worktree = await dispatch('good', [{ write: { path: 'ok.txt', content: 'ok\n' } }]);
    await t.workspaceEvent((e) => e.type === 'provenance.verified' && e.data.name === 'good');
    const good = await evidence('good');
    expect(good).toMatchObject({
      status: 'verified',
      evidence: {
        outcome: 'passed',
        exitCode: 0,
        command: CHECK,
        tests: { ran: 2, passed: 2, failed: 0 },
        turn: 1,
      },
    });
    // The exact tree it ran on: the work as the turn left it, untracked files included.
    t.git(worktree, 'add', '--all');
    expect(good.evidence!.tree).toBe(t.git(worktree, 'write-tree'));

    await dispatch('bad', [{ write: { path: 'other.txt', content: 'x\n' } }]);
    await t.workspaceEvent((e) => e.type === 'provenance.verified' && e.data.name === 'bad');
    const bad = await evidence('bad');
    expect(bad).toMatchObject({
      status: 'failing',
      evidence: { outcome: 'failed', exitCode: 1, tests: { ran: 2, passed: 1, failed: 1 } },
    });
    const text = await t.ok(['evidence', 'bad'], { cwd: repo });
    expect(text).toMatch(
      /^bad {2}failing: `if \[ -e ok\.txt \].*` exit 1 in [\d.]+ s, 1 passed, 1 failed of 2 \(turn 1, tree [0-9a-f]{12}\)/,
    );
    expect(text).toMatch(/Tests {2}1 failed \| 1 passed \(2\)/);
  });

  it("runs the check in the session's sandbox: the agent's script it runs cannot read the token (decision 271)", async () => {
    // The command is the user's and trusted; the script it runs is the agent's work.
    configure(t, repo, { merge: { check: 'sh ./check.sh' }, verify: { run: 'turn' } });
    const token = join(t.home, 'token');
    const script = [
      `if [ -r '${token}' ]; then echo "token: $(cat '${token}')"; else echo "token: hidden"; fi`,
      'echo "home: ${BATON_HOME:-unset}"',
      'echo "Tests  1 passed (1)"',
    ].join('\n');
    await dispatch('hostile', [{ write: { path: 'check.sh', content: `${script}\n` } }]);
    await t.workspaceEvent((e) => e.type === 'provenance.verified' && e.data.name === 'hostile');
    const seen = await evidence('hostile');
    expect(seen.evidence).toMatchObject({ outcome: 'passed', command: 'sh ./check.sh' });
    expect(seen.evidence!.outputTail).toContain('token: hidden');
    expect(seen.evidence!.outputTail).toContain('home: unset');
  });

  it('runs nothing unless configured: the agent’s own test run is a claim, and no run is none', async () => {
    configure(t, repo, { merge: { check: CHECK } });
    await dispatch('says', [{ write: { path: 'ok.txt', content: 'ok\n' } }, { run: 'echo all tests pass' }]);
    await dispatch('quiet', [{ write: { path: 'ok.txt', content: 'ok\n' } }]);
    await t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === 'quiet');
    expect(await evidence('says')).toMatchObject({
      status: 'claimed',
      evidence: null,
      claimed: ['echo all tests pass'],
    });
    expect(await evidence('quiet')).toMatchObject({ status: 'none', evidence: null, claimed: [] });
    const events = (await t.client().call('GET /api/workspace/events')).events.map((e) => e.type);
    expect(events).not.toContain('provenance.verified');
    expect(await t.ok(['evidence', 'says'], { cwd: repo })).toMatch(
      /says {2}claimed: the agent ran `echo all tests pass`; Baton did not verify it/,
    );
  });
});
