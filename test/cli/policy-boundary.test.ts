/**
 * The safety boundary through the real binary, with the scripted agent (decisions 157-159): a
 * session in bypass mode writes deleting scripts (shell, Python, a Makefile target, a package
 * script) and runs them — each is read and blocked, the target survives; a session that tries to
 * delete its repository wherever it lives is refused; `baton policy test` judges with a session's
 * context (worktree, branch, base).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { VerdictView } from '../../src/api/policy.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

async function dispatch(
  name: string,
  steps: unknown[],
  mode: 'default' | 'bypassPermissions',
): Promise<SessionView> {
  if (mode === 'bypassPermissions') {
    await t.ok(['daemon', 'start']);
    await t.client().call('POST /api/dangerous-mode/accept', { body: { cwd: repo } });
  }
  return t.json<SessionView>(
    ['dispatch', 'x', '--name', name, '--permission-mode', mode, '--script', t.script(steps)],
    { cwd: repo },
  );
}

async function blocked(name: string): Promise<Extract<BatonEvent, { type: 'tool.blocked' }>[]> {
  const lines = (await t.ok(['logs', name, '--json'])).split('\n').filter((l) => l.trim() !== '');
  return lines
    .map((l) => JSON.parse(l) as BatonEvent)
    .filter((e): e is Extract<BatonEvent, { type: 'tool.blocked' }> => e.type === 'tool.blocked');
}

describe('the gate reads the scripts an agent writes', () => {
  it('blocks running a deleting shell script, Python script, Makefile target and package script in bypass mode; the target survives', async () => {
    const target = join(t.env.HOME ?? '', 'precious');
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'keep.txt'), 'keep me\n');
    const s = await dispatch(
      'scripts',
      [
        { write: { path: 'nuke.sh', content: `#!/bin/sh\nrm -rf ${target}\n` } },
        { run: 'sh nuke.sh' },
        { run: 'chmod +x nuke.sh && ./nuke.sh' },
        { write: { path: 'nuke.py', content: `import shutil\nshutil.rmtree(${JSON.stringify(target)})\n` } },
        { run: 'python3 nuke.py' },
        { write: { path: 'Makefile', content: `nuke:\n\t@rm -rf ${target}\n` } },
        { run: 'make nuke' },
        {
          write: { path: 'package.json', content: JSON.stringify({ scripts: { nuke: `rm -rf ${target}` } }) },
        },
        { run: 'npm run nuke' },
        { run: `cat > n2.sh <<'EOF'\nrm -rf ${target}\nEOF\nsh n2.sh` },
        { say: 'done' },
      ],
      'bypassPermissions',
    );
    await t.waitForState(s.name, 'ready_for_review');
    const events = await blocked(s.name);
    expect(events.map((e) => e.input)).toEqual([
      'sh nuke.sh',
      'chmod +x nuke.sh && ./nuke.sh',
      'python3 nuke.py',
      'make nuke',
      'npm run nuke',
      `cat > n2.sh <<'EOF'\nrm -rf ${target}\nEOF\nsh n2.sh`,
    ]);
    for (const event of events) expect(event.rule).toBe('recursive-delete');
    expect(existsSync(join(target, 'keep.txt'))).toBe(true);
  });
});

describe('the gate knows the repository', () => {
  it('refuses a session deleting its repository (main checkout, .git), wherever the repository lives', async () => {
    const s = await dispatch(
      'repo',
      [
        { run: `rm -rf ${repo}` },
        { run: `cd ${dirname(repo)} && rm -rf ${basename(repo)}` },
        { run: `rm -rf ${join(repo, '.git')}` },
        { run: `find ${repo} -delete` },
        { say: 'done' },
      ],
      'bypassPermissions',
    );
    await t.waitForState(s.name, 'ready_for_review');
    const events = await blocked(s.name);
    expect(events).toHaveLength(4);
    expect(events[0]?.why).toMatch(/main checkout/);
    expect(existsSync(join(repo, '.git'))).toBe(true);
    expect(t.git(repo, 'status', '--short')).toBe('');
  });

  it("baton policy test judges with a session's context: the user's checkout on the base branch, or a given worktree and branch", async () => {
    const judge = (command: string, ...flags: string[]): Promise<VerdictView> =>
      t.json<VerdictView>(['policy', 'test', command, ...flags], { cwd: repo });
    // In the user's checkout, on the base branch: reset --hard is what a session there would be blocked for.
    expect(await judge('git reset --hard')).toMatchObject({ action: 'block', rule: 'git-base-branch' });
    expect((await judge('git reset --hard', '--branch', 'baton/x')).action).toBe('allow');
    const worktree = join(dirname(repo), 'wt-x');
    t.git(repo, 'worktree', 'add', '-q', '-b', 'baton/x', worktree);
    expect((await judge('git reset --hard', '--worktree', worktree)).action).toBe('allow');
    expect(await judge(`rm -rf ${repo}`, '--worktree', worktree)).toMatchObject({
      action: 'block',
      rule: 'recursive-delete',
    });
    expect((await judge('git branch -D baton/other', '--worktree', worktree)).action).toBe('block');
    expect((await judge('git stash clear', '--worktree', worktree)).action).toBe('block');
    expect((await judge('git push --force-with-lease origin main', '--worktree', worktree)).action).toBe(
      'ask',
    );
    const missing = await t.run(['policy', 'test', 'ls', '--worktree', join(repo, 'nope')], { cwd: repo });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/is not a directory/);
  });
});
