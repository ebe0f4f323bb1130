/**
 * The gate as a session's host builds it (sessionGate): the repository around the worktree, the
 * other worktrees (read at each verdict), Baton's state folder and checkouts in a temporary
 * folder come from the real disk and real git; scripts the agent runs are read, unless the
 * repository holds them unchanged since the base commit.
 */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SCRIPT_BYTES } from './context.js';
import { anchorWorktree } from '../worktrees/index.js';
import { sessionGate } from './index.js';

let root: string;
let repo: string;
let worktree: string;
let state: string;
let base: string;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-gate-')));
  repo = join(root, 'x');
  state = join(root, 'state');
  mkdirSync(repo);
  mkdirSync(state);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 't@t');
  git(repo, 'config', 'user.name', 't');
  writeFileSync(join(repo, 'release.sh'), 'rm -rf "$DIST"\n');
  writeFileSync(join(repo, 'README.md'), 'hi\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  base = git(repo, 'rev-parse', 'HEAD');
  worktree = join(state, 'worktrees', 'x', 's');
  git(repo, 'worktree', 'add', '-q', '-b', 'baton/s', worktree);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function gate() {
  const judge = sessionGate(
    { section: {}, worktree, baseBranch: 'main', branch: 'baton/s', baseCommit: base },
    join(root, 'home'),
    state,
  );
  return (command: string) => judge({ tool: 'Bash', kind: 'run', command });
}

describe('a session gate built from the disk', () => {
  it("refuses deleting the repository's main checkout and its git folder, though they lie in the temporary folder", () => {
    const judge = gate();
    expect(judge(`rm -rf ${repo}`)).toMatchObject({ action: 'block', rule: 'recursive-delete' });
    expect(judge(`rm -rf ${repo}`).why).toMatch(/main checkout/);
    expect(judge(`rm -rf ${repo}/.git`).action).toBe('block');
    expect(judge(`cd ${root} && rm -rf x`).action).toBe('block');
    expect(judge(`rm -rf ${state}`).why).toMatch(/Baton's state folder/);
  });

  it('sees a worktree added after the gate was built, and lets the session delete inside its own', () => {
    const judge = gate();
    const later = join(root, 'later');
    git(repo, 'worktree', 'add', '-q', '-b', 'baton/later', later);
    expect(judge(`rm -rf ${later}`)).toMatchObject({ action: 'block' });
    expect(judge(`rm -rf ${later}`).why).toMatch(/another worktree/);
    expect(judge('rm -rf build && git reset --hard && git clean -fdx').action).toBe('allow');
  });

  it('keeps a temporary folder writable, but not across another checkout kept there', () => {
    const judge = gate();
    const foreign = join(root, 'foreign', 'deep', 'repo');
    mkdirSync(foreign, { recursive: true });
    git(foreign, 'init', '-q');
    mkdirSync(join(root, 'scratch', 'a'), { recursive: true });
    expect(judge(`rm -rf ${join(root, 'scratch')}`).action).toBe('allow');
    expect(judge(`rm -rf ${join(root, 'foreign')}`).action).toBe('block');
    expect(judge(`rm -rf ${join(foreign, 'src')}`).action).toBe('block');
  });

  it('reads a script the agent wrote, and not one the repository holds unchanged since the base', () => {
    const judge = gate();
    writeFileSync(join(worktree, 'nuke.sh'), `rm -rf ${repo}\n`);
    writeFileSync(join(worktree, 'nuke.py'), `import shutil\nshutil.rmtree("${repo}")\n`);
    writeFileSync(join(worktree, 'Makefile'), `nuke:\n\trm -rf ${repo}\n`);
    for (const command of ['sh nuke.sh', 'bash ./nuke.sh', 'python3 nuke.py', 'make nuke'])
      expect(judge(command), command).toMatchObject({ action: 'block', rule: 'recursive-delete' });
    expect(judge('sh release.sh').action).toBe('allow');
    // Committed by the agent on its branch: still not the user's.
    writeFileSync(join(worktree, 'release.sh'), 'rm -rf ~\n');
    git(worktree, 'commit', '-qam', 'x');
    expect(judge('sh release.sh').action).toBe('block');
  });

  it('asks about a script it cannot read: too large, or not a file', () => {
    const judge = gate();
    writeFileSync(join(worktree, 'big.sh'), '#\n'.repeat(MAX_SCRIPT_BYTES));
    expect(judge('sh big.sh')).toMatchObject({ action: 'ask', rule: 'opaque-script', uncertain: true });
    mkdirSync(join(worktree, 'dir.sh'));
    expect(judge('sh dir.sh').action).toBe('ask');
  });

  it("knows the recorded repository when the worktree's .git file is rewritten to name another", () => {
    // The agent points its worktree at a repository of its making; the host recorded the real one.
    const decoy = join(root, 'decoy');
    mkdirSync(decoy);
    git(decoy, 'init', '-q', '-b', 'main');
    const gitFile = join(worktree, '.git');
    const original = readFileSync(gitFile, 'utf8');
    anchorWorktree(worktree, repo);
    try {
      writeFileSync(gitFile, `gitdir: ${join(decoy, '.git')}\n`);
      const judge = gate();
      // Known as the user's repository, not merely as somewhere outside the worktree.
      expect(judge(`rm -rf ${repo}`).why).toContain("the repository's main checkout");
      expect(judge(`rm -rf ${join(repo, '.git')}`).why).toContain("inside the repository's main checkout");
    } finally {
      writeFileSync(gitFile, original);
    }
  });

  it('judges a path where the symbolic links the agent made in its worktree lead (decision 399)', () => {
    // Made in an earlier call: on the disk now, where the gate reads it.
    const link = join(worktree, 'main');
    symlinkSync(repo, link);
    symlinkSync(join(repo, '.git'), join(worktree, 'g'));
    try {
      const judge = gate();
      expect(judge('rm -rf main/README.md')).toMatchObject({ action: 'block', rule: 'recursive-delete' });
      expect(judge('rm -rf main/').why).toContain("the repository's main checkout");
      expect(judge('cd main && rm -rf .').action).toBe('block');
      expect(judge('git -C main clean -fdx').action).toBe('block');
      expect(judge("echo '[core] fsmonitor = ./x' >> g/config")).toMatchObject({ action: 'ask' });
      // The link itself is the agent's to remove; a read through it is no write.
      expect(judge('rm main').action).toBe('allow');
      expect(judge('rm -rf main').action).toBe('allow');
      expect(judge('cat main/README.md').action).toBe('allow');
    } finally {
      rmSync(link);
      rmSync(join(worktree, 'g'));
    }
  });
});
