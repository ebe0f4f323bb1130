/**
 * A reply queued while a turn ran (delivered `after_turn`) is handed to the agent by the session's
 * host when the turn ends, not through the supervisor: keep-fresh's hold on the session did not
 * cover it (decision 456). The test places the interleaving at step boundaries
 * (`BATON_TEST_POINTS`, src/shared/test-points.ts): the host stops with the queued reply handed
 * over but its turn not yet begun (`host.reply-handing`), the base moves, and keep-fresh looks at
 * a session the store still says is ready for review. On the old code keep-fresh went on into its
 * rebase (it reached `rebase.set-aside`, the work set aside) with the next turn about to write in the
 * worktree; now the host tells the supervisor's hold that a turn is under way, and keep-fresh defers
 * the session until that turn ends, then rebases it with both turns' work.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { TestBaton } from '../support/baton.js';
import { until } from '../support/wait.js';

let t: TestBaton;
afterEach(() => t.cleanup());

const lines = (change: Record<number, string> = {}): string =>
  Array.from({ length: 20 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

describe('keep-fresh and the replies a host queued', () => {
  it('never rebases a worktree under the turn a queued reply starts; it rebases once that turn ends', async () => {
    // Base tips read every 200 ms: the user's own commits make no event to wake keep-fresh.
    t = new TestBaton({ BATON_FRESH_INTERVAL_MS: '200' });
    const points = t.points();
    const repo = t.repo('repo', { 'a.txt': lines(), 'README.md': '# test\n' });
    const script = t.script(
      [
        // The turn waits on an approval, so a reply sent meanwhile is queued for after the turn.
        { approve: { tool: 'Bash', input: 'true', reason: 'go on' } },
        { write: { path: 'one.txt', content: 'turn one\n' } },
        { run: ['git', 'add', 'one.txt'] },
        { run: ['git', 'commit', '-qm', 'turn one'] },
      ],
      { onReply: [{ write: { path: 'two.txt', content: 'turn two: {{reply}}\n' } }] },
    );
    await t.ok(['dispatch', 'write one.txt', '--name', 's', '--script', script], { cwd: repo });
    await t.waitForState('s', 'needs_input');
    await t.ok(['reply', 's', 'the second file'], { cwd: repo });

    points.hold('host.reply-handing');
    points.hold('rebase.set-aside');
    await t.ok(['approve', 's'], { cwd: repo });
    // Turn one ended and the host handed the queued reply over; the next turn has not begun.
    await until(() => points.reached('host.reply-handing'), 'the host to hand the queued reply over', {
      timeoutMs: 30_000,
    });
    const session = await t.waitForState('s', 'ready_for_review');

    // The user commits on main: keep-fresh finds the session behind, and at rest by the store.
    writeFileSync(join(repo, 'a.txt'), lines({ 15: 'the user' }));
    t.git(repo, 'commit', '-qam', 'user: line 15');
    const tip = t.git(repo, 'rev-parse', 'main');
    let deferred = false;
    const deferral = t.workspaceEvent(
      (e: WorkspaceEvent) =>
        e.type === 'fresh.deferred' &&
        (e.data as { name: string }).name === 's' &&
        (e.data as { onto: string }).onto === tip,
    );
    void deferral.then(
      () => (deferred = true),
      () => undefined,
    );
    const first = await until(
      () => (points.reached('rebase.set-aside') ? 'rebased under the turn' : deferred ? 'deferred' : false),
      'keep-fresh to rebase or to defer the session',
      { timeoutMs: 30_000 },
    );
    expect(first).toBe('deferred');
    expect(((await deferral).data as { why: string }).why).toBe('working');

    points.release('host.reply-handing');
    points.release('rebase.set-aside');
    const rebased = await t.workspaceEvent(
      (e) => e.type === 'fresh.rebased' && (e.data as { name: string }).name === 's' && e.data.onto === tip,
    );
    await t.waitForState('s', 'ready_for_review');
    // Rebased after the second turn: its commit on the new tip, both turns' work in the worktree.
    expect(t.git(session.worktree, 'rev-parse', 'HEAD^')).toBe(tip);
    expect((rebased.data as { commits: number }).commits).toBe(1);
    expect(readFileSync(join(session.worktree, 'two.txt'), 'utf8')).toBe('turn two: the second file\n');
    expect(t.git(session.worktree, 'show', 'HEAD:one.txt')).toBe('turn one');
    expect(readFileSync(join(session.worktree, 'a.txt'), 'utf8')).toContain('the user');
  });
});
