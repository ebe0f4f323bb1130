import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { canonicalRemote, fetchBase, localCloneOf, repositoryIdentity } from './clones.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-clones-')));
  folders.push(dir);
  return dir;
}

const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
};
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
}

/** A bare remote and a checkout of it on branch main with one commit pushed. */
function shared(dir: string, name = 'shop'): { remote: string; repo: string } {
  const remote = join(dir, `${name}.git`);
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=trunk', remote);
  const repo = join(dir, name);
  mkdirSync(repo);
  git(repo, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(join(repo, 'README.md'), '# shop\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'push', '--quiet', 'origin', 'main');
  return { remote, repo };
}

describe('a repository’s identity across machines', () => {
  test('is its origin, made absolute, and the branch checked out', async () => {
    const dir = folder();
    const { repo } = shared(dir);
    git(repo, 'remote', 'set-url', 'origin', '../shop.git');
    expect(await repositoryIdentity(join(repo), undefined)).toEqual({
      url: join(dir, 'shop.git'),
      base: 'main',
      project: 'shop',
    });
    expect((await repositoryIdentity(repo, 'release')).base).toBe('release');
  });

  test('follows sync.remote from .baton/config.json', async () => {
    const dir = folder();
    const { repo } = shared(dir);
    git(repo, 'remote', 'add', 'team', 'ssh://git.example/team/shop.git');
    mkdirSync(join(repo, '.baton'));
    writeFileSync(join(repo, '.baton', 'config.json'), JSON.stringify({ sync: { remote: 'team' } }));
    expect((await repositoryIdentity(repo, undefined)).url).toBe('ssh://git.example/team/shop.git');
  });

  test('is refused for a repository without the remote, naming it', async () => {
    const dir = folder();
    const { repo } = shared(dir);
    git(repo, 'remote', 'remove', 'origin');
    await expect(repositoryIdentity(repo, undefined)).rejects.toThrow(
      /has no remote "origin", so another machine cannot fetch it/,
    );
  });
});

describe('a local clone of a placed repository', () => {
  test('is a project this machine already has with the same remote', async () => {
    const dir = folder();
    const { remote, repo } = shared(dir);
    const other = shared(dir, 'other');
    const home = join(dir, 'home');
    expect(
      await localCloneOf({ url: `${remote}/`, project: 'shop', home, knownRoots: [other.repo, repo] }),
    ).toBe(repo);
  });

  test('is cloned under the home once, then found there', async () => {
    const dir = folder();
    const { remote } = shared(dir);
    const home = join(dir, 'home');
    const clone = await localCloneOf({ url: remote, project: 'shop', home, knownRoots: [] });
    expect(clone).toBe(join(home, 'clones', 'shop'));
    expect(git(clone, 'remote', 'get-url', 'origin')).toBe(remote);
    expect(await localCloneOf({ url: remote, project: 'shop', home, knownRoots: [] })).toBe(clone);
    // Another repository of the same name gets its own folder.
    const twin = shared(join(dir, 'home'), 'twin');
    const second = await localCloneOf({ url: twin.remote, project: 'shop', home, knownRoots: [] });
    expect(second).toBe(join(home, 'clones', 'shop-2'));
  });

  test('fetches the base from the remote, with what was pushed after the clone', async () => {
    const dir = folder();
    const { remote, repo } = shared(dir);
    const home = join(dir, 'home');
    const clone = await localCloneOf({ url: remote, project: 'shop', home, knownRoots: [] });
    writeFileSync(join(repo, 'NEW.md'), 'new\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '--quiet', '-m', 'later');
    git(repo, 'push', '--quiet', 'origin', 'main');
    expect(await fetchBase(clone, remote, 'main', 'p1')).toBe(git(repo, 'rev-parse', 'HEAD'));
    // The bare remote's HEAD names a branch it lacks (git's default, not main): the clone had
    // nothing checked out, and now has the base.
    expect(git(clone, 'rev-parse', 'HEAD')).toBe(git(repo, 'rev-parse', 'HEAD'));
    // The landing ref is gone: only the session's worktree holds the commit.
    expect(git(clone, 'for-each-ref', 'refs/baton/')).toBe('');
    await expect(fetchBase(clone, remote, 'nosuch', 'p2')).rejects.toThrow(/Cannot fetch the base "nosuch"/);
  });
});

describe('one name for the spellings of a remote', () => {
  test('drops users, passwords, ports, `.git` and trailing slashes, lower-cases the host, and keeps local paths', () => {
    for (const url of [
      'git@github.com:Team/App.git',
      'ssh://git@github.com:22/Team/App',
      'https://x-access-token:s3cret@GitHub.com/Team/App/',
      'https://github.com/Team/App.git',
    ]) {
      expect(canonicalRemote(url), url).toBe('github.com/Team/App');
    }
    expect(canonicalRemote('/srv/git/app.git')).toBe('/srv/git/app');
    expect(canonicalRemote('file:///srv/git/app.git/')).toBe('/srv/git/app');
    expect(canonicalRemote('https://x:tok@example.test/a')).not.toContain('tok');
  });
});
