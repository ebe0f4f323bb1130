/**
 * Bad input to tasks through the real binary (decision 71, "Tasks are their own domain beside
 * sessions"): each refused with a clear message naming the problem and the right exit code, and nothing
 * half-made.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskBoard } from '../../src/api/tasks.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { addTask } from '../support/tasks.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const tasks = async (): Promise<number[]> =>
  (await t.json<TaskBoard>(['task', 'ls'], { cwd: repo })).columns.flatMap((c) =>
    c.tasks.map((task) => task.id),
  );

describe('bad input to tasks', () => {
  it('refuses a dependency cycle, naming it, and keeps the dependencies as they were', async () => {
    const a = await addTask(t, repo, 'a');
    const b = await addTask(t, repo, 'b', '--after', String(a.id));
    const c = await addTask(t, repo, 'c', '--after', String(b.id));
    const run = await t.run(['task', 'edit', String(a.id), '--after', String(c.id)], { cwd: repo });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'That would make a cycle of dependencies: task 1 → task 3 → task 2 → task 1',
    );
    const self = await t.run(['task', 'edit', String(a.id), '--after', String(a.id)], { cwd: repo });
    expect(self.stderr).toContain('task 1 → task 1');
    expect(
      (await t.json<{ task: { after: number[] } }>(['task', 'show', String(a.id)], { cwd: repo })).task.after,
    ).toEqual([]);
  });

  it('names an unknown task, in every command', async () => {
    for (const args of [
      ['task', 'show', '9'],
      ['task', 'move', '9', 'done'],
      ['task', 'start', '9'],
      ['task', 'rm', '9'],
      ['decide', '9', 'x'],
      ['note', '9', 'x'],
    ]) {
      const run = await t.run(args, { cwd: repo });
      expect(run.code, args.join(' ')).toBe(3);
      expect(run.stderr).toContain('No task 9. Run `baton task ls`');
    }
    const after = await t.run(['task', 'add', 'x', '--after', '9'], { cwd: repo });
    expect(after.stderr).toContain('No task 9');
    expect(await tasks()).toEqual([]);
    const word = await t.run(['task', 'show', 'first'], { cwd: repo });
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('task takes a task number (as `baton task ls` shows it), got "first"');
  });

  it('refuses what is not a tracker reference, and a bad tasks key in the repository config', async () => {
    const run = await t.run(['task', 'add', 'x', '--tracker', 'see 432'], { cwd: repo });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '"see 432" is not a tracker reference. Give an issue number (#432), a key (ABC-12) or an http(s) address.',
    );
    expect(await tasks()).toEqual([]);
    mkdirSync(join(repo, '.baton'), { recursive: true });
    writeFileSync(
      join(repo, '.baton', 'config.json'),
      JSON.stringify({ tasks: { trakerUrl: 'https://x.test/{id}' } }),
    );
    const key = await t.run(['task', 'add', 'x'], { cwd: repo });
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/config\.json: .*trakerUrl/);
    writeFileSync(
      join(repo, '.baton', 'config.json'),
      JSON.stringify({ tasks: { trackerUrl: 'https://x.test/browse' } }),
    );
    expect((await t.run(['task', 'add', 'x'], { cwd: repo })).stderr).toMatch(
      /tasks\.trackerUrl.*must hold \{id\}/,
    );
  });

  it('warns about scope globs that match nothing, and refuses bad ones', async () => {
    const run = await t.run(['task', 'add', 'x', '--scope', 'README.md', '--scope', 'srcx/**'], {
      cwd: repo,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('warning: Scope "srcx/**" matches no file in the repository (yet).\n');
    const bad = await t.run(['task', 'add', 'y', '--scope', '../elsewhere/**'], { cwd: repo });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Scope "../elsewhere/**" climbs out of the repository');
    expect(await tasks()).toEqual([1]);
  });

  it('refuses a scope that overlaps a running task, offering --after, and lets --force through', async () => {
    const a = await addTask(t, repo, 'the watcher', '--scope', 'src/**');
    await t.ok(
      [
        'task',
        'start',
        String(a.id),
        '--agent',
        'scripted',
        '--name',
        'w',
        '--script',
        t.script([{ ask: 'ok?' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('w', 'needs_input');
    const run = await t.run(['task', 'add', 'more watcher', '--scope', 'src/watcher.ts'], { cwd: repo });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      'The scope overlaps running task 1 (the watcher) on src/watcher.ts ∩ src/**',
    );
    expect(run.stderr).toContain("To run it after the other: baton task add 'more watcher' … --after 1");
    expect(await tasks()).toEqual([1]);
    const after = await t.run(['task', 'add', 'more watcher', '--scope', 'src/watcher.ts', '--after', '1'], {
      cwd: repo,
    });
    expect(after.code, after.stderr).toBe(0);
    const forced = await t.run(['task', 'add', 'forced', '--scope', 'src/watcher.ts', '--force'], {
      cwd: repo,
    });
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('overlaps running task 1 (the watcher)');
    // Starting a task whose scope overlaps is refused the same way.
    const start = await t.run(['task', 'start', '3', '--agent', 'scripted'], { cwd: repo });
    expect(start.code).toBe(4);
    expect(start.stderr).toContain('baton task edit 3 --after 1 && baton task start 3');
  });

  it('refuses to start a task twice, and to remove one another waits for', async () => {
    const a = await addTask(t, repo, 'a');
    await addTask(t, repo, 'b', '--after', String(a.id));
    await t.ok(
      [
        'task',
        'start',
        String(a.id),
        '--agent',
        'scripted',
        '--name',
        'first',
        '--script',
        t.script([{ ask: 'ok?' }]),
      ],
      { cwd: repo },
    );
    const again = await t.run(['task', 'start', String(a.id), '--agent', 'scripted'], { cwd: repo });
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(
      /Task 1 is already being worked on by first \((queued|starting|working|needs input)\)/,
    );
    expect((await t.client().call('GET /api/sessions')).sessions.map((s) => s.name)).toEqual(['first']);
    const rm = await t.run(['task', 'rm', String(a.id)], { cwd: repo });
    expect(rm.code).toBe(4);
    expect(rm.stderr).toContain('Task 1 cannot go: task 2 waits for it');
    expect(await tasks()).toHaveLength(2);
  });

  it('refuses an API body with an unknown key, naming it, and an empty decision', async () => {
    await t.ok(['daemon', 'start'], { cwd: repo });
    const client = t.client(repo);
    // Cast: the typed client would not let a wrong body through; a hand-made request does.
    const body = { title: 'x', colour: 'red' } as unknown as { title: string };
    await expect(client.call('POST /api/tasks', { body })).rejects.toThrow(/colour/);
    await expect(
      client.call('POST /api/tasks/:id/move', { params: { id: '1' }, body: { column: 'doing' as 'done' } }),
    ).rejects.toThrow(/column/);
    expect(await tasks()).toEqual([]);
    await addTask(t, repo, 'a');
    const empty = await t.run(['decide', '1', ' '], { cwd: repo });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the text is empty');
  });

  it('with tasks.autoStart off, refuses to start a task before its prerequisites land; with commitFiles, leaves git alone', async () => {
    mkdirSync(join(repo, '.baton'), { recursive: true });
    writeFileSync(
      join(repo, '.baton', 'config.json'),
      JSON.stringify({ tasks: { autoStart: false, commitFiles: true } }),
    );
    const a = await addTask(t, repo, 'a');
    await addTask(t, repo, 'b', '--after', String(a.id));
    const run = await t.run(['task', 'start', '2', '--agent', 'scripted'], { cwd: repo });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'Task 2 waits for task 1 to land, and this repository has tasks.autoStart off',
    );
    expect((await t.client().call('GET /api/sessions')).sessions).toEqual([]);
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).not.toContain('.baton');
  });

  it('refuses a column that does not exist and an empty title', async () => {
    await addTask(t, repo, 'a');
    const move = await t.run(['task', 'move', '1', 'doing'], { cwd: repo });
    expect(move.code).toBe(2);
    expect(move.stderr).toContain(
      '"doing" is not a column; use one of backlog, ready, running, needs-input, review, done.',
    );
    const empty = await t.run(['task', 'add', '  '], { cwd: repo });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the title is empty');
  });
});
