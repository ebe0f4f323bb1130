/**
 * Baton's own writers of a session's branch and worktree, one at a time (decisions 402–404): while
 * keep-fresh is mid-rebase — stopped by the test at the step where the session's uncommitted work
 * is set aside and its branch is about to move (`BATON_TEST_POINTS`, src/shared/test-points.ts) —
 * a pull request, a sync push and a checkpoint's restore of that session each wait for the rebase
 * to end (the supervisor marks the wait), then do their work on the rebased worktree. On the old
 * code each ran at once: the pull request and the push took the worktree with its work set aside,
 * and the restore's files were wiped by the rebase's put-back.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { PrView } from '../../src/api/merge.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { TestBaton } from '../support/baton.js';
import { finishedSession } from '../support/landing.js';
import type { TestPoints } from '../support/points.js';
import { watchExit } from '../support/process.js';

let t: TestBaton;
let points: TestPoints;
afterEach(() => t.cleanup());

const lines = (change: Record<number, string> = {}): string =>
  Array.from({ length: 20 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** A repository with a bare remote, and a session that committed line 3 and left README.md edited. */
async function setUp(arm: string[] = []): Promise<{ repo: string; bare: string; session: SessionView }> {
  // Base tips read every 200 ms: the user's own commits make no event to wake keep-fresh.
  t = new TestBaton({ BATON_FRESH_INTERVAL_MS: '200' });
  points = t.points();
  for (const point of arm) points.hold(point);
  const repo = t.repo('repo', { 'a.txt': lines(), 'README.md': '# test\n' });
  const bare = join(t.root, 'remote.git');
  t.git(t.root, 'init', '--quiet', '--bare', bare);
  t.git(repo, 'remote', 'add', 'origin', bare);
  const session = await finishedSession(t, repo, 's', {
    committed: { 'a.txt': lines({ 3: 'the session' }) },
    uncommitted: { 'README.md': '# edited\n' },
  });
  return { repo, bare, session };
}

/** The user commits on main: `line` of a.txt. Returns main's new tip. */
function userCommits(repo: string, line: number): string {
  const content = readFileSync(join(repo, 'a.txt'), 'utf8').split('\n');
  content[line - 1] = `the user, line ${line}`;
  writeFileSync(join(repo, 'a.txt'), content.join('\n'));
  t.git(repo, 'commit', '-qam', `user: line ${line}`);
  return t.git(repo, 'rev-parse', 'main');
}

/** Moves the base and returns once keep-fresh's rebase of the session stopped mid-way (its work set aside). */
async function rebaseStopsMidway(repo: string, line: number): Promise<string> {
  points.hold('rebase.set-aside');
  const tip = userCommits(repo, line);
  await waitFor(() => points.reached('rebase.set-aside'), 'keep-fresh to stop mid-rebase');
  return tip;
}

async function waitFor(done: () => boolean, what: string, stop: () => boolean = () => false): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (!done()) {
    if (stop()) return;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Starts `command` while the rebase is stopped and says which came first: the supervisor marking
 * that it waits for the session's hold, or the command's end (it ran under the rebase).
 */
async function whileRebasing<T>(
  command: () => Promise<T>,
): Promise<{ first: 'waited' | 'ran'; done: Promise<T> }> {
  points.forget('session.held-waiting');
  let ended = false;
  const done = command();
  const ran = done.then(
    () => 'ran' as const,
    () => 'ran' as const,
  );
  void ran.then(() => (ended = true));
  const waited = waitFor(
    () => points.reached('session.held-waiting'),
    'the command to wait for the rebase',
    () => ended,
  ).then(() => 'waited' as const);
  const first = await Promise.race([waited, ran]);
  return { first, done };
}

const rebasedEvent = (onto: string) => (e: WorkspaceEvent) =>
  e.type === 'fresh.rebased' &&
  (e.data as { name: string; onto: string }).name === 's' &&
  e.data.onto === onto;

describe("Baton's writers of one session take turns", () => {
  it('a pull request waits for a keep-fresh rebase running, then proposes the rebased branch with its work', async () => {
    const { repo, bare, session } = await setUp();
    const tip = await rebaseStopsMidway(repo, 15);

    const pr = await whileRebasing(() => t.json<PrView>(['pr', 's', '--json'], { cwd: repo }));
    expect(pr.first).toBe('waited');
    points.release('rebase.set-aside');
    const view = await pr.done;
    await t.workspaceEvent(rebasedEvent(tip));

    // Pushed: the rebased branch, with the work left uncommitted committed on top.
    expect(view.committedWork).toBe(true);
    expect(t.git(session.worktree, 'rev-parse', 'HEAD')).toBe(view.commit);
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/s')).toBe(view.commit);
    expect(t.git(bare, 'merge-base', '--is-ancestor', tip, view.commit)).toBe('');
    expect(t.git(bare, 'show', `${view.commit}:README.md`)).toBe('# edited');
    expect(t.git(session.worktree, 'status', '--porcelain')).toBe('');
  });

  it('a sync push waits for a keep-fresh rebase running, then pushes the rebased branch and the work set aside', async () => {
    const { repo, bare, session } = await setUp();
    const tip = await rebaseStopsMidway(repo, 15);

    const push = await whileRebasing(() => t.json<unknown>(['sync', 's', '--now', '--json'], { cwd: repo }));
    expect(push.first).toBe('waited');
    points.release('rebase.set-aside');
    await push.done;
    await t.workspaceEvent(rebasedEvent(tip));

    // The branch as rebased, and the uncommitted work as a snapshot on top of it.
    const head = t.git(session.worktree, 'rev-parse', 'HEAD');
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/s')).toBe(head);
    expect(t.git(bare, 'merge-base', '--is-ancestor', tip, head)).toBe('');
    const snapshot = t.git(bare, 'rev-parse', `refs/baton/snapshots/${session.id}`);
    expect(t.git(bare, 'rev-parse', `${snapshot}^`)).toBe(head);
    expect(t.git(bare, 'show', `${snapshot}:README.md`)).toBe('# edited');
  });

  it("a checkpoint's restore waits for a keep-fresh rebase running, and its files stay", async () => {
    const { repo, session } = await setUp();
    // A first rebase, not stopped: its checkpoint holds README.md as "# edited".
    const first = userCommits(repo, 12);
    await t.workspaceEvent(rebasedEvent(first));
    const { checkpoints } = await t
      .client()
      .call('GET /api/sessions/:ref/checkpoints', { params: { ref: 's' } });
    const edited = checkpoints.find((c) => c.subject.includes(first.slice(0, 10)));
    expect(edited).toBeDefined();
    writeFileSync(join(session.worktree, 'README.md'), '# edited again\n');
    const tip = await rebaseStopsMidway(repo, 15);

    const restore = await whileRebasing(() =>
      t.json<unknown>(['restore', 's', edited!.name, '--json'], { cwd: repo }),
    );
    expect(restore.first).toBe('waited');
    points.release('rebase.set-aside');
    await restore.done;
    // The rebase went through with the work of its time, then the restore wrote its files over it.
    await t.workspaceEvent(rebasedEvent(tip));
    expect(t.git(session.worktree, 'merge-base', '--is-ancestor', tip, 'HEAD')).toBe('');
    expect(readFileSync(join(session.worktree, 'README.md'), 'utf8')).toBe('# edited\n');
  });

  it("leaves a landing a killed supervisor left unfinished to the restart's recovery, never rebasing it first", async () => {
    const { repo } = await setUp();
    // The supervisor dies right after a squash merge moved main: the session is landed, not retired.
    await t.ok(['daemon', 'stop']);
    await t.run(['daemon', 'start'], { env: { BATON_TEST_CRASH_AT: 'merge.base-moved' } });
    const pid = t.supervisorPid();
    await t.run(['merge', 's', '--squash'], { cwd: repo });
    await watchExit(pid);
    const landed = t.git(repo, 'rev-parse', 'main');

    // Started again with its catch-up (the merge's recovery) held: keep-fresh's first pass runs alone.
    const release = join(t.root, 'release-catch-up');
    await t.run(['daemon', 'start'], { env: { BATON_STARTUP_HOLD: `catch-up=${release}` } });
    const first = await t.workspaceEvent(
      (e) => e.type.startsWith('fresh.') && (e.data as { name?: string }).name === 's',
    );
    expect(first).toMatchObject({ type: 'fresh.deferred', data: { why: 'merging', onto: landed } });

    writeFileSync(release, '');
    await t.workspaceEvent((e) => e.type === 'merge.landed');
    // Noted from the branch as it landed, and retired: no rebase came between.
    const noted = await t.workspaceEvent((e) => e.type === 'provenance.noted');
    expect((noted.data as { commits: number }).commits).toBeGreaterThan(0);
    const events = (await t.client().call('GET /api/workspace/events')).events;
    expect(events.filter((e) => e.type === 'fresh.rebased' || e.type === 'fresh.conflicted')).toEqual([]);
  });

  it("a turn's record waits for a keep-fresh rebase running, and keeps the turn's uncommitted work as its own", async () => {
    // The record of the session's turn stops before it reads the worktree, until the rebase is mid-way.
    const { repo } = await setUp(['provenance.recording']);
    await waitFor(() => points.reached('provenance.recording'), "the turn's record to stop");
    const tip = await rebaseStopsMidway(repo, 15);

    const record = await whileRebasing(async () => {
      points.release('provenance.recording');
      return t.workspaceEvent((e) => e.type === 'provenance.recorded' && e.data.name === 's');
    });
    expect(record.first).toBe('waited');
    points.release('rebase.set-aside');
    const recorded = await record.done;
    await t.workspaceEvent(rebasedEvent(tip));
    // The turn's commit on the session's chain holds the work it left uncommitted.
    const commit = (recorded.data as { commit: string | null }).commit;
    expect(commit).not.toBeNull();
    expect(t.git(repo, 'show', `${commit}:README.md`)).toBe('# edited');
  });
});
