/** Sync through the real binary: each session's work pushed to a local bare remote at turn ends, and restored on a fresh clone. */
import { existsSync, readFileSync } from 'node:fs';
import { watch } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SyncStatusView, RestoreView } from '../../src/api/sync.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';
import { watchExit } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

type Pushed = Extract<WorkspaceEvent, { type: 'sync.pushed' }>;
type Failed = Extract<WorkspaceEvent, { type: 'sync.failed' }>;

/** A bare repository as `origin`, the main branch on it, and the repository set to push at turn ends. */
function withRemote(config: Record<string, unknown> = { push: 'turn' }): string {
  const bare = join(t.root, 'remote.git');
  t.git(t.root, 'init', '--quiet', '--bare', bare);
  t.git(repo, 'remote', 'add', 'origin', bare);
  configure(t, repo, { sync: config });
  t.git(repo, 'push', '--quiet', 'origin', 'main');
  return bare;
}

/** A session that commits `c.txt` and leaves `u.txt` uncommitted; each reply commits what is there and leaves `r<n>.txt` uncommitted. */
async function session(name: string): Promise<{ id: string; worktree: string }> {
  const steps = [
    { write: { path: 'c.txt', content: 'committed\n' } },
    { run: ['git', 'add', '--all'] },
    { run: ['git', 'commit', '-qm', 'committed work'] },
    { write: { path: 'u.txt', content: 'uncommitted\n' } },
  ];
  const onReply = [
    { run: ['git', 'add', '--all'] },
    { run: ['git', 'commit', '-qm', 'reply: {{reply}}'] },
    { write: { path: 'r.txt', content: '{{reply}}\n' } },
  ];
  await t.ok(['dispatch', `${name}: work`, '--name', name, '--script', t.script(steps, { onReply })], {
    cwd: repo,
  });
  const view = await t.waitForState(name, 'ready_for_review');
  return { id: view.id, worktree: view.worktree };
}

const pushedEvent =
  (name: string, after = 0) =>
  async (): Promise<Pushed> =>
    (await t.workspaceEvent(
      (e) => e.type === 'sync.pushed' && e.data.name === name && e.seq > after,
    )) as Pushed;
const failedEvent = (name: string) => async (): Promise<Failed> =>
  (await t.workspaceEvent((e) => e.type === 'sync.failed' && e.data.name === name)) as Failed;

describe('sync: sessions pushed to the shared remote at turn ends', () => {
  it('pushes the branch and a snapshot of the uncommitted work after each turn', async () => {
    const bare = withRemote();
    const s = await session('pusher');
    const first = await pushedEvent('pusher')();
    const head = t.git(s.worktree, 'rev-parse', 'HEAD');
    expect(first.data).toMatchObject({
      remote: 'origin',
      ref: 'refs/heads/baton/pusher',
      commit: head,
      snapshotRef: `refs/baton/snapshots/${s.id}`,
    });
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/pusher')).toBe(head);
    const snapshot = t.git(bare, 'rev-parse', `refs/baton/snapshots/${s.id}`);
    expect(snapshot).toBe(first.data.snapshotCommit);
    expect(t.git(bare, 'rev-parse', `${snapshot}^`)).toBe(head);
    expect(t.git(bare, 'show', `${snapshot}:u.txt`)).toBe('uncommitted');
    expect(t.git(bare, 'show', `${head}:c.txt`)).toBe('committed');
    // The session's own index and files are untouched by the snapshot.
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('?? u.txt');

    await t.ok(['reply', 'pusher', 'second'], { cwd: repo });
    const second = await pushedEvent('pusher', first.seq)();
    const head2 = t.git(s.worktree, 'rev-parse', 'HEAD');
    expect(head2).not.toBe(head);
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/pusher')).toBe(head2);
    expect(t.git(bare, 'show', `${head2}:u.txt`)).toBe('uncommitted');
    expect(t.git(bare, 'show', `${second.data.snapshotCommit ?? ''}:r.txt`)).toBe('second');

    const [status] = await t.json<SyncStatusView[]>(['sync', 'pusher', '--json'], { cwd: repo });
    expect(status).toMatchObject({
      name: 'pusher',
      push: 'turn',
      commit: head2,
      snapshotCommit: second.data.snapshotCommit,
      failure: null,
      failures: 0,
    });
    expect(await t.ok(['sync'], { cwd: repo })).toMatch(
      new RegExp(
        `pusher  origin baton/pusher\\n  pushed ${head2.slice(0, 10)} \\+ uncommitted work ${(second.data.snapshotCommit ?? '').slice(0, 10)}`,
      ),
    );
  });

  it('reports a remote that does not exist as sync.failed and leaves the session alone', async () => {
    withRemote({ push: 'turn', remote: 'nowhere' });
    const s = await session('lost');
    const failed = await failedEvent('lost')();
    expect(failed.data).toMatchObject({ remote: 'nowhere', kind: 'no_remote', failures: 1 });
    expect(failed.data.reason).toMatch(/no remote "nowhere" \(it has: origin\).*"sync": \{"remote"/);
    const [status] = await t.json<SyncStatusView[]>(['sync', 'lost', '--json'], { cwd: repo });
    expect(status).toMatchObject({ commit: null, failures: 1, failure: { kind: 'no_remote' } });
    const view = await t.waitForState('lost', 'ready_for_review');
    expect(view.worktree).toBe(s.worktree);
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('?? u.txt');
    const now = await t.run(['sync', 'lost', '--now'], { cwd: repo });
    expect(now.code).toBe(4);
    expect(now.stdout).toMatch(/failed .* ago \(2 in a row\): The repository has no remote "nowhere"/);
  });

  it('pushes the last turn’s work once the remote is back, with no turn after it, after a supervisor restart too', async () => {
    // A short first backoff; the supervisor starts with the test's environment at the first command.
    t.env.BATON_SYNC_BACKOFF_MS = '200';
    const bare = join(t.root, 'remote.git');
    t.git(repo, 'remote', 'add', 'origin', bare);
    configure(t, repo, { sync: { push: 'turn' } });
    const s = await session('late');
    expect((await failedEvent('late')()).data).toMatchObject({
      remote: 'origin',
      kind: 'error',
      failures: 1,
    });
    // The supervisor goes down with the push still owed, and the remote comes back meanwhile.
    const pid = t.supervisorPid();
    process.kill(pid, 'SIGKILL');
    await watchExit(pid);
    t.git(t.root, 'init', '--quiet', '--bare', bare);
    await t.ok(['ls'], { cwd: repo });
    const pushed = await pushedEvent('late')();
    expect(pushed.data).toMatchObject({
      commit: t.git(s.worktree, 'rev-parse', 'HEAD'),
      snapshotRef: `refs/baton/snapshots/${s.id}`,
    });
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/late')).toBe(pushed.data.commit);
  });

  it('does not overwrite a remote branch someone else moved, and says so; --now --force does', async () => {
    const bare = withRemote();
    const s = await session('contested');
    const first = await pushedEvent('contested')();
    // Someone else, in their own clone, pushes a commit onto the session's remote branch.
    const other = join(t.root, 'other');
    t.git(t.root, 'clone', '--quiet', bare, other);
    t.git(other, 'checkout', '--quiet', 'baton/contested');
    t.git(other, 'commit', '--quiet', '--allow-empty', '-m', 'not the session');
    t.git(other, 'push', '--quiet', 'origin', 'baton/contested');
    const theirs = t.git(other, 'rev-parse', 'HEAD');

    await t.ok(['reply', 'contested', 'more'], { cwd: repo });
    const failed = await failedEvent('contested')();
    expect(failed.data.kind).toBe('moved');
    expect(failed.data.reason).toMatch(
      new RegExp(
        `remote's baton/contested is at ${theirs.slice(0, 10)}, which this session did not push.*someone else moved it`,
      ),
    );
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/contested')).toBe(theirs);
    // The snapshot moved with the branch or not at all (one atomic push).
    expect(t.git(bare, 'rev-parse', `refs/baton/snapshots/${s.id}`)).toBe(first.data.snapshotCommit);

    const forced = await t.json<SyncStatusView>(['sync', 'contested', '--now', '--force', '--json'], {
      cwd: repo,
    });
    const head = t.git(s.worktree, 'rev-parse', 'HEAD');
    expect(forced).toMatchObject({ commit: head, failure: null, failures: 0 });
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/contested')).toBe(head);
  });

  it('restores a session on a fresh clone: the branch checked out, the uncommitted work laid over it', async () => {
    const bare = withRemote();
    const s = await session('travels');
    await pushedEvent('travels')();
    const fresh = join(t.root, 'fresh');
    t.git(t.root, 'clone', '--quiet', bare, fresh);
    const restored = await t.json<RestoreView>(
      ['sync', 'restore', s.id, '--path', '../elsewhere', '--json'],
      { cwd: fresh },
    );
    const path = join(t.root, 'elsewhere');
    expect(restored).toMatchObject({
      remote: 'origin',
      branch: 'baton/travels',
      commit: t.git(s.worktree, 'rev-parse', 'HEAD'),
      path,
      uncommittedFiles: ['u.txt'],
    });
    expect(t.git(path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('baton/travels');
    expect(readFileSync(join(path, 'c.txt'), 'utf8')).toBe('committed\n');
    expect(readFileSync(join(path, 'u.txt'), 'utf8')).toBe('uncommitted\n');
    expect(t.git(path, 'status', '--porcelain')).toBe('?? u.txt');

    // By name: the branch alone; an unknown session is named with the remote.
    const fresh2 = join(t.root, 'fresh2');
    t.git(t.root, 'clone', '--quiet', bare, fresh2);
    const byName = await t.ok(['sync', 'restore', 'travels'], { cwd: fresh2 });
    expect(byName).toBe(
      `Restored baton/travels at ${restored.commit.slice(0, 10)} from origin into ${join(t.root, 'fresh2-travels')}\nno uncommitted work was pushed\n`,
    );
    expect(readFileSync(join(t.root, 'fresh2-travels', 'c.txt'), 'utf8')).toBe('committed\n');
    const missing = await t.run(['sync', 'restore', 'nobody'], { cwd: fresh });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/The remote "origin" has no work of a session "nobody"/);
    expect(existsSync(join(t.root, 'fresh-nobody'))).toBe(false);
  });

  it('a session landed by baton merge is pushed as it completes, with no failure from its worktree going', async () => {
    withRemote();
    const s = await session('lands');
    await pushedEvent('lands')();
    await t.ok(['merge', 'lands'], { cwd: repo });
    await t.workspaceEvent((e) => e.type === 'session.removed' && e.data.name === 'lands');
    // The completion's push ends in the log: pushed (the removal waited for its snapshot), or not
    // pushed (the completion heard after the removal); never a failure for the worktree going.
    const outcomes = await waitForLog(
      (lines) =>
        lines.filter((l) => l.service === 'sync' && (l.session === 'lands' || l.sessionId === s.id)).length >=
        2,
    );
    const last = outcomes.filter((l) => l.service === 'sync').at(-1);
    expect(last?.msg).toMatch(
      /^(pushed|not pushed: the session (is gone|was removed|was removed meanwhile))$/,
    );
    const events = (await t.client().call('GET /api/workspace/events')).events;
    expect(events.filter((e) => e.type === 'sync.failed')).toEqual([]);
  });
});

interface LogLine {
  service?: string;
  msg: string;
  session?: string;
  sessionId?: string;
}

/** Waits on file notifications until the supervisor's log satisfies `enough`; answers its lines. */
async function waitForLog(enough: (lines: LogLine[]) => boolean): Promise<LogLine[]> {
  const file = join(t.home, 'supervisor.log');
  const lines = (): LogLine[] =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  if (enough(lines())) return lines();
  const controller = new AbortController();
  try {
    for await (const change of watch(file, { signal: controller.signal }))
      if (change.filename !== null && enough(lines())) return lines();
  } finally {
    controller.abort();
  }
  return lines();
}
