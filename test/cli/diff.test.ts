import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DiffStatView } from '../../src/api/history.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('baton diff', () => {
  it("shows a session's committed, uncommitted and new work against its base, without touching the worktree", async () => {
    const script = t.script([
      { write: { path: 'README.md', content: '# test\nmore\n' } },
      { run: ['git', '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '-qam', 'readme'] },
      { write: { path: 'src/new.ts', content: 'export const a = 1;\n' } },
    ]);
    await t.ok(['dispatch', 'work', '--name', 'flaky', '--script', script], { cwd: repo });
    const done = await t.waitForState('flaky', 'ready_for_review');
    writeFileSync(join(done.worktree, 'README.md'), '# test\nmore\nand by hand\n');
    const statusBefore = t.git(done.worktree, 'status', '--porcelain');

    const patch = await t.ok(['diff', 'flaky'], { cwd: repo });
    expect(patch).toContain('diff --git a/README.md b/README.md');
    expect(patch).toContain('+more\n+and by hand\n');
    expect(patch).toContain('+++ b/src/new.ts\n@@ -0,0 +1 @@\n+export const a = 1;');
    expect(patch).not.toContain('\x1b[');

    const stat = await t.ok(['diff', 'flaky', '--stat'], { cwd: repo });
    expect(stat).toMatch(
      /^ README\.md +\| 2 \+\+\n src\/new\.ts +\| 1 \+ \(new\)\n 2 files changed, 3 insertions\(\+\), 0 deletions\(-\) against /,
    );

    const json = await t.json<DiffStatView & { diff: string; truncated: boolean }>(
      ['diff', 'flaky', '--json'],
      { cwd: repo },
    );
    expect(json.files).toEqual([
      { path: 'README.md', status: 'M', additions: 2, deletions: 0, binary: false },
      { path: 'src/new.ts', status: 'A', additions: 1, deletions: 0, binary: false },
    ]);
    expect([json.session, json.branch, json.truncated]).toEqual(['flaky', 'baton/flaky', false]);
    expect(json.diff).toBe(patch);
    expect(t.git(done.worktree, 'status', '--porcelain')).toBe(statusBefore);
  });

  it('says plainly when there is nothing, and names an unknown session', async () => {
    await t.ok(['dispatch', 'nothing', '--name', 'idle', '--script', t.script([{ say: 'nothing to do' }])], {
      cwd: repo,
    });
    await t.waitForState('idle', 'ready_for_review');
    const base = t.git(repo, 'rev-parse', '--short=10', 'HEAD');
    expect(await t.ok(['diff', 'idle'], { cwd: repo })).toBe(`idle: no changes against main (${base})\n`);
    const unknown = await t.run(['diff', 'nope'], { cwd: repo });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/nope/);
    expect(unknown.stderr).not.toMatch(/at .*\.js:\d+/);
  });
});

describe('the review queue', () => {
  it('counts the sessions ready for review and the size of their work, in baton ls and for the board', async () => {
    const two = t.script([
      { write: { path: 'a.txt', content: '1\n2\n' } },
      { write: { path: 'b.txt', content: '3\n' } },
    ]);
    const one = t.script([{ edit: { path: 'README.md', old: '# test', new: '# tested' } }]);
    const asks = t.script([{ write: { path: 'c.txt', content: 'x\n' } }, { ask: 'which way?' }]);
    await t.ok(['dispatch', 'two files', '--name', 'two', '--script', two], { cwd: repo });
    await t.ok(['dispatch', 'one edit', '--name', 'one', '--script', one], { cwd: repo });
    await t.ok(['dispatch', 'asks', '--name', 'asks', '--script', asks], { cwd: repo });
    const [first] = await Promise.all([
      t.waitForState('two', 'ready_for_review'),
      t.waitForState('one', 'ready_for_review'),
      t.waitForState('asks', 'needs_input'),
    ]);

    // The board's read measures every session and waits for it; later reads use the figures.
    const changes = (await t.client(repo).call('GET /api/changes')) as {
      counts: Record<string, number>;
      sizes: Record<string, { files: number; additions: number; deletions: number }>;
      reviewQueue: unknown;
    };
    expect(changes.sizes[first.id]).toEqual({ files: 2, additions: 3, deletions: 0 });
    expect(changes.counts[first.id]).toBe(2);
    expect(changes.reviewQueue).toEqual({ sessions: 2, measuring: 0, files: 3, additions: 4, deletions: 1 });

    const ls = await t.ok(['ls'], { cwd: repo });
    expect(ls).toMatch(/\nReview queue: 2 sessions ready, 3 files, \+4 -1 lines\n/);
  });
});
