import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RemoveView, SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { readLog } from '../../src/sessions/event-log.js';
import { TestBaton } from '../support/baton.js';
import { watchExit } from '../support/process.js';
import { pollUntil, until } from '../support/wait.js';

let t: TestBaton;
let repo: string;

afterEach(() => t.cleanup());

describe('queueing past the concurrency cap', () => {
  beforeEach(() => {
    t = new TestBaton({ BATON_MAX_CONCURRENT: '2' });
    repo = t.repo();
  });

  it('queues dispatches beyond the cap visibly and starts them as slots free', async () => {
    // The first two hosts are held at their start, as on a loaded machine: sessions whose hosts are
    // starting have their slots and are not in line ahead of the third (decision 432).
    const points = t.points();
    points.hold('host.launch');
    const hold = t.script([{ ask: 'go on?' }, { say: 'done' }]);
    await t.ok(['dispatch', 'a', '--name', 'a', '--script', hold], { cwd: repo });
    await t.ok(['dispatch', 'b', '--name', 'b', '--script', hold], { cwd: repo });
    await until(() => points.reachedCount('host.launch') === 2, 'both hosts held at their start');
    const c = await t.json<SessionView>(['dispatch', 'c', '--name', 'c', '--script', hold], { cwd: repo });
    expect(c.state).toBe('queued');
    expect(c.queuePosition).toBe(1);
    expect(await t.ok(['ls'])).toMatch(/Queued \(1\)\n.*c .*queued #1/);
    expect(JSON.parse(await t.ok(['daemon', 'status', '--json']))).toMatchObject({ active: 2, queued: 1 });
    points.release('host.launch');
    await t.waitForState('a', 'needs_input');
    await t.waitForState('b', 'needs_input');
    expect(await t.ok(['ls'])).toMatch(/Queued \(1\)\n.*c .*queued #1/);
    expect((await t.json<SessionView>(['peek', 'c'])) as unknown).toMatchObject({
      session: { state: 'queued', running: false },
    });

    await t.ok(['reply', 'a', 'yes']);
    await t.waitForState('a', 'ready_for_review');
    await t.waitForState('c', 'needs_input');
    const status = JSON.parse(await t.ok(['daemon', 'status', '--json']));
    expect(status).toMatchObject({ running: true, maxConcurrent: 2, active: 2, queued: 0 });
  });

  it('fails a queued session whose host cannot start, instead of retrying it for ever', async () => {
    const hold = t.script([{ ask: 'go on?' }, { say: 'done' }]);
    await t.ok(['dispatch', 'a', '--name', 'a', '--script', hold], { cwd: repo });
    await t.ok(['dispatch', 'b', '--name', 'b', '--script', hold], { cwd: repo });
    const doomed = await t.json<SessionView>(['dispatch', 'c', '--name', 'doomed', '--script', hold], {
      cwd: repo,
    });
    expect(doomed.state).toBe('queued');
    await t.waitForState('a', 'needs_input');
    rmSync(doomed.worktree, { recursive: true, force: true });

    await t.ok(['reply', 'a', 'yes']);
    const failed = await t.waitForState('doomed', 'failed');
    expect(JSON.stringify(failed.reason)).toMatch(/its session host could not start/);
    // The scheduler is free again: a new dispatch starts in the slot.
    await t.ok(['dispatch', 'd', '--name', 'after', '--script', hold], { cwd: repo });
    await t.waitForState('after', 'needs_input');
  });

  it('resumes a stopped session to take a reply, but not past the cap, and then changes nothing', async () => {
    await t.ok(['dispatch', 'a', '--name', 'a', '--script', t.script([{ say: 'first turn' }])], {
      cwd: repo,
    });
    await t.waitForState('a', 'ready_for_review');
    expect((await t.json<SessionView>(['stop', 'a'])).state).toBe('stopped');
    const hold = t.script([{ ask: 'go on?' }, { say: 'done' }]);
    await t.ok(['dispatch', 'b', '--name', 'b', '--script', hold], { cwd: repo });
    await t.ok(['dispatch', 'c', '--name', 'c', '--script', hold], { cwd: repo });
    await t.waitForState('b', 'needs_input');
    await t.waitForState('c', 'needs_input');

    const refused = await t.run(['reply', 'a', 'more please']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toMatch(
      /^baton: Cannot reply to a: it is stopped, and resuming it would exceed the limit of 2 running sessions\. Stop one/,
    );
    const untouched = await t.json<{ session: SessionView }>(['peek', 'a']);
    expect(untouched.session).toMatchObject({ state: 'stopped', running: false });

    await t.ok(['reply', 'b', 'yes']);
    await t.waitForState('b', 'ready_for_review');
    const replied = await t.json<SessionView>(['reply', 'a', 'more please']);
    expect(replied.running).toBe(true);
    await t.waitForEvent(
      'a',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'Noted: more please',
    );
    await t.waitForState('a', 'ready_for_review');
    const events = (await t.ok(['logs', 'a', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BatonEvent);
    const started = events.filter((e) => e.type === 'session.started');
    expect(started.map((e) => (e.type === 'session.started' ? e.resumed : null))).toEqual([false, true]);
    // The reply is recorded once, after the resumed start, and answered in the same conversation.
    const reply = events.filter((e) => e.type === 'message.added' && e.role === 'user');
    expect(reply).toHaveLength(1);
    expect(reply[0]!.seq).toBeGreaterThan(started[1]!.seq);
  });
});

describe("the supervisor's address", () => {
  beforeEach(() => {
    t = new TestBaton();
  });

  const port = (): number =>
    (JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as { port: number }).port;
  async function kill(): Promise<void> {
    const pid = t.supervisorPid();
    process.kill(pid, 'SIGKILL');
    await watchExit(pid);
  }

  it('is the same after a restart, so open pages reconnect; another one if that port was taken', async () => {
    await t.ok(['ls']);
    const first = port();
    await kill();
    await t.ok(['ls']);
    expect(port()).toBe(first);

    // The dead supervisor's file still names the port, now held by a stranger, which must not
    // be sent the token.
    await kill();
    const seen: (string | undefined)[] = [];
    const blocker = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.end('{}');
    });
    // The killed supervisor's port can take a moment to be released after its process is gone:
    // bind again while it is in use, for a few seconds at most.
    const bind = (): Promise<void> =>
      new Promise((resolve, reject) => {
        blocker.once('error', reject);
        blocker.listen(first, '127.0.0.1', () => {
          blocker.off('error', reject);
          resolve();
        });
      });
    await pollUntil(
      () => bind().then(() => true),
      (bound) => bound,
      `port ${first} free again for the stranger`,
      { timeoutMs: 5_000, intervalMs: 20 },
    );
    try {
      await t.ok(['ls']);
      expect(seen).toEqual([]);
      expect(port()).not.toBe(first);
      expect(readFileSync(join(t.home, 'last-port'), 'utf8').trim()).toBe(String(port()));
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('sessions survive the supervisor', () => {
  beforeEach(() => {
    t = new TestBaton();
    repo = t.repo();
  });

  it('keeps a session running through kill -9 of the supervisor; a new one ingests every event once', async () => {
    const steps: unknown[] = [{ ask: 'ready?' }];
    for (let i = 0; i < 40; i++) steps.push({ say: `line ${i}` });
    steps.push({ write: { path: 'after.txt', content: 'written while the supervisor was down\n' } });
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'survivor', '--script', t.script(steps)],
      { cwd: repo },
    );
    await t.waitForState('survivor', 'needs_input');
    const supervisorPid = t.supervisorPid();
    const client = t.client();

    process.kill(supervisorPid, 'SIGKILL');
    await watchExit(supervisorPid);
    // The host still answers: send the reply straight to its socket, as the supervisor would.
    const { sendToHost } = await import('../../src/sessions/host-client.js');
    const socket = JSON.parse(readFileSync(join(t.home, 'sessions', session.id, 'spec.json'), 'utf8')) as {
      sessionId: string;
    };
    expect(socket.sessionId).toBe(session.id);
    const { sessionPaths } = await import('../../src/shared/paths.js');
    await sendToHost(sessionPaths(t.home, session.id).socket, { op: 'reply', text: 'go' });
    await waitForFileEvent(
      join(t.home, 'sessions', session.id, 'events.jsonl'),
      (e) => e.type === 'state.changed' && e.to === 'ready_for_review',
    );
    expect(readFileSync(join(session.worktree, 'after.txt'), 'utf8')).toContain('supervisor was down');
    await expect(client.call('GET /api/health')).rejects.toThrow(/Cannot reach/);

    // Any command starts a new supervisor, which re-attaches and ingests what it missed.
    const after = await t
      .json<SessionView>(['peek', 'survivor'])
      .then((p) => (p as unknown as { session: SessionView }).session);
    expect(after.state).toBe('ready_for_review');
    expect(after.running).toBe(true);
    const stored = (await t.ok(['logs', 'survivor', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BatonEvent);
    const onDisk = readLog(join(t.home, 'sessions', session.id, 'events.jsonl')).events;
    expect(stored.map((e) => e.seq)).toEqual(onDisk.map((e) => e.seq));
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(stored.filter((e) => e.type === 'message.added' && e.text.startsWith('line '))).toHaveLength(40);

    // And it is still reachable for follow-ups.
    await t.ok(['reply', 'survivor', 'one more thing']);
    await t.waitForEvent(
      'survivor',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'Noted: one more thing',
    );
  });

  it('marks a session failed when its host is killed, and respawn resumes it in the same worktree', async () => {
    const steps = [
      { write: { path: 'one.txt', content: '1' } },
      { ask: 'continue?' },
      { write: { path: 'two.txt', content: '2' } },
    ];
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'crashy', '--script', t.script(steps)],
      { cwd: repo },
    );
    const waiting = await t.waitForState('crashy', 'needs_input');
    expect(waiting.hostPid).toBeGreaterThan(0);
    process.kill(waiting.hostPid!, 'SIGKILL');

    const failed = await t.waitForState('crashy', 'failed');
    expect(failed.reason?.kind).toBe('error');
    expect(JSON.stringify(failed.reason)).toMatch(/session host \(pid \d+\) exited unexpectedly/);
    expect(failed.running).toBe(false);

    await t.ok(['respawn', 'crashy']);
    // The scripted agent resumes at the step it was on: the question is asked again.
    const again = await t.waitForState('crashy', 'needs_input');
    expect(again.worktree).toBe(session.worktree);
    expect(again.hostPid).not.toBe(waiting.hostPid);
    await t.ok(['reply', 'crashy', 'yes']);
    await t.waitForState('crashy', 'ready_for_review');
    expect(existsSync(join(session.worktree, 'one.txt'))).toBe(true);
    expect(existsSync(join(session.worktree, 'two.txt'))).toBe(true);
    const events = (await t.ok(['logs', 'crashy', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BatonEvent);
    expect(
      events
        .filter((e) => e.type === 'session.started')
        .map((e) => (e.type === 'session.started' ? e.resumed : null)),
    ).toEqual([false, true]);
    // Only one write of one.txt: the finished step was not run twice.
    expect(events.filter((e) => e.type === 'tool.started' && e.input === 'one.txt')).toHaveLength(1);
  });

  it('respawn --all restarts every failed or stopped session', async () => {
    await t.ok(['dispatch', 'x', '--name', 'f1', '--script', t.script([{ fail: 'boom' }])], { cwd: repo });
    await t.ok(['dispatch', 'x', '--name', 's1', '--script', t.script([{ say: 'hi' }, { sleep: 600_000 }])], {
      cwd: repo,
    });
    await t.waitForState('f1', 'failed');
    await t.waitForEvent('s1', (e) => e.type === 'message.added');
    await t.ok(['stop', 's1']);
    const respawned = await t.json<SessionView[]>(['respawn', '--all']);
    expect(respawned.map((s) => s.name).sort()).toEqual(['f1', 's1']);
    await t.waitForEvent('s1', (e) => e.type === 'session.started' && e.resumed);
    expect((await t.json<SessionView[]>(['respawn', '--all'])).map((s) => s.name)).toEqual([]);
  });

  it('rm keeps uncommitted work recoverable in a snapshot ref', async () => {
    const steps = [
      { write: { path: 'new-file.txt', content: 'untracked work\n' } },
      { edit: { path: 'README.md', old: '# test', new: '# edited' } },
    ];
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'keep', '--script', t.script(steps)],
      { cwd: repo },
    );
    await t.waitForState('keep', 'ready_for_review');
    const human = await t.ok(['rm', 'keep'], { cwd: repo });
    expect(human).toContain('refs/baton/snapshots/keep');
    expect(existsSync(session.worktree)).toBe(false);
    expect(t.git(repo, 'show', 'refs/baton/snapshots/keep:new-file.txt')).toBe('untracked work');
    expect(t.git(repo, 'show', 'refs/baton/snapshots/keep:README.md')).toBe('# edited');
    expect(t.git(repo, 'worktree', 'list')).not.toContain('keep');
    expect(await t.ok(['ls'])).not.toContain('keep');

    // The name is free again, and a second snapshot does not overwrite the first.
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'keep',
        '--script',
        t.script([{ write: { path: 'again.txt', content: 'x' } }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('keep', 'ready_for_review');
    const second = await t.json<RemoveView>(['rm', 'keep'], { cwd: repo });
    expect(second.snapshotRef).toBe('refs/baton/snapshots/keep-2');
    expect(t.git(repo, 'show', 'refs/baton/snapshots/keep:new-file.txt')).toBe('untracked work');
  });

  it('rm of a running session asks for --force, then stops it first', async () => {
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'busy', '--script', t.script([{ say: 'hi' }, { sleep: 600_000 }])],
      { cwd: repo },
    );
    const running = await t.waitForState('busy', 'working');
    const refused = await t.run(['rm', 'busy']);
    expect([refused.code, refused.stderr]).toEqual([
      4,
      'baton: busy is working; not removed. Add --force to remove it anyway (its uncommitted work is kept in a snapshot ref).\n',
    ]);
    expect(existsSync(session.worktree)).toBe(true);
    const view = await t.json<RemoveView>(['rm', 'busy', '--force']);
    expect(view.snapshotRef).toBeNull();
    expect(view.branchDeleted).toBe(true);
    await watchExit(running.hostPid!);
    expect(existsSync(session.worktree)).toBe(false);
  });
});

async function waitForFileEvent(path: string, match: (e: BatonEvent) => boolean): Promise<void> {
  const { waitForFile } = await import('../support/process.js');
  await waitForFile(path, () => readLog(path).events.some(match));
}
