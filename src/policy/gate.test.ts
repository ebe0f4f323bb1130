import { describe, expect, it } from 'vitest';
import { compilePolicy, evaluate, type GateContext } from './index.js';

/** A session as the tests run one: home, worktree and all under the temporary folder. */
const underTmp: GateContext = {
  cwd: '/tmp/t1/home/worktrees/repo/s',
  worktree: '/tmp/t1/home/worktrees/repo/s',
  home: '/tmp/t1/user',
  writable: [],
  baseBranch: 'main',
  branch: 'baton/s',
};
const run = (command: string, context = underTmp) =>
  evaluate({ tool: 'Bash', kind: 'run', command }, context, compilePolicy());

describe('the gate, where the home folder and the worktree are inside a temporary folder', () => {
  it('still blocks deleting the home folder or the folders holding the worktree', () => {
    expect(run('FOO=1 rm -rf ~')).toMatchObject({ action: 'block', rule: 'recursive-delete' });
    expect(run('rm -rf ~/projects')).toMatchObject({ action: 'block' });
    expect(run('rm -rf /tmp/t1/home')).toMatchObject({ action: 'block' });
    expect(run('rm -rf /tmp/*')).toMatchObject({ action: 'block' });
    expect(run('echo x > ~/.bashrc')).toMatchObject({ action: 'ask', rule: 'write-outside' });
  });

  it('allows the temporary folder otherwise, and the worktree', () => {
    expect(run('rm -rf /tmp/scratch-1')).toMatchObject({ action: 'allow' });
    expect(run('rm -rf build/')).toMatchObject({ action: 'allow' });
    expect(run('echo x > /tmp/out.log')).toMatchObject({ action: 'allow' });
  });

  it('lets a folder the repository declares writable inside the home folder be written', () => {
    const policy = compilePolicy({ writable: ['/tmp/t1/user/.cache/tool'] });
    const context = { ...underTmp, writable: policy.writable };
    expect(
      evaluate({ tool: 'Bash', kind: 'run', command: 'rm -rf ~/.cache/tool/x' }, context, policy).action,
    ).toBe('allow');
    expect(evaluate({ tool: 'Bash', kind: 'run', command: 'rm -rf ~/.cache' }, context, policy).action).toBe(
      'block',
    );
  });

  it('turns an edit of a device into a block and an edit outside into an approval; reads are never judged', () => {
    expect(
      evaluate({ tool: 'Write', kind: 'edit', paths: ['/dev/sda'] }, underTmp, compilePolicy()).action,
    ).toBe('block');
    expect(
      evaluate({ tool: 'Write', kind: 'edit', paths: ['../other/x.ts'] }, underTmp, compilePolicy()).action,
    ).toBe('ask');
    expect(evaluate({ tool: 'Read', kind: 'read' }, underTmp, compilePolicy()).action).toBe('allow');
  });

  it('asks, never blocks, when a blocking rule is unsure, and says it is unsure', () => {
    expect(run('rm -rf "$TARGET"')).toMatchObject({
      action: 'ask',
      rule: 'recursive-delete',
      uncertain: true,
    });
  });

  it('judges git reset --hard by the branch: on the base it blocks, on the session branch it is allowed', () => {
    expect(run('git reset --hard origin/main').action).toBe('allow');
    expect(run('git reset --hard', { ...underTmp, branch: 'main' })).toMatchObject({
      action: 'block',
      rule: 'git-base-branch',
    });
  });
});
