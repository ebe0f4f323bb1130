/**
 * Tasks through the real binary (decision 71, "Tasks are their own domain beside sessions"): scripted
 * sessions started from tasks in real repositories, a dependent task held until its prerequisite lands
 * through the real merge queue, `.baton/status.md` after every transition, decisions and notes as
 * files, and the board live.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskBoard, TaskDetail, TaskStarted } from '../../src/api/tasks.js';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';
import { addTask, card, stateChangedTo, workspaceEvent } from '../support/tasks.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const start = (id: number, name: string, steps: unknown[], ...flags: string[]): Promise<TaskStarted> =>
  t.json<TaskStarted>(
    [
      'task',
      'start',
      String(id),
      '--agent',
      'scripted',
      '--name',
      name,
      '--script',
      t.script(steps),
      ...flags,
    ],
    { cwd: repo },
  );

describe('baton task', () => {
  it('starts a dependent task only after its prerequisite lands, on the new base', async () => {
    const first = await addTask(t, repo, 'the watcher', '--scope', 'watcher/**', '--tracker', '#432');
    const second = await addTask(t, repo, 'IPC handlers', '--after', String(first.id), '--scope', 'ipc/**');
    expect(second.waitingFor).toEqual([first.id]);

    // Started first, the dependent waits, queued behind the gate.
    const held = await start(second.id, 'ipc', [
      { run: ['sh', '-c', 'mkdir -p ipc && cat watcher/core.txt > ipc/seen.txt'] },
    ]);
    expect(held.heldBy).toBe(`after task ${first.id} (the watcher) lands`);
    expect(held.session.state).toBe('queued');
    const oldBase = held.session.baseCommit;

    await start(first.id, 'watcher', [
      { write: { path: 'watcher/core.txt', content: 'core v2\n' } },
      { run: ['git', 'add', '--all'] },
      { run: ['git', 'commit', '-qm', 'watcher'] },
    ]);
    await t.waitForState('watcher', 'ready_for_review');
    // Its prerequisite is ready but not landed: still held, and the board says why.
    expect((await t.client().call('GET /api/sessions/:ref', { params: { ref: 'ipc' } })).session.state).toBe(
      'queued',
    );
    expect((await card(t, repo, second.id)).waitingFor).toEqual([first.id]);

    const merged = await t.run(['merge', 'watcher', '--json'], { cwd: repo });
    expect(merged.code, merged.stderr).toBe(0);
    const landed = JSON.parse(merged.stdout) as { commit: string };
    const ipc = await t.waitForState('ipc', 'ready_for_review');
    // It started on the merged base and saw the prerequisite's work.
    expect(ipc.baseCommit).toBe(landed.commit);
    expect(ipc.baseCommit).not.toBe(oldBase);
    expect(readFileSync(join(ipc.worktree, 'ipc', 'seen.txt'), 'utf8')).toBe('core v2\n');

    const done = await card(t, repo, first.id);
    expect(done).toMatchObject({ column: 'done', columnSetBy: 'merge', mergedCommit: landed.commit });
    expect(await card(t, repo, second.id)).toMatchObject({
      column: 'review',
      columnSetBy: 'session',
      waitingFor: [],
    });
  });

  it('keeps a dependent task held across a supervisor restart', async () => {
    const first = await addTask(t, repo, 'first');
    const second = await addTask(t, repo, 'second', '--after', String(first.id));
    await start(second.id, 'second', [{ say: 'ran' }]);
    await start(first.id, 'first', [{ write: { path: 'first.txt', content: 'first\n' } }]);
    await t.waitForState('first', 'ready_for_review');
    await t.ok(['daemon', 'stop'], { cwd: repo });
    await t.ok(['daemon', 'start'], { cwd: repo });
    expect(
      (await t.client().call('GET /api/sessions/:ref', { params: { ref: 'second' } })).session.state,
    ).toBe('queued');
    const merged = await t.run(['merge', 'first'], { cwd: repo });
    expect(merged.code, merged.stderr).toBe(0);
    const second2 = await t.waitForState('second', 'ready_for_review');
    expect(readFileSync(join(second2.worktree, 'first.txt'), 'utf8')).toBe('first\n');
  });

  it('keeps .baton/status.md matching the sessions after every transition, out of git by default', async () => {
    const task = await addTask(t, repo, 'fix the flaky test', '--tracker', 'ABC-12');
    const status = (): string => readFileSync(join(repo, '.baton', 'status.md'), 'utf8');
    const row = (state: string): string =>
      `| flaky | scripted | ${task.id}. fix the flaky test (ABC-12) | ${state} |`;

    // Both waits begin before the start: the host may ask before the dispatch's answer is read.
    const queued = workspaceEvent(t, stateChangedTo('flaky', 'queued'));
    const asked = workspaceEvent(t, stateChangedTo('flaky', 'needs_input'));
    await start(
      task.id,
      'flaky',
      [{ ask: 'keep the old onChange signature?' }],
      '--permission-mode',
      'default',
    );
    await queued;
    await asked;
    expect(status()).toContain(row('needs input'));
    await t.ok(['reply', 'flaky', 'yes'], { cwd: repo });
    await workspaceEvent(t, stateChangedTo('flaky', 'ready_for_review'));
    expect(status()).toContain(row('ready for review'));
    // Every transition the bus saw was followed by a status.md holding it: the file is rewritten, not appended to.
    expect(status().match(/\| flaky \|/g)).toHaveLength(1);
    // Kept out of git by the repository's own exclude file, so the checkout stays clean for merges.
    expect(t.git(repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain('/.baton/status.md');

    await t.ok(['task', 'edit', String(task.id), '--title', 'fix the flaky watcher test'], { cwd: repo });
    await workspaceEvent(t, (e) => e.type === 'task.edited');
    expect(status()).toContain(`| ${task.id}. fix the flaky watcher test (ABC-12) |`);
    await t.ok(['rm', 'flaky'], { cwd: repo });
    await workspaceEvent(t, (e) => e.type === 'session.removed');
    expect(status()).not.toContain('| flaky |');
    expect(status()).toContain('| — | — | — | — | — |');
  });

  it('shows the task beside its session in ls, peek and the session view', async () => {
    configure(t, repo, { tasks: { trackerUrl: 'https://tracker.test/browse/{id}' } });
    const task = await addTask(t, repo, 'fix the flaky test', '--tracker', 'ABC-12');
    expect(task.trackerUrl).toBe('https://tracker.test/browse/ABC-12');
    await start(task.id, 'flaky', [{ ask: 'keep the old signature?' }]);
    const asking = await t.waitForState('flaky', 'needs_input');
    expect(asking.task).toEqual({ id: task.id, title: 'fix the flaky test', tracker: 'ABC-12' });
    expect(await t.ok(['ls'], { cwd: repo })).toMatch(
      /flaky .*\(fix the flaky test, ABC-12\) asks: keep the old signature\?/,
    );
    expect(await t.ok(['peek', 'flaky'], { cwd: repo })).toMatch(/task:\s+1\. fix the flaky test \(ABC-12\)/);
  });

  it('keeps decisions and notes as Markdown files, reads a person’s edits, and refuses a broken file by name', async () => {
    const task = await addTask(t, repo, 'the watcher');
    expect(
      await t.ok(['decide', String(task.id), 'keep the old onChange signature: three callers depend on it'], {
        cwd: repo,
      }),
    ).toMatch(
      /Recorded a decision for task 1: \.baton\/decisions\/1-1-keep-the-old-onchange-signature-three-ca\.md/,
    );
    await t.ok(['note', String(task.id), 'fixtures in test/watcher conflict'], { cwd: repo });
    const decisionFile = join(
      repo,
      '.baton',
      'decisions',
      readdirSync(join(repo, '.baton', 'decisions'))[0] ?? '',
    );
    expect(readFileSync(decisionFile, 'utf8')).toMatch(
      /^---\ntask: 1\ndate: .+\n---\n\nkeep the old onChange signature: three callers depend on it\n$/,
    );

    writeFileSync(decisionFile, '---\ntask: 1\ndate: 2026-01-01T00:00:00Z\n---\nkeep it, edited by hand\n');
    const detail = await t.json<TaskDetail>(['task', 'show', '1'], { cwd: repo });
    expect(detail.decisions.map((d) => d.text)).toEqual(['keep it, edited by hand']);
    expect(detail.notes.map((n) => n.text)).toEqual(['fixtures in test/watcher conflict']);

    const broken = 'task one\nno front matter\n';
    writeFileSync(join(repo, '.baton', 'notes', 'mine.md'), broken);
    // Starting a task and adding beside a broken file are refused; reading it is not (below).
    for (const args of [
      ['task', 'start', '1', '--agent', 'scripted'],
      ['note', '1', 'another'],
    ]) {
      const run = await t.run(args, { cwd: repo });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/\.baton\/notes\/mine\.md: does not start with a front matter block/);
    }
    expect(readFileSync(join(repo, '.baton', 'notes', 'mine.md'), 'utf8')).toBe(broken);
    expect(readdirSync(join(repo, '.baton', 'notes'))).toHaveLength(2);
    expect((await t.client().call('GET /api/sessions')).sessions).toEqual([]);
  });

  it('task show with broken entry files: the card and every readable entry, and each broken file named', async () => {
    await addTask(t, repo, 'the watcher');
    await t.ok(['decide', '1', 'a readable decision'], { cwd: repo });
    await t.ok(['note', '1', 'a readable note'], { cwd: repo });
    writeFileSync(join(repo, '.baton', 'notes', 'mine.md'), 'no front matter\n');
    writeFileSync(join(repo, '.baton', 'decisions', '1-7-bad.md'), '---\ntask: [\n---\nx\n');
    // Another task's broken file is not this task's to name.
    writeFileSync(join(repo, '.baton', 'decisions', '9-1-other.md'), 'broken too\n');
    const run = await t.run(['task', 'show', '1'], { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Task 1: the watcher/);
    expect(run.stdout).toMatch(/- a readable decision/);
    expect(run.stdout).toMatch(/- a readable note/);
    expect(run.stdout).toMatch(/Not shown: 2 entry files cannot be read/);
    expect(run.stdout).toMatch(/\.baton\/decisions\/1-7-bad\.md: its front matter is not YAML/);
    expect(run.stdout).toMatch(/\.baton\/notes\/mine\.md: does not start with a front matter block/);
    expect(run.stdout).not.toMatch(/9-1-other/);
    const detail = await t.json<TaskDetail>(['task', 'show', '1'], { cwd: repo });
    expect(detail.broken.map((b) => b.file).sort()).toEqual([
      '.baton/decisions/1-7-bad.md',
      '.baton/notes/mine.md',
    ]);
    expect(detail.decisions.map((d) => d.text)).toEqual(['a readable decision']);
  });

  it('moves a card by hand, where it stays until a linked session changes state; ls --watch sees it live', async () => {
    const task = await addTask(t, repo, 'the watcher');
    const other = await addTask(t, repo, 'other');
    const watch = t.spawn(['task', 'ls', '--watch'], { cwd: repo });
    let output = '';
    const printed = (pattern: RegExp): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (pattern.test(output)) resolve();
        };
        watch.stdout?.on('data', (chunk: Buffer) => ((output += chunk.toString()), check()));
        check();
      });
    await printed(/Done \(0\)/);
    expect(
      (
        await t.json<{ task: { position: number } }>(['task', 'move', String(other.id), 'ready'], {
          cwd: repo,
        })
      ).task.position,
    ).toBe(0);
    await t.ok(['task', 'move', String(task.id), 'ready', '--position', '1'], { cwd: repo });
    await printed(/task 1: backlog → ready \(by hand\)/);
    const board = await t.json<TaskBoard>(['task', 'ls'], { cwd: repo });
    expect(board.columns.find((c) => c.column === 'ready')?.tasks.map((c) => c.id)).toEqual([
      task.id,
      other.id,
    ]);

    await start(task.id, 'w', [{ ask: 'which way?' }]);
    await t.waitForState('w', 'needs_input');
    await t.ok(['task', 'move', String(task.id), 'done'], { cwd: repo });
    expect(await card(t, repo, task.id)).toMatchObject({ column: 'done', columnSetBy: 'hand' });
    await t.ok(['reply', 'w', 'this way'], { cwd: repo });
    await t.waitForState('w', 'ready_for_review');
    await workspaceEvent(
      t,
      (e) => e.type === 'task.moved' && e.data.by === 'session' && e.data.to === 'review',
    );
    expect(await card(t, repo, task.id)).toMatchObject({ column: 'review', columnSetBy: 'session' });
    await printed(/task 1: done → (running|review) \(by its session\)/);
    const session: SessionView = (await t.client().call('GET /api/sessions/:ref', { params: { ref: 'w' } }))
      .session;
    expect(session.task?.id).toBe(task.id);
  });
});
