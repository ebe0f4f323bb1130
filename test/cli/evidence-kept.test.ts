/**
 * Evidence kept and used (decisions 290–292) through the real binary: the check's run is stored with
 * its tree, so `ls`, `peek` and the API say verified after a supervisor restart; a merge of exactly
 * the tree the check passed on does not run it again (and says so), any other tree runs it; and a
 * session's new tests are run on the base, the one that already passes there flagged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MergeResult } from '../../src/api/merge.js';
import type { SessionEvidenceView } from '../../src/api/provenance.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const CHECK =
  'if [ -e ok.txt ]; then echo "Tests  2 passed (2)"; else echo "Tests  1 failed (1)"; exit 1; fi';

async function dispatch(name: string, steps: unknown[]): Promise<void> {
  await t.ok(['dispatch', `${name}: work`, '--name', name, '--script', t.script(steps)], { cwd: repo });
  await t.waitForState(name, 'ready_for_review');
}

const verified = (name: string) =>
  t.workspaceEvent((e) => e.type === 'provenance.verified' && e.data.name === name);

const evidence = async (name: string): Promise<SessionEvidenceView> =>
  (JSON.parse(await t.ok(['evidence', name, '--json'], { cwd: repo })) as SessionEvidenceView[])[0]!;

async function merge(name: string): Promise<MergeResult> {
  const result = JSON.parse(await t.ok(['merge', name, '--json'], { cwd: repo })) as MergeResult;
  expect(result.outcome).toBe('landed');
  return result;
}

describe('evidence kept with its tree', () => {
  it('is stored: ls, peek and the API say verified after the supervisor restarts', async () => {
    configure(t, repo, { merge: { check: CHECK }, verify: { run: 'turn' } });
    await dispatch('good', [{ write: { path: 'ok.txt', content: 'ok\n' } }]);
    await verified('good');
    await dispatch('said', [{ write: { path: 'x.txt', content: 'x\n' } }, { run: 'echo npm test' }]);
    await verified('said');

    await t.ok(['daemon', 'stop']);
    // A fresh supervisor (the first command starts it): nothing of the evidence is in its memory.
    const ls = await t.ok(['ls'], { cwd: repo });
    expect(ls).toMatch(/good .*\[verified\]/);
    // `said` ran the check too (failing: no ok.txt), its agent's own run is not what counts.
    expect(ls).toMatch(/said .*\[failing\]/);
    const view = (await t.client(repo).call('GET /api/sessions/:ref', { params: { ref: 'good' } })).session;
    expect(view.evidence).toMatchObject({ status: 'verified', command: CHECK, tests: { passed: 2, ran: 2 } });
    expect((await evidence('good')).status).toBe('verified');
    const peek = await t.ok(['peek', 'good'], { cwd: repo });
    expect(peek).toMatch(
      /evidence: verified: `if \[ -e ok\.txt \].*`, 2 passed, 0 failed of 2 \(tree [0-9a-f]{12}\)/,
    );
  });

  it('a merge of the tree the check passed on does not run it again; another tree runs it', async () => {
    configure(t, repo, { merge: { check: CHECK }, verify: { run: 'turn' } });
    await dispatch('same', [{ write: { path: 'ok.txt', content: 'ok\n' } }]);
    await verified('same');
    const checking: string[] = [];
    const first = await merge('same');
    expect(first.check.reused).toMatchObject({ name: 'same', turn: 1 });
    expect(first.check.outcome).toBe('passed');
    expect(first.message).toMatch(
      /the check was not run again: it passed on this exact tree \([0-9a-f]{12}\) at same's turn 1/,
    );
    const events = (await t.client().call('GET /api/workspace/events')).events;
    for (const e of events) if (e.type === 'merge.checking') checking.push(e.data.mergeId);
    expect(checking).not.toContain(first.mergeId);

    // main moves under the next session: the landed tree (a merge commit) is one no check ran on.
    await dispatch('moved', [{ write: { path: 'more.txt', content: 'more\n' } }]);
    await verified('moved');
    writeFileSync(join(repo, 'person.txt'), 'a person wrote this\n');
    t.git(repo, 'add', 'person.txt');
    t.git(repo, 'commit', '-qm', 'a person commits on main');
    const second = await merge('moved');
    expect(second.check.reused).toBeUndefined();
    expect(second.message).toMatch(/the check passed in [\d.]+ s/);
    const after = (await t.client().call('GET /api/workspace/events')).events;
    expect(after.some((e) => e.type === 'merge.checking' && e.data.mergeId === second.mergeId)).toBe(true);
  });

  it('a pass that leaned on files outside the tree (ignored ones) is not reused: the merge runs the check and it fails', async () => {
    configure(t, repo, { merge: { check: CHECK }, verify: { run: 'turn' } });
    // A hostile agent: the file the check needs sits in its worktree but is ignored, so the tree
    // the check is recorded against (and that would land) does not hold it.
    await dispatch('leaning', [
      { write: { path: '.gitignore', content: 'ok.txt\n' } },
      { write: { path: 'ok.txt', content: 'ok\n' } },
    ]);
    const run = await verified('leaning');
    if (run.type !== 'provenance.verified') throw new Error(`not a verify run: ${run.type}`);
    expect(run.data.outcome).toBe('passed');
    expect(t.git(repo, 'ls-tree', '--name-only', run.data.tree)).not.toContain('ok.txt');
    const result = await t.run(['merge', 'leaning', '--json'], { cwd: repo });
    const merged = JSON.parse(result.stdout) as MergeResult;
    expect(merged.check.reused).toBeUndefined();
    expect(merged.outcome).not.toBe('landed');
    expect(merged.check.outcome).toBe('failed');
    expect(t.git(repo, 'ls-tree', '--name-only', 'HEAD')).not.toContain('.gitignore');
    const seen = await evidence('leaning');
    expect(seen.evidence?.outsideTree).toEqual(['ok.txt']);
  });

  it("flags a session's new test that passes on the base: it proves nothing about the change", async () => {
    // The tests are shell scripts the repository's test command runs one at a time.
    writeFileSync(join(repo, 'app.txt'), 'version: broken\n');
    t.git(repo, 'add', 'app.txt');
    t.git(repo, 'commit', '-qm', 'the app');
    configure(t, repo, {
      merge: { check: 'for f in tests/*.sh; do sh "$f" || exit 1; done; echo "Tests  2 passed (2)"' },
      verify: { run: 'turn', tests: 'sh {file}' },
    });
    await dispatch('fixer', [
      { write: { path: 'app.txt', content: 'version: fixed\n' } },
      // A real regression test: it fails on the base (the app says broken there).
      { write: { path: 'tests/regression.sh', content: 'grep -q "version: fixed" app.txt\n' } },
      // A vacuous one: true on the base already, whatever the change.
      { write: { path: 'tests/vacuous.sh', content: 'grep -q "version:" app.txt\n' } },
    ]);
    const run = await t.workspaceEvent((e) => e.type === 'provenance.red_green' && e.data.name === 'fixer');
    if (run.type !== 'provenance.red_green') throw new Error(`not a red-green run: ${run.type}`);
    expect(run.data.tests).toEqual([
      { file: 'tests/regression.sh', base: 'failed', branch: 'passed', vacuous: false },
      { file: 'tests/vacuous.sh', base: 'passed', branch: 'passed', vacuous: true },
    ]);
    const seen = await evidence('fixer');
    expect(seen.status).toBe('verified');
    expect(seen.redGreen?.tests.map((x) => [x.file, x.proves, x.vacuous])).toEqual([
      ['tests/regression.sh', true, false],
      ['tests/vacuous.sh', false, true],
    ]);
    const text = await t.ok(['evidence', 'fixer'], { cwd: repo });
    expect(text).toContain('tests/vacuous.sh: regression test passes without the change');
    expect(text).toContain('tests/regression.sh: fails on the base, passes with the change');
    expect(await t.ok(['ls'], { cwd: repo })).toMatch(/fixer .*\[verified, 1 vacuous test\]/);
    // The base's checkout was not touched, and no scratch worktree is left behind.
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
    expect(t.git(repo, 'worktree', 'list', '--porcelain')).not.toContain('red-green');
  });
});
