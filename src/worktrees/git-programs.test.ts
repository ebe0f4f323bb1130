/**
 * Baton's own git runs as the user, outside the sandbox, in repositories an agent can write: a
 * program the repository's settings name (an fsmonitor, a hook, a filter or textconv a
 * `.gitattributes` selects, a merge driver, a signing program, a transport) must not run
 * (decisions 196 and 200).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { takeCheckpoint } from './checkpoint.js';
import { worktreeDiff } from './diff.js';
import { git, gitOut } from './git.js';
import { anchorWorktree, overridesFor, parseConfigList } from './git-guard.js';
import { snapshotCommit, snapshotWork } from './snapshot.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const IDENTITY = ['-c', 'user.name=b', '-c', 'user.email=b@b'];

describe("Baton's git in a repository an agent wrote to", () => {
  it('runs neither an fsmonitor nor a hook the repository names', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-programs-'));
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    sh('init', '-q', '-b', 'main');
    const ran = join(dir, 'ran');
    const program = join(dir, 'evil.sh');
    writeFileSync(program, `#!/bin/sh\necho "$0" >> '${ran}'\n`, { mode: 0o755 });
    sh('config', 'core.fsmonitor', program);
    mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(repo, '.git', 'hooks', 'post-commit'), `#!/bin/sh\necho hook >> '${ran}'\n`, {
      mode: 0o755,
    });
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    await git(repo, ['add', '-A']);
    await git(repo, ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'one']);
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    await snapshotWork(repo);
    expect(existsSync(ran)).toBe(false);
    // The same repository run by plain git does run them: the test sees a real danger.
    writeFileSync(join(repo, 'c.txt'), 'c\n');
    sh('add', '-A');
    expect(existsSync(ran)).toBe(true);
  });

  it('runs no filter, textconv, diff or merge driver, signer or transport the repository config names, at snapshot, diff, checkpoint, review and merge', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-programs-'));
    const repo = join(dir, 'repo');
    const worktree = join(dir, 'session');
    mkdirSync(repo);
    const sh = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
    sh(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'm.txt'), 'one\ntwo\nthree\n');
    sh(repo, 'add', '-A');
    sh(repo, ...IDENTITY, 'commit', '-qm', 'base');
    const base = sh(repo, 'rev-parse', 'HEAD');
    sh(repo, 'worktree', 'add', '-q', '-b', 'baton/s', worktree, base);
    // The base moves on: the session's landing will need a real merge of m.txt.
    writeFileSync(join(repo, 'm.txt'), 'one\ntwo (user)\nthree\n');
    sh(repo, ...IDENTITY, 'commit', '-qam', 'user');

    // The agent, from its worktree: every program-running setting it can write, each program
    // leaving its name in a canary file outside the sandbox's reach.
    const canary = join(dir, 'canary');
    const program = (name: string) => {
      const path = join(dir, `evil-${name}.sh`);
      writeFileSync(path, `#!/bin/sh\necho ${name} >> '${canary}'\ncat\n`, { mode: 0o755 });
      return path;
    };
    const common = join(repo, '.git');
    const set = (key: string, value: string) => sh(worktree, 'config', key, value);
    set('filter.x.clean', program('clean'));
    set('filter.x.smudge', program('smudge'));
    set('filter.y.process', program('process'));
    set('filter.y.required', 'true');
    set('diff.x.textconv', program('textconv'));
    set('diff.x.command', program('diffcommand'));
    set('diff.external', program('external'));
    set('merge.x.driver', `${program('mergedriver')} %O %A %B`);
    set('commit.gpgSign', 'true');
    set('gpg.program', program('gpg'));
    set('credential.helper', `!${program('credential')}`);
    set('remote.up.url', join(dir, 'remote.git'));
    set('remote.up.uploadpack', program('uploadpack'));
    set('remote.ext.url', `ext::sh -c ${program('ext')}`);
    // A file the agent wrote, included from the repository's config.
    const included = join(dir, 'included');
    writeFileSync(
      included,
      `[core]\n\tpager = ${program('pager')}\n[diff "z"]\n\ttextconv = ${program('included')}\n`,
    );
    set('include.path', included);
    sh(dir, 'init', '-q', '--bare', 'remote.git');
    writeFileSync(join(worktree, '.gitattributes'), '*.txt filter=x diff=x merge=x\n*.md filter=y diff=z\n');
    writeFileSync(join(worktree, 'm.txt'), 'one\ntwo\nthree (session)\n');
    writeFileSync(join(worktree, 'n.md'), 'n\n');
    expect(readFileSync(join(common, 'config'), 'utf8')).toContain('evil-clean.sh');

    // Snapshot, diff, checkpoint (synchronous, inside the gate), review's combination.
    const work = await snapshotWork(worktree);
    const diff = await worktreeDiff(worktree, base);
    expect(diff.text).toContain('three (session)');
    takeCheckpoint(worktree, 'session-1', 'git reset --hard');
    const tip = await snapshotCommit(worktree, work, 'work');
    // The radar's throwaway commit: unsigned, so it looks at no setting and runs no signer.
    await snapshotCommit(worktree, work, 'radar', { unsigned: true });
    await git(repo, ['merge-tree', '--write-tree', '--name-only', 'main', tip], { okExitCodes: [1] });
    await git(repo, ['log', '-p', '-1', tip]);
    await git(repo, ['show', tip]);
    await git(repo, ['blame', tip, '--', 'm.txt']);
    // A landing: the session's work committed, then merged in a scratch worktree of the base.
    const scratch = join(dir, 'scratch');
    await git(repo, ['worktree', 'add', '--quiet', '--detach', scratch, tip]);
    await git(scratch, ['checkout', '--quiet', '--force', '--detach', 'main']);
    await git(scratch, [...IDENTITY, 'merge', '--no-verify', '--no-edit', '-m', 'land', tip], {
      okExitCodes: [1],
    });
    await git(scratch, ['reset', '--hard', '--quiet', 'HEAD']);
    await git(scratch, [...IDENTITY, 'commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'signed?']);
    // Transports: a remote whose upload-pack is the agent's, and an `ext::` remote.
    await git(repo, ['fetch', '--quiet', 'up'], { okExitCodes: [128] });
    await git(repo, ['push', '--quiet', 'ext', 'main:refs/heads/x'], { okExitCodes: [128] });
    await git(repo, ['push', '--quiet', 'up', 'main:refs/heads/x'], { okExitCodes: [128] });
    expect(existsSync(canary) ? readFileSync(canary, 'utf8') : '').toBe('');

    // Plain git in the same repository runs them: the test sees a real danger.
    // (The planted signer signs nothing, so that commit fails, after running it.)
    spawnSync('git', ['diff', base, '--', 'm.txt'], { cwd: worktree });
    spawnSync('git', [...IDENTITY, 'commit', '--allow-empty', '-qm', 'x'], { cwd: scratch });
    const planted = readFileSync(canary, 'utf8');
    for (const name of ['clean', 'diffcommand', 'gpg']) expect(planted).toContain(name);
  });

  it("keeps the user's own program settings and restores them over the repository's", () => {
    const listed = [
      'global\0file:/home/u/.gitconfig\0filter.lfs.clean\ngit-lfs clean -- %f',
      'global\0file:/home/u/.gitconfig\0credential.helper\ncache',
      'local\0file:.git/config\0filter.lfs.clean\nevil',
      'local\0file:.git/config\0credential.helper\nevil',
      'local\0file:.git/config\0filter.x.smudge\nevil',
      'local\0file:.git/config\0diff.x.textconv\nevil',
      'local\0file:.git/config\0core.editor\nevil',
      'local\0file:.git/config\0user.name\nsomeone',
      '',
    ].join('\0');
    expect(overridesFor(parseConfigList(listed))).toEqual([
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['credential.helper', ''],
      ['credential.helper', 'cache'],
      ['filter.x.smudge', ''],
      ['diff.x.textconv', 'cat'],
      ['core.editor', 'true'],
      ['protocol.ext.allow', 'never'],
    ]);
  });
});

describe("a repository whose settings Baton's git cannot list", () => {
  it('is refused, not run unguarded: a config grown past the listing buffer does not get its filter run (decision 270)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-programs-'));
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    sh('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    sh('add', '-A');
    sh(...IDENTITY, 'commit', '-qm', 'one');
    const canary = join(dir, 'canary');
    const program = join(dir, 'evil.sh');
    writeFileSync(program, `#!/bin/sh\necho clean >> '${canary}'\ncat\n`, { mode: 0o755 });
    sh('config', 'filter.x.clean', program);
    writeFileSync(join(repo, '.gitattributes'), '* filter=x\n');
    // What an agent can append to the repository's config: 17 MB of harmless settings, so that
    // `git config --list` overflows the guard's buffer while git itself still reads it.
    const filler = `\tk = ${'v'.repeat(60)}\n`.repeat((17 * 1024 * 1024) / 66);
    writeFileSync(
      join(repo, '.git', 'config'),
      `${readFileSync(join(repo, '.git', 'config'), 'utf8')}[junk]\n${filler}`,
    );
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    await expect(git(repo, ['add', '-A'])).rejects.toThrow(/settings could not be read/);
    await expect(snapshotWork(repo)).rejects.toThrow(/settings could not be read/);
    expect(() => takeCheckpoint(repo, 's', 'git reset --hard')).toThrow(/settings could not be read/);
    expect(existsSync(canary)).toBe(false);
    // Plain git does run it: the danger is real.
    sh('add', '-A');
    expect(existsSync(canary)).toBe(true);
  });

  it('is refused, not waited on for ever, when its settings include a FIFO the agent made (decision 270)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-programs-'));
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    sh('init', '-q', '-b', 'main');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    sh('config', 'include.path', join(dir, 'fifo'));
    // The command's own limit bounds the listing too (the default is 30 s).
    await expect(git(repo, ['status', '--porcelain'], { timeoutMs: 500 })).rejects.toThrow(
      /settings could not be read/,
    );
  });
});

describe('a checkpoint in the guarded repository', () => {
  it('still keeps the work', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-programs-'));
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const sh = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    sh('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    sh('add', '-A');
    sh(...IDENTITY, 'commit', '-qm', 'one');
    sh('config', 'filter.x.clean', 'tr a-z A-Z');
    writeFileSync(join(repo, '.gitattributes'), '*.txt filter=x\n');
    writeFileSync(join(repo, 'a.txt'), 'kept\n');
    const { checkpoint } = takeCheckpoint(repo, 's', 'git reset --hard');
    // Stored as written: the repository's filter did not run.
    expect(await gitOut(repo, ['show', `${checkpoint.commit}:a.txt`])).toBe('kept');
  });
});

describe("a worktree's .git file the agent rewrote", () => {
  it('is not followed: Baton takes the git folders from the recorded repository', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-anchor-'));
    const repo = join(dir, 'repo');
    const worktree = join(dir, 'session');
    mkdirSync(repo);
    const sh = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
    sh(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    sh(repo, 'add', '-A');
    sh(repo, ...IDENTITY, 'commit', '-qm', 'base');
    sh(repo, 'worktree', 'add', '-q', '-b', 'baton/s', worktree);
    const tip = sh(worktree, 'rev-parse', 'HEAD');
    anchorWorktree(worktree, repo);
    // The agent makes a git folder of its own, with a program in its config, and points its
    // worktree's .git file at it.
    const evil = join(dir, 'evil.git');
    sh(dir, 'init', '-q', '--bare', evil);
    const canary = join(dir, 'canary');
    writeFileSync(join(dir, 'fsmon.sh'), `#!/bin/sh\necho ran >> '${canary}'\n`, { mode: 0o755 });
    sh(evil, 'config', 'core.bare', 'false');
    sh(evil, 'config', 'core.fsmonitor', join(dir, 'fsmon.sh'));
    writeFileSync(join(worktree, '.git'), `gitdir: ${evil}\n`);
    writeFileSync(join(worktree, 'a.txt'), 'uncommitted\n');

    const work = await snapshotWork(worktree);
    expect(work.head).toBe(tip);
    const { checkpoint } = takeCheckpoint(worktree, 's1', 'git reset --hard');
    // Kept in the user's repository, where `baton checkpoints` finds it, with the work in it.
    expect(sh(repo, 'for-each-ref', '--format=%(objectname)', 'refs/baton/checkpoints/')).toBe(
      checkpoint.commit,
    );
    expect(sh(repo, 'show', `${checkpoint.commit}:a.txt`)).toBe('uncommitted');
    expect(sh(evil, 'for-each-ref')).toBe('');
    expect((await worktreeDiff(worktree, tip)).text).toContain('+uncommitted');
    expect(existsSync(canary)).toBe(false);
    // Plain git follows the rewritten file: the test sees a real danger.
    expect(
      spawnSync('git', ['rev-parse', '--git-dir'], { cwd: worktree, encoding: 'utf8' }).stdout.trim(),
    ).toBe(evil);
  });

  it('refuses a recorded worktree its repository has no entry for', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-git-anchor-'));
    const repo = join(dir, 'repo');
    const stray = join(dir, 'stray');
    mkdirSync(repo);
    mkdirSync(stray);
    const sh = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
    sh(repo, 'init', '-q', '-b', 'main');
    sh(repo, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'base');
    sh(stray, 'init', '-q', '-b', 'main');
    sh(stray, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'stray');
    anchorWorktree(stray, repo);
    await expect(snapshotWork(stray)).rejects.toThrow(/not among the worktrees of/);
  });
});
