import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PeekView, SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, sharedHome, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;

// These tests share one home and supervisor (decisions 422 and 433): each works in a repository
// of its own under session names no other test uses, and reads lists only for that repository
// (`ls --here`).
describe('a scripted session through the CLI binary', () => {
  sharedHome((baton, dir) => ((t = baton), (repo = dir)));

  it('runs in its own worktree and ends ready for review, leaving the main checkout untouched', async () => {
    const script = t.script([
      { say: 'hello' },
      { write: { path: 'src/a.txt', content: 'made by the agent\n' } },
      { run: 'echo ran > ran.txt' },
      { usage: { input: 1200, output: 300, usd: 0.01 } },
    ]);
    const session = await t.json<SessionView>(
      ['dispatch', 'add a --verbose flag', '--name', 'verbose', '--script', script],
      { cwd: repo },
    );
    expect(session.branch).toBe('baton/verbose');
    expect(session.worktree).toBe(join(t.home, 'worktrees', basename(repo), 'verbose'));

    const done = await t.waitForState('verbose', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'src/a.txt'), 'utf8')).toBe('made by the agent\n');
    expect(readFileSync(join(done.worktree, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(existsSync(join(repo, 'src/a.txt'))).toBe(false);
    expect(t.git(done.worktree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('baton/verbose');
    expect(done.inputTokens).toBe(1200);
    expect(done.outputTokens).toBe(300);
    expect(done.costUsd).toBeCloseTo(0.01);

    const peek = await t.json<PeekView>(['peek', 'verbose'], { cwd: repo });
    expect(peek.filesChanged.map((f) => f.path).sort()).toEqual(['ran.txt', 'src/a.txt']);
    expect(peek.lastOutput).toBe('hello');

    const states = (await logEvents(t, 'verbose'))
      .filter((e) => e.type === 'state.changed')
      .map((e) => (e.type === 'state.changed' ? e.to : ''));
    expect(states).toEqual(['queued', 'starting', 'working', 'ready_for_review']);
  });

  it('asks a question, waits in needs_input, and uses the reply in later steps', async () => {
    const script = t.script([
      { ask: 'keep the old signature?' },
      { write: { path: 'answer.txt', content: 'answer: {{reply}}' } },
    ]);
    await t.ok(['dispatch', 'refactor', '--name', 'q', '--script', script], { cwd: repo });
    const waiting = await t.waitForState('q', 'needs_input');
    expect(waiting.reason).toEqual({ kind: 'question', text: 'keep the old signature?' });
    const ls = await t.ok(['ls', '--here'], { cwd: repo });
    expect(ls).toMatch(/Needs input \(1\)\n.*q .*asks: keep the old signature\?/);

    await t.ok(['reply', 'q', 'yes,', 'keep', 'it'], { cwd: repo });
    const done = await t.waitForState('q', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'answer.txt'), 'utf8')).toBe('answer: yes, keep it');
  });

  it('holds an approval until approved, and runs the tool', async () => {
    const script = t.script([
      { approve: { tool: 'Bash', input: 'echo approved > approved.txt', reason: 'writes a file' } },
    ]);
    await t.ok(['dispatch', 'x', '--name', 'ap', '--script', script], { cwd: repo });
    const waiting = await t.waitForState('ap', 'needs_input');
    expect(waiting.reason).toMatchObject({
      kind: 'approval',
      tool: 'Bash',
      input: 'echo approved > approved.txt',
      reason: 'writes a file',
    });
    expect(existsSync(join(waiting.worktree, 'approved.txt'))).toBe(false);
    await t.ok(['approve', 'ap'], { cwd: repo });
    const done = await t.waitForState('ap', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'approved.txt'), 'utf8')).toBe('approved\n');
  });

  it('denies an approval: the tool does not run and the agent is told why', async () => {
    const script = t.script([{ approve: { tool: 'Bash', input: 'echo no > denied.txt' } }]);
    await t.ok(['dispatch', 'x', '--name', 'dn', '--script', script], { cwd: repo });
    await t.waitForState('dn', 'needs_input');
    await t.ok(['deny', 'dn', '--reason', 'not that file'], { cwd: repo });
    const done = await t.waitForState('dn', 'ready_for_review');
    expect(existsSync(join(done.worktree, 'denied.txt'))).toBe(false);
    const events = await logEvents(t, 'dn');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'approval.resolved', decision: 'deny', reason: 'not that file' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'message.added',
        role: 'assistant',
        text: 'Understood, I will not run Bash: not that file.',
      }),
    );
  });

  it('fails with the reason, stops on request, and completes with done', async () => {
    await t.ok(
      ['dispatch', 'x', '--name', 'bad', '--script', t.script([{ fail: 'tests failed: 2 of 14' }])],
      { cwd: repo },
    );
    const failed = await t.waitForState('bad', 'failed');
    expect(failed.reason).toEqual({ kind: 'error', message: 'tests failed: 2 of 14' });

    await t.ok(
      ['dispatch', 'x', '--name', 'long', '--script', t.script([{ say: 'going' }, { sleep: 600_000 }])],
      { cwd: repo },
    );
    await t.waitForEvent('long', (e) => e.type === 'message.added');
    const stopped = await t.json<SessionView>(['stop', 'long'], { cwd: repo });
    expect(stopped.state).toBe('stopped');
    expect(stopped.running).toBe(false);

    await t.ok(['dispatch', 'x', '--name', 'fin', '--script', t.script([{ say: 'ok' }])], { cwd: repo });
    await t.waitForState('fin', 'ready_for_review');
    const completed = await t.json<SessionView>(['done', 'fin'], { cwd: repo });
    expect(completed.state).toBe('completed');
    const ls = await t.ok(['ls', '--here'], { cwd: repo });
    expect(ls).toMatch(/Completed \(1\)\n.*fin/);
    expect(ls).toMatch(/Failed \(1\)\n.*bad .*tests failed: 2 of 14/);
    expect(ls).toMatch(/Stopped \(1\)\n.*long/);
  });

  it('takes a follow-up reply after the turn as a new turn', async () => {
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'fu',
        '--script',
        t.script([{ say: 'first' }], { onReply: [{ write: { path: 'reply.txt', content: '{{reply}}' } }] }),
      ],
      { cwd: repo },
    );
    await t.waitForState('fu', 'ready_for_review');
    await t.ok(['reply', 'fu', 'also cover renames'], { cwd: repo });
    await t.waitForEvent('fu', (e) => e.type === 'turn.completed' && e.seq > 10);
    const done = await t.waitForState('fu', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'reply.txt'), 'utf8')).toBe('also cover renames');
    expect((await logEvents(t, 'fu')).filter((e) => e.type === 'turn.started')).toHaveLength(2);
  });

  it('rm keeps a branch that has commits, and says so', async () => {
    const steps = [
      { write: { path: 'feature.txt', content: 'committed work\n' } },
      { run: ['sh', '-c', 'git add feature.txt && git commit --quiet -m "add feature"'] },
    ];
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'committed', '--script', t.script(steps)],
      { cwd: repo },
    );
    await t.waitForState('committed', 'ready_for_review');
    const tip = t.git(repo, 'rev-parse', 'baton/committed');
    expect(tip).not.toBe(t.git(repo, 'rev-parse', 'main'));

    const said = await t.ok(['rm', 'committed'], { cwd: repo });
    expect(said).toContain('Branch baton/committed is kept.');
    expect(existsSync(session.worktree)).toBe(false);
    expect(t.git(repo, 'rev-parse', 'baton/committed')).toBe(tip);
    expect(t.git(repo, 'show', 'baton/committed:feature.txt')).toBe('committed work');
  });

  it('answers a reply to a stopped session that cannot resume with a clear error, and changes nothing', async () => {
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'gone', '--script', t.script([{ say: 'first turn' }])],
      { cwd: repo },
    );
    await t.waitForState('gone', 'ready_for_review');
    await t.ok(['stop', 'gone']);
    const before = await logEvents(t, 'gone');
    rmSync(session.worktree, { recursive: true, force: true });

    const refused = await t.run(['reply', 'gone', 'more please']);
    expect(refused.code).not.toBe(0);
    const message = refused.stderr.trim();
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/^baton: The worktree of gone is gone \(.+\); it cannot be /);
    expect((await t.json<{ session: SessionView }>(['peek', 'gone'])).session).toMatchObject({
      state: 'stopped',
      running: false,
    });
    expect(await logEvents(t, 'gone')).toEqual(before);
  });

  it('pins a session and shows it first', async () => {
    await t.ok(['dispatch', 'x', '--name', 'p1', '--script', t.script([{ say: 'ok' }])], { cwd: repo });
    await t.waitForState('p1', 'ready_for_review');
    await t.ok(['pin', 'p1']);
    expect(await t.ok(['ls', '--here'], { cwd: repo })).toMatch(/^ {2}ID .*\nPinned \(1\)\n.*p1/);
    expect((await t.json<SessionView>(['unpin', 'p1'])).pinned).toBe(false);
  });
});

// Which host a session gets depends on what the supervisor started before (the spare is kept
// loaded after a start, decision 4), so this test has a home and supervisor of its own.
describe("a session's host", () => {
  eachTest((baton, dir) => ((t = baton), (repo = dir)));

  it("hands each agent its session's own environment, from a freshly started host and from the spare", async () => {
    const script = t.script([
      { run: ['sh', '-c', 'printf "%s %s" "$BATON_SESSION_NAME" "$BATON_BRANCH" > env.txt'] },
    ]);
    // The first dispatch starts a host for itself; the second takes the spare kept loaded since.
    for (const name of ['first', 'second']) {
      await t.ok(['dispatch', 'print the environment', '--name', name, '--script', script], { cwd: repo });
      const done = await t.waitForState(name, 'ready_for_review');
      expect(readFileSync(join(done.worktree, 'env.txt'), 'utf8')).toBe(`${name} baton/${name}`);
    }
  });
});

async function logEvents(t: TestBaton, ref: string): Promise<BatonEvent[]> {
  const out = await t.ok(['logs', ref, '--json']);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
}
