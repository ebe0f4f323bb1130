/**
 * Keep-fresh end to end (decision 307) on a real repository whose base moves under three
 * sessions: the user commits on `main`. The idle session whose work rebases cleanly is rebased
 * (its uncommitted work carried); the idle one that conflicts is put back exactly and its agent
 * gets the conflict as its next turn; the one whose agent is mid-turn is never touched, and is
 * rebased once its turn ends. With `conflicts: "user"` the conflict is left for the user, and a
 * worktree left mid-rebase is reported and never touched. A session being merged is left to its
 * merge (decision 401).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PeekView, SessionView } from '../../src/api/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { MergeResult } from '../../src/api/merge.js';
import { TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';

let t: TestBaton;
afterEach(() => t.cleanup());

const lines = (change: Record<number, string> = {}): string =>
  Array.from({ length: 20 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

function setUp(settings: Record<string, unknown> = {}): string {
  // Base tips read every 200 ms: the user's own commits make no event to wake keep-fresh.
  t = new TestBaton({ BATON_FRESH_INTERVAL_MS: '200' });
  mkdirSync(t.home, { recursive: true });
  writeFileSync(join(t.home, 'config.json'), JSON.stringify(settings));
  return t.repo('repo', { 'a.txt': lines(), 'README.md': '# test\n' });
}

/** A session whose agent edits `line` of a.txt and commits it. */
async function dispatchEditing(
  repo: string,
  name: string,
  line: number,
  extra: unknown[] = [],
): Promise<SessionView> {
  return t.json<SessionView>(
    [
      'dispatch',
      `${name} edits line ${line}`,
      '--name',
      name,
      '--script',
      t.script(
        [
          ...extra,
          { write: { path: 'a.txt', content: lines({ [line]: name }) } },
          { run: ['git', 'commit', '-qam', `${name}: line ${line}`] },
        ],
        { onReply: [{ say: 'Noted: {{reply}}' }] },
      ),
    ],
    { cwd: repo },
  );
}

/** The user commits on main: `line` of a.txt. */
function userCommits(repo: string, line: number, text: string): string {
  const content = readFileSync(join(repo, 'a.txt'), 'utf8').split('\n');
  content[line - 1] = text;
  writeFileSync(join(repo, 'a.txt'), content.join('\n'));
  t.git(repo, 'commit', '-qam', `user: line ${line}`);
  return t.git(repo, 'rev-parse', 'main');
}

const fresh = (type: string, name: string) => (e: WorkspaceEvent) =>
  e.type === type && (e.data as { name?: string }).name === name;

describe('keep-fresh', () => {
  it('rebases an idle session, hands a conflict to its agent, and never touches a working one', async () => {
    const repo = setUp();
    const clean = await dispatchEditing(repo, 'clean', 3);
    const clash = await dispatchEditing(repo, 'clash', 10);
    // Mid-turn until the test lets it go: its command waits for a file in its own worktree.
    const busy = await dispatchEditing(repo, 'busy', 17, [
      { run: ['sh', '-c', 'while [ ! -e go ]; do sleep 0.05; done; rm go'] },
    ]);
    await t.waitForState('clean', 'ready_for_review');
    await t.waitForState('clash', 'ready_for_review');
    await t.waitForState('busy', 'working');
    // Work the clean session's agent left uncommitted: carried across the rebase.
    writeFileSync(join(clean.worktree, 'notes.md'), 'uncommitted notes\n');
    writeFileSync(join(clean.worktree, 'README.md'), '# test, edited\n');
    const clashBefore = {
      head: t.git(clash.worktree, 'rev-parse', 'HEAD'),
      status: t.git(clash.worktree, 'status', '--porcelain=v2'),
      file: readFileSync(join(clash.worktree, 'a.txt'), 'utf8'),
    };
    const busyHead = t.git(busy.worktree, 'rev-parse', 'HEAD');

    const tip = userCommits(repo, 10, 'the user');

    const rebased = await t.workspaceEvent(fresh('fresh.rebased', 'clean'));
    expect(rebased.data).toMatchObject({ baseRef: 'main', onto: tip, commits: 1 });
    expect(t.git(clean.worktree, 'rev-parse', 'HEAD^')).toBe(tip);
    expect(readFileSync(join(clean.worktree, 'a.txt'), 'utf8')).toBe(lines({ 3: 'clean', 10: 'the user' }));
    expect(readFileSync(join(clean.worktree, 'notes.md'), 'utf8')).toBe('uncommitted notes\n');
    expect(t.git(clean.worktree, 'status', '--porcelain')).toBe('M README.md\n?? notes.md');
    // Its change is its own again: counted from the new tip.
    const cleanView = await t.json<PeekView>(['peek', 'clean']);
    expect(cleanView.session.baseCommit).toBe(tip);
    expect(cleanView.filesChanged.map((f) => f.path).sort()).toEqual(['README.md', 'a.txt', 'notes.md']);
    expect(await t.ok(['peek', 'clean'])).toMatch(
      /fresh: +rebased onto main \([0-9a-f]{8}\), 1 commit of its own/,
    );
    // A checkpoint holds the work as it was before.
    expect(await t.ok(['checkpoints', 'clean'])).toMatch(/keep-fresh: rebase onto main/);

    const conflicted = await t.workspaceEvent(fresh('fresh.conflicted', 'clash'));
    expect(conflicted.data).toMatchObject({ onto: tip, files: ['a.txt'], handedTo: 'agent' });
    // Put back exactly, and its agent took the conflict as its next turn.
    expect(t.git(clash.worktree, 'rev-parse', 'HEAD')).toBe(clashBefore.head);
    expect(t.git(clash.worktree, 'status', '--porcelain=v2')).toBe(clashBefore.status);
    expect(readFileSync(join(clash.worktree, 'a.txt'), 'utf8')).toBe(clashBefore.file);
    expect(existsSync(join(clash.worktree, '.git'))).toBe(true);
    await t.waitForEvent(
      'clash',
      (e) =>
        e.type === 'message.added' &&
        e.role === 'assistant' &&
        /Noted: Baton keep-fresh: the base branch `main` moved/.test(e.text),
    );
    const clashView = await t.waitForState('clash', 'ready_for_review');
    expect(clashView.fresh).toMatchObject({ status: 'conflict' });
    expect(clashView.fresh?.message).toMatch(/rebasing conflicts in a\.txt; handed to its agent/);

    // The working session: deferred, its worktree untouched while its agent works.
    const deferred = await t.workspaceEvent(fresh('fresh.deferred', 'busy'));
    expect(deferred.data).toMatchObject({ why: 'working', onto: tip });
    expect(t.git(busy.worktree, 'rev-parse', 'HEAD')).toBe(busyHead);
    expect(await t.ok(['ls'])).toMatch(/busy .*behind main: rebased when its turn ends/);

    // Its turn ends (it commits line 17): then it is rebased.
    writeFileSync(join(busy.worktree, 'go'), '');
    const busyRebased = await t.workspaceEvent(fresh('fresh.rebased', 'busy'));
    expect(busyRebased.data).toMatchObject({ onto: tip, commits: 1 });
    expect(readFileSync(join(busy.worktree, 'a.txt'), 'utf8')).toBe(lines({ 10: 'the user', 17: 'busy' }));

    const events = await t.ok(['events']);
    expect(events).toMatch(/fresh\.rebased +clean: rebased onto main/);
    expect(events).toMatch(
      /fresh\.conflicted +clash: behind main .*conflicts in a\.txt; handed to its agent/,
    );
  });

  it('leaves a conflict to the user when asked, and never touches a worktree left mid-rebase', async () => {
    const repo = setUp({ keepFresh: { conflicts: 'user' } });
    const clash = await dispatchEditing(repo, 'clash', 10);
    await t.waitForState('clash', 'ready_for_review');
    const tip = userCommits(repo, 10, 'the user');

    const conflicted = await t.workspaceEvent(fresh('fresh.conflicted', 'clash'));
    expect(conflicted.data).toMatchObject({ onto: tip, handedTo: 'user' });
    expect(await t.ok(['ls'])).toMatch(/clash .*rebasing conflicts in a\.txt; yours to resolve/);
    // No turn was given to the agent.
    const said = await t.json<PeekView>(['peek', 'clash']);
    expect(said.lastOutput ?? '').not.toMatch(/keep-fresh/);
    expect(said.session.state).toBe('ready_for_review');

    // The user starts the rebase in its worktree and leaves it stopped at the conflict.
    expect(() => t.git(clash.worktree, 'rebase', 'main')).toThrow();
    const stuck = t.git(clash.worktree, 'status', '--porcelain=v2');
    const next = userCommits(repo, 19, 'more from the user');
    const deferred = await t.workspaceEvent(
      (e) => fresh('fresh.deferred', 'clash')(e) && (e.data as { why: string }).why === 'mid_operation',
    );
    expect(deferred.data).toMatchObject({ onto: next });
    expect((deferred.data as { message: string }).message).toMatch(
      /in the middle of a rebase: finish or abort it/,
    );
    expect(t.git(clash.worktree, 'status', '--porcelain=v2')).toBe(stuck);
    expect(existsSync(join(t.git(clash.worktree, 'rev-parse', '--absolute-git-dir'), 'rebase-merge'))).toBe(
      true,
    );
  });

  it('leaves a session being merged to its merge: deferred while the merge runs, never rebased under it', async () => {
    const repo = setUp();
    // The merge's check waits for a file the test makes: the merge is mid-way until then.
    const go = join(t.root, 'check-may-pass');
    configure(t, repo, { merge: { check: ['sh', '-c', `while [ ! -e '${go}' ]; do sleep 0.05; done`] } });
    const landing = await dispatchEditing(repo, 'landing', 3);
    await t.waitForState('landing', 'ready_for_review');
    const headBefore = t.git(landing.worktree, 'rev-parse', 'HEAD');
    const merge = t.run(['merge', 'landing', '--json'], { cwd: repo });
    await t.workspaceEvent((e) => e.type === 'merge.checking');

    // The base moves while the merge checks: keep-fresh would rebase the branch under the merge.
    const tip = userCommits(repo, 15, 'the user');
    const first = await t.workspaceEvent(
      (e) => fresh('fresh.deferred', 'landing')(e) || fresh('fresh.rebased', 'landing')(e),
    );
    expect(first.data).toMatchObject({ why: 'merging', onto: tip });
    expect((first.data as { message: string }).message).toMatch(/being merged/);
    expect(t.git(landing.worktree, 'rev-parse', 'HEAD')).toBe(headBefore);

    // The check passes: the merge sees its base moved, merges again onto the new tip and lands.
    writeFileSync(go, '');
    const result = JSON.parse((await merge).stdout) as MergeResult;
    expect(result).toMatchObject({ outcome: 'landed' });
    expect(t.git(repo, 'show', 'main:a.txt')).toBe(lines({ 3: 'landing', 15: 'the user' }).trimEnd());
    const events = (await t.client().call('GET /api/workspace/events')).events;
    expect(events.filter(fresh('fresh.rebased', 'landing'))).toEqual([]);
  });
});
