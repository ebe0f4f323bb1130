/**
 * Landing work through the real binary: sessions dispatched with the scripted agent make real
 * commits and leave real uncommitted files in real repositories; `baton merge` lands them (or
 * refuses, changing nothing). `baton pr` is in pr.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MergePlanView, MergeResult } from '../../src/api/merge.js';
import type { SessionView } from '../../src/api/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, sharedHome, type TestBaton } from '../support/baton.js';
import { configure, finishedSession } from '../support/landing.js';

let t: TestBaton;
let repo: string;
const own = (baton: TestBaton, dir: string): void => {
  t = baton;
  repo = dir;
};

const session = (name: string, files: Parameters<typeof finishedSession>[3]): Promise<SessionView> =>
  finishedSession(t, repo, name, files);

async function merge(args: string[]): Promise<{ code: number; result: MergeResult; stderr: string }> {
  const run = await t.run(['merge', ...args, '--json'], { cwd: repo });
  if (run.stdout.trim() === '')
    throw new Error(`baton merge printed nothing (exit ${run.code}): ${run.stderr}`);
  return { code: run.code, result: JSON.parse(run.stdout) as MergeResult, stderr: run.stderr };
}

const workspaceEvent = (
  match: (event: WorkspaceEvent) => boolean,
  timeoutMs?: number,
): Promise<WorkspaceEvent> => t.workspaceEvent(match, timeoutMs);

const replyReached = (name: string, text: RegExp) =>
  t.waitForEvent(name, (e) => e.type === 'message.added' && e.role === 'user' && text.test(e.text));

describe('baton merge', () => {
  eachTest(own);

  it('lands a session with its uncommitted work, fast-forwards the clean main checkout, removes the worktree and completes the session', async () => {
    const s = await session('feat', {
      committed: { 'feature.txt': 'feature\n' },
      uncommitted: { 'notes.txt': 'left uncommitted\n' },
    });
    const before = t.git(repo, 'rev-parse', 'main');
    const { code, result } = await merge(['feat']);
    expect(code).toBe(0);
    expect(result).toMatchObject({
      outcome: 'landed',
      base: 'main',
      previous: before,
      checkoutUpdated: repo,
      check: { outcome: 'none' },
    });
    expect(result.message).toMatch(/no check is configured .*so none ran/);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(result.commit);
    expect(t.git(repo, 'show', `${result.commit}:notes.txt`)).toBe('left uncommitted');
    // A fast-forward puts the commit of its uncommitted work at the tip of main: it is titled by the
    // session's prompt, and names the session in a trailer.
    expect(t.git(repo, 'log', '-1', '--format=%s', 'main')).toBe('feat: do the thing');
    expect(t.git(repo, 'log', '-1', '--format=%(trailers:key=Baton-Session,valueonly)', 'main')).toBe('feat');
    // The user's checkout moved with its branch, and is clean.
    expect(readFileSync(join(repo, 'feature.txt'), 'utf8')).toBe('feature\n');
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('left uncommitted\n');
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(s.worktree)).toBe(false);
    expect(t.git(repo, 'branch', '--list', 'baton/feat')).toBe('');
    const { sessions } = await t.client().call('GET /api/sessions');
    expect(sessions.map((x) => x.name)).not.toContain('feat');
    const events = (await t.client().call('GET /api/workspace/events')).events
      .map((e) => e.type)
      .filter((type) => type.startsWith('merge.'));
    expect(events).toEqual(['merge.queued', 'merge.started', 'merge.landed']);
    const text = await t.ok(['events']);
    expect(text).toMatch(/merge\.landed\s+feat landed on main/);
  });

  it('squashes into one commit titled by the prompt', async () => {
    await session('sq', { committed: { 'a.txt': 'a\n' }, uncommitted: { 'b.txt': 'b\n' } });
    const before = t.git(repo, 'rev-parse', 'main');
    const { result } = await merge(['sq', '--squash']);
    expect(result.outcome).toBe('landed');
    expect(t.git(repo, 'rev-list', '--count', `${before}..main`)).toBe('1');
    expect(t.git(repo, 'log', '-1', '--format=%s', 'main')).toBe('sq: do the thing');
    expect(t.git(repo, 'log', '-1', '--format=%b', 'main')).toMatch(/Baton session sq/);
    // Squashed history is not in main: the branch is kept.
    expect(t.git(repo, 'branch', '--list', 'baton/sq')).toContain('baton/sq');
  });

  it('a failing check leaves the base untouched, and the session gets the report as a reply', async () => {
    configure(t, repo, {
      merge: { check: 'if [ -e broken.txt ]; then echo "test broken: broken.txt exists"; exit 1; fi' },
    });
    const s = await session('bad', { uncommitted: { 'broken.txt': 'x\n' } });
    const before = t.git(repo, 'rev-parse', 'main');
    const { code, result, stderr } = await merge(['bad']);
    expect(code).toBe(4);
    expect(result).toMatchObject({
      outcome: 'failed',
      reason: 'check_failed',
      culprit: { name: 'bad' },
      replied: true,
      check: { outcome: 'failed', exitCode: 1 },
    });
    expect(result.check.outputTail).toBe('test broken: broken.txt exists');
    expect(stderr).toBe('');
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    expect(existsSync(join(repo, 'broken.txt'))).toBe(false);
    expect(existsSync(join(s.worktree, 'broken.txt'))).toBe(true);
    await replyReached(
      'bad',
      /check `if \[ -e broken\.txt \].*` failed \(exit 1\)[\s\S]*test broken: broken\.txt exists/,
    );
    // The agent takes the report as its next turn; once that is done, the same merge says the same to people.
    await t.waitForEvent(
      'bad',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text.startsWith('Noted:'),
    );
    await t.waitForState('bad', 'ready_for_review');
    const human = await t.run(['merge', 'bad'], { cwd: repo });
    expect(human.code).toBe(4);
    expect(human.stderr).toMatch(
      /Not landed: The check .* failed \(exit 1\); nothing was landed\.\nEnd of the check's output:\n {2}test broken: broken\.txt exists\nSent to bad as a reply/,
    );
  });

  it('a group with one breaking member is bisected to it, and nothing lands', async () => {
    configure(t, repo, {
      merge: { check: ['sh', '-c', 'test ! -e b.txt || { echo "b.txt breaks the build"; exit 2; }'] },
    });
    for (const name of ['a', 'b', 'c', 'd'])
      await session(name, { committed: { [`${name}.txt`]: `${name}\n` } });
    const before = t.git(repo, 'rev-parse', 'main');
    const { code, result } = await merge(['a', 'b', 'c', 'd']);
    expect(code).toBe(4);
    expect(result).toMatchObject({
      outcome: 'failed',
      reason: 'check_failed',
      culprit: { name: 'b' },
      replied: true,
    });
    expect(result.message).toMatch(/bisected to b/);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    await replyReached('b', /bisected: the check passes without your work and fails with it/);
    // Checked: the whole group, then prefixes of 2 and 1.
    const checks = (await t.client().call('GET /api/workspace/events')).events.flatMap((e) =>
      e.type === 'merge.checking' ? [e.data.members] : [],
    );
    expect(checks).toEqual([4, 2, 1]);
    for (const name of ['a', 'c', 'd'])
      expect((await t.client().call('GET /api/sessions/:ref', { params: { ref: name } })).session.state).toBe(
        'ready_for_review',
      );
  });

  it('plans the order with the fewest conflicts, and a clean group lands in that order', async () => {
    // Branches left behind by a moving main, as they are: keep-fresh (decision 307) would rebase them first.
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'config.json'), JSON.stringify({ keepFresh: { enabled: false } }));
    await session('one', { committed: { 'README.md': '# one\n' } });
    await session('two', { committed: { 'README.md': '# two\n' } });
    await session('three', { committed: { 'three.txt': '3\n' } });
    writeFileSync(join(repo, 'main.txt'), 'main moved on\n');
    t.git(repo, 'add', 'main.txt');
    t.git(repo, 'commit', '-qm', 'main moves');
    const plan = await t.json<MergePlanView>(['merge', '--plan'], { cwd: repo });
    expect(plan.base).toBe('main');
    expect(plan.steps.map((s) => [s.name, s.conflicts, s.conflictsWith])).toEqual([
      ['three', [], []],
      ['one', [], ['two']],
      ['two', ['README.md'], ['one']],
    ]);
    const text = await t.ok(['merge', '--plan'], { cwd: repo });
    expect(text).toMatch(
      /1\. three: merges cleanly\n {2}2\. one: merges cleanly; overlaps two\n {2}3\. two: expect conflicts in README\.md; overlaps one/,
    );

    const { result } = await merge(['three', 'one']);
    expect(result.outcome).toBe('landed');
    expect(t.git(repo, 'log', '--first-parent', '--format=%s', '-3', 'main').split('\n')).toEqual([
      'Merge session one into main: one: do the thing',
      'Merge session three into main: three: do the thing',
      'main moves',
    ]);
    // The one left now conflicts: its agent is told which files, and main is unchanged.
    const tip = t.git(repo, 'rev-parse', 'main');
    const conflicted = await merge(['two']);
    expect(conflicted.code).toBe(4);
    expect(conflicted.result).toMatchObject({
      outcome: 'conflicted',
      reason: 'conflict',
      files: ['README.md'],
      culprit: { name: 'two' },
      replied: true,
    });
    expect(t.git(repo, 'rev-parse', 'main')).toBe(tip);
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
    await replyReached('two', /conflicts in\n {2}- README\.md/);
  });

  it('--planned merges a group in the planned order: work that overlaps nothing first', async () => {
    await session('x', { committed: { 'README.md': '# x\n' } });
    await session('y', { committed: { 'README.md': '# y\n' } });
    await session('z', { committed: { 'z.txt': 'z\n' } });
    const before = t.git(repo, 'rev-parse', 'main');
    const { code, result } = await merge(['x', 'y', 'z', '--planned']);
    expect(code).toBe(4);
    expect(result.sessions.map((s) => s.name)).toEqual(['z', 'x', 'y']);
    expect(result).toMatchObject({ outcome: 'conflicted', culprit: { name: 'y' }, files: ['README.md'] });
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
  });

  it('refuses when the base is checked out with uncommitted changes, changing nothing', async () => {
    const s = await session('dirty', { committed: { 'x.txt': 'x\n' }, uncommitted: { 'y.txt': 'y\n' } });
    writeFileSync(join(repo, 'README.md'), 'my own edit\n');
    const before = t.git(repo, 'rev-parse', 'main');
    const branch = t.git(repo, 'rev-parse', 'baton/dirty');
    const run = await t.run(['merge', 'dirty'], { cwd: repo });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(
      /main is checked out in .*repo, which has uncommitted changes \(README\.md\); .*Commit or stash them there, then merge again\./,
    );
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('my own edit\n');
    expect(t.git(repo, 'rev-parse', 'baton/dirty')).toBe(branch);
    expect(readFileSync(join(s.worktree, 'y.txt'), 'utf8')).toBe('y\n');
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('?? y.txt');
  });

  it('stops a hanging check at its time limit', async () => {
    configure(t, repo, { merge: { check: 'echo checking; sleep 60', checkTimeoutSeconds: 1 } });
    await session('slow', { committed: { 's.txt': 's\n' } });
    const before = t.git(repo, 'rev-parse', 'main');
    const { code, result } = await merge(['slow']);
    expect(code).toBe(4);
    expect(result).toMatchObject({
      reason: 'check_timed_out',
      check: { outcome: 'timed_out', outputTail: 'checking' },
    });
    expect(result.check.durationMs).toBeGreaterThanOrEqual(1000);
    expect(result.check.durationMs).toBeLessThan(15_000);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
  });

  it('merges again when the base moved while it was checked, never clobbering the new commit', async () => {
    // The check, on its first run only, moves main the way another push would.
    const marker = join(t.root, 'moved');
    const script =
      'if [ ! -e "$1" ]; then touch "$1"; c=$(git -C "$2" commit-tree main^{tree} -p main -m "moved meanwhile"); git -C "$2" update-ref refs/heads/main "$c"; fi';
    configure(t, repo, { merge: { check: ['sh', '-c', script, 'sh', marker, repo] } });
    await session('racer', { committed: { 'r.txt': 'r\n' } });
    // main not checked out anywhere: the base moves by compare-and-swap alone.
    t.git(repo, 'checkout', '--quiet', '--detach');
    const { result } = await merge(['racer']);
    expect(result.outcome).toBe('landed');
    const parents = t.git(repo, 'log', '-1', '--format=%P', 'main').split(' ');
    expect(parents).toHaveLength(2);
    expect(t.git(repo, 'log', '-1', '--format=%s', parents[0]!)).toBe('moved meanwhile');
    expect(result.previous).toBe(parents[0]);
    const started = (await t.client().call('GET /api/workspace/events')).events.filter(
      (e) => e.type === 'merge.checking',
    );
    expect(started).toHaveLength(2);
  });

  it('Ctrl-C stops waiting, not the merge, which lands anyway', async () => {
    const gate = join(t.root, 'gate');
    configure(t, repo, {
      merge: { check: ['sh', '-c', 'while [ ! -e "$1" ]; do sleep 0.05; done', 'sh', gate] },
    });
    await session('bg', { committed: { 'bg.txt': 'bg\n' } });
    const child = t.spawn(['merge', 'bg'], { cwd: repo });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await workspaceEvent((e) => e.type === 'merge.checking');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/Stopped waiting; the merge \w+ goes on/);
    writeFileSync(gate, '');
    const landed = await workspaceEvent((e) => e.type === 'merge.landed');
    expect(landed.type === 'merge.landed' && t.git(repo, 'rev-parse', 'main') === landed.data.commit).toBe(
      true,
    );
  });

  it('runs merges one at a time per repository, a waiting one visible with its position', async () => {
    // The check waits for a file the test creates.
    const gate = join(t.root, 'gate');
    configure(t, repo, {
      merge: { check: ['sh', '-c', 'while [ ! -e "$1" ]; do sleep 0.05; done', 'sh', gate] },
    });
    await session('first', { committed: { 'f.txt': 'f\n' } });
    await session('second', { committed: { 'g.txt': 'g\n' } });
    const first = t.run(['merge', 'first', '--json'], { cwd: repo });
    await workspaceEvent((e) => e.type === 'merge.checking');
    const second = t.run(['merge', 'second'], { cwd: repo });
    await workspaceEvent((e) => e.type === 'merge.queued' && e.data.position === 2);
    const queue = await t.json<{
      queue: { sessions: { name: string }[]; position: number; state: string }[];
    }>(['merge']);
    expect(queue.queue.map((m) => [m.sessions[0]?.name, m.position, m.state])).toEqual([
      ['first', 1, 'checking'],
      ['second', 2, 'queued'],
    ]);
    writeFileSync(gate, '');
    expect(JSON.parse((await first).stdout)).toMatchObject({ outcome: 'landed' });
    const out = await second;
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^Queued second for main at position 2 \(1 ahead\)\.\nMerging onto [0-9a-f]{12}…\nChecking: sh -c "while .*\nLanded second on main at [0-9a-f]{12}; the check passed in \d+\.\d s\./,
    );
    // The first was a fast-forward (main had not moved); the second, behind it, a merge commit.
    expect(t.git(repo, 'log', '--first-parent', '--format=%s', '-2', 'main').split('\n')).toEqual([
      'Merge session second into main: second: do the thing',
      'first: committed work',
    ]);
  }, 60_000);
});

// Each refusal is about its own session in its own repository, under a name no other test of the
// block uses: they share one home and supervisor (decisions 422 and 433).
describe('baton merge refuses bad input, changing nothing', () => {
  sharedHome(own);

  it('an unknown session, a session named twice, names with --plan', async () => {
    const unknown = await t.run(['merge', 'nope'], { cwd: repo });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/No session matches "nope"/);
    await session('twice', { committed: { 't.txt': 't\n' } });
    const twice = await t.run(['merge', 'twice', 'twice'], { cwd: repo });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/named twice/);
    const plan = await t.run(['merge', '--plan', 'twice'], { cwd: repo });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/--plan orders every ready session/);
    expect(t.git(repo, 'rev-list', '--count', 'main')).toBe('1');
  });

  it('a session whose agent is still at work', async () => {
    await t.ok(
      [
        'dispatch',
        'ask first',
        '--name',
        'asking',
        '--script',
        t.script([{ write: { path: 'w.txt', content: 'w' } }, { ask: 'which way?' }]),
      ],
      { cwd: repo },
    );
    const s = await t.waitForState('asking', 'needs_input');
    const run = await t.run(['merge', 'asking'], { cwd: repo });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(
      /asking is needs input: its agent is still changing the work\. Merge it when it is ready for review, or stop it first/,
    );
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('?? w.txt');
    expect(t.git(repo, 'rev-list', '--count', 'main')).toBe('1');
  });

  it('a session with nothing to merge', async () => {
    await session('idle', {});
    const run = await t.run(['merge', 'idle'], { cwd: repo });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(
      /idle has nothing to merge: its branch baton\/idle has no commits beyond main and no uncommitted work/,
    );
  });

  it('a base branch that was deleted', async () => {
    t.git(repo, 'branch', 'feature');
    await t.ok(
      [
        'dispatch',
        'on feature',
        '--name',
        'feat',
        '--base',
        'feature',
        '--script',
        t.script([{ write: { path: 'f.txt', content: 'f' } }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('feat', 'ready_for_review');
    t.git(repo, 'branch', '-D', 'feature');
    const run = await t.run(['merge', 'feat'], { cwd: repo });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /The base branch feature does not exist in .*; recreate it, or set "merge": \{"base": "<branch>"\}/,
    );
    expect(t.git(repo, 'rev-list', '--count', 'main')).toBe('1');
  });
});

describe('baton merge --group', () => {
  eachTest(own);

  it('lands a coupled group from baton review together, checked as a whole, and refuses a group that does not exist', async () => {
    writeFileSync(join(repo, 'watcher.js'), 'export const watch = () => 1;\n');
    t.git(repo, 'add', '.');
    t.git(repo, 'commit', '-qm', 'watcher');
    configure(t, repo, {
      merge: { check: 'test -f handler.js && test -f watcher.test.js && echo checked >> checks.log' },
    });
    await finishedSession(t, repo, 'watcher', {
      uncommitted: { 'watcher.js': 'export const watch = () => 2;\n' },
    });
    await finishedSession(t, repo, 'handler', {
      committed: {
        'handler.js': "import { watch } from './watcher.js';\nexport const handle = () => watch();\n",
      },
    });
    await finishedSession(t, repo, 'tests', {
      uncommitted: { 'watcher.test.js': "import { watch } from './watcher.js';\nwatch();\n" },
    });
    await finishedSession(t, repo, 'docs', { uncommitted: { 'README.md': '# other\n' } });

    const groups = await t.json<{
      projects: { groups: { number: number; members: { name: string }[] }[] }[];
    }>(['review', '--json'], { cwd: repo });
    const coupled = groups.projects[0]!.groups.find((g) => g.members.length === 3)!;
    expect(coupled.members.map((m) => m.name).sort()).toEqual(['handler', 'tests', 'watcher']);

    const result = await t.json<MergeResult>(['merge', '--group', String(coupled.number), '--json'], {
      cwd: repo,
    });
    expect(result.outcome).toBe('landed');
    for (const file of ['watcher.test.js', 'handler.js'])
      expect(t.git(repo, 'show', `main:${file}`)).not.toBe('');
    expect(t.git(repo, 'show', 'main:watcher.js')).toBe('export const watch = () => 2;');
    expect(t.git(repo, 'show', 'main:README.md')).toBe('# test');

    const missing = await t.run(['merge', '--group', '99'], { cwd: repo });
    expect([missing.code, missing.stderr]).toEqual([
      2,
      'baton: No coupled group 99; `baton review` lists the groups.\n',
    ]);
  });
});
