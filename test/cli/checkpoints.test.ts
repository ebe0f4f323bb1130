/**
 * A session's own uncommitted work through the real binary, with the scripted agent: a command
 * that discards it (`git reset --hard`, `git clean -fd`) runs — it is not refused — but only after
 * the work is kept as a checkpoint, in bypass mode as in default; the session's log says so, the
 * checkpoints are listed, and restoring one brings the work back (decision 160).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { CheckpointList, CheckpointRestoreView } from '../../src/api/environments.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

async function dispatch(name: string, steps: unknown[], mode: string): Promise<SessionView> {
  if (mode === 'bypassPermissions') {
    await t.ok(['daemon', 'start']);
    await t.client().call('POST /api/dangerous-mode/accept', { body: { cwd: repo } });
  }
  return t.json<SessionView>(
    ['dispatch', 'x', '--name', name, '--permission-mode', mode, '--script', t.script(steps)],
    { cwd: repo },
  );
}

async function events(name: string): Promise<BatonEvent[]> {
  const lines = (await t.ok(['logs', name, '--json'])).split('\n').filter((l) => l.trim() !== '');
  return lines.map((l) => JSON.parse(l) as BatonEvent);
}

const WORK = [
  { run: 'echo "uncommitted line" >> README.md' },
  { write: { path: 'notes/draft.md', content: 'a draft nobody committed\n' } },
  { run: 'git reset --hard' },
  { run: 'git clean -fd' },
  { say: 'done' },
];

describe('checkpoints', () => {
  it('bypass mode: git reset --hard and git clean -fd over uncommitted work run, after checkpoints that restore the work', async () => {
    const s = await dispatch('ck', WORK, 'bypassPermissions');
    await t.waitForState(s.name, 'ready_for_review');
    // The commands ran: the work is gone from the worktree…
    expect(readFileSync(join(s.worktree, 'README.md'), 'utf8')).toBe('# test\n');
    expect(existsSync(join(s.worktree, 'notes/draft.md'))).toBe(false);
    // …nothing was refused or asked, and the log says a checkpoint was taken before each.
    const log = await events(s.name);
    expect(log.some((e) => e.type === 'tool.blocked' || e.type === 'approval.requested')).toBe(false);
    const taken = log.filter((e) => e.type === 'work.checkpointed');
    expect(taken.map((e) => [e.checkpoint, e.command, e.fresh])).toEqual([
      ['1', 'git reset --hard', true],
      ['2', 'git clean -fd', true],
    ]);
    expect(await t.ok(['logs', s.name])).toMatch(
      /work\.checkpointed\s+1 refs\/baton\/checkpoints\/.+ before git reset --hard/,
    );

    const list = await t.json<CheckpointList>(['checkpoints', s.name]);
    expect(list.checkpoints.map((c) => c.name)).toEqual(['2', '1']);
    expect(list.checkpoints[1]?.ref).toBe(`refs/baton/checkpoints/${s.id}/1`);
    expect(await t.ok(['checkpoints', s.name])).toMatch(/^\s+2 .+baton checkpoint before: git clean -fd$/m);

    const restored = await t.json<CheckpointRestoreView>(['restore', s.name, '1']);
    expect(restored.checkpoint.name).toBe('1');
    expect(readFileSync(join(s.worktree, 'README.md'), 'utf8')).toBe('# test\nuncommitted line\n');
    expect(readFileSync(join(s.worktree, 'notes/draft.md'), 'utf8')).toBe('a draft nobody committed\n');
    // Uncommitted, as it was: the branch did not move and the index is the commit's.
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('M README.md\n?? notes/'); // trimmed: ' M'
    // The work just before the restore is itself a checkpoint: a restore loses nothing either.
    expect(restored.before.name).toBe('3');
    expect((await t.run(['restore', s.name, '9'])).stderr).toMatch(/no checkpoint "9".*baton checkpoints/);
  });

  it('default mode: the checkpoint is taken when the command is asked about, before it runs; a new branch takes none', async () => {
    const s = await dispatch(
      'ckd',
      [
        { run: 'echo work >> README.md' },
        { run: 'git switch -c ckd-other' },
        { approve: { tool: 'Bash', input: 'git checkout -- .' } },
        { say: 'done' },
      ],
      'default',
    );
    const request = await t.waitForEvent(s.name, (e) => e.type === 'approval.requested');
    expect(request).toMatchObject({ input: 'git checkout -- .' });
    // Asked, not yet answered: the work is already kept.
    const before = (await events(s.name)).filter((e) => e.type === 'work.checkpointed');
    expect(before.map((e) => e.command)).toEqual(['git checkout -- .']);
    expect(readFileSync(join(s.worktree, 'README.md'), 'utf8')).toBe('# test\nwork\n');
    await t.ok(['approve', s.name]);
    await t.waitForState(s.name, 'ready_for_review');
    expect(readFileSync(join(s.worktree, 'README.md'), 'utf8')).toBe('# test\n');
    const list = await t.json<CheckpointList>(['checkpoints', s.name]);
    expect(list.checkpoints).toHaveLength(1);
    expect(t.git(repo, 'show', `${list.checkpoints[0]?.commit ?? ''}:README.md`)).toBe('# test\nwork');
  });
});
