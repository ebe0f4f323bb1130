/**
 * A push or fetch of Baton's to a repository on this machine must not run that repository's
 * hooks or programs (decision 274): they would run as the user, outside the sandbox.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitOut } from './git.js';
import { isLocalUrl, urlsFor } from './git-transport.js';

let dir: string;
let repo: string;
let bare: string;
let ran: string;
const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-git-transport-'));
  repo = join(dir, 'repo');
  bare = join(dir, 'remote.git');
  ran = join(dir, 'ran');
  mkdirSync(repo);
  sh(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  sh(repo, 'add', '-A');
  sh(repo, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'one');
  sh(dir, 'init', '-q', '--bare', bare);
  // The other repository's programs: every hook a push runs, and a hooks folder of its own.
  const hooks = join(dir, 'evil-hooks');
  mkdirSync(hooks);
  for (const hook of ['pre-receive', 'update', 'post-receive', 'post-update', 'reference-transaction']) {
    const script = `#!/bin/sh\necho ${hook} >> '${ran}'\n`;
    writeFileSync(join(bare, 'hooks', hook), script, { mode: 0o755 });
    writeFileSync(join(hooks, hook), script, { mode: 0o755 });
  }
  sh(bare, 'config', 'core.hooksPath', hooks);
  // And a program it runs to list an alternate's refs, with an alternate to list.
  const alternate = join(dir, 'alternate.git');
  sh(dir, 'init', '-q', '--bare', alternate);
  writeFileSync(join(bare, 'objects', 'info', 'alternates'), `${join(alternate, 'objects')}\n`);
  sh(bare, 'config', 'core.alternateRefsCommand', `echo alternate-refs >> '${ran}'; true`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("Baton's push to a repository on this machine", () => {
  it('runs none of its hooks, and the push lands (plain git, the control, runs them)', async () => {
    sh(repo, 'remote', 'add', 'origin', bare);
    await git(repo, ['push', '--porcelain', '--', 'origin', 'main:refs/heads/baton/one']);
    expect(existsSync(ran)).toBe(false);
    expect(sh(bare, 'rev-parse', 'refs/heads/baton/one').trim()).toBe(sh(repo, 'rev-parse', 'HEAD').trim());
    // The same push by plain git runs them: the hooks above are real.
    spawnSync('git', ['push', '-q', '--', 'origin', 'main:refs/heads/plain'], { cwd: repo });
    expect(existsSync(ran)).toBe(true);
  });

  it('sees a file:// URL and an ssh-looking URL rewritten to a path by insteadOf', async () => {
    sh(repo, 'remote', 'add', 'viafile', `file://${bare}`);
    sh(repo, 'remote', 'add', 'disguised', 'git@example.invalid:team/project.git');
    sh(repo, 'config', `url.${bare}.insteadOf`, 'git@example.invalid:team/project.git');
    await git(repo, ['push', '--porcelain', '--', 'viafile', 'main:refs/heads/baton/a']);
    await git(repo, ['push', '--porcelain', '--', 'disguised', 'main:refs/heads/baton/b']);
    expect(existsSync(ran)).toBe(false);
    expect(sh(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/baton').trim().split('\n')).toEqual([
      'refs/heads/baton/a',
      'refs/heads/baton/b',
    ]);
  });

  it('fetches and lists from it through the same settings, nothing of it run', async () => {
    sh(repo, 'remote', 'add', 'origin', bare);
    sh(repo, 'push', '-q', 'origin', 'main');
    rmSync(ran, { force: true });
    await git(repo, ['fetch', '--quiet', '--no-tags', '--', 'origin', '+refs/heads/main:refs/baton/fetched']);
    expect(await gitOut(repo, ['ls-remote', '--', 'origin', 'refs/heads/main'])).toContain('refs/heads/main');
    expect(existsSync(ran)).toBe(false);
  });
});

describe('where a remote leads', () => {
  it('tells local paths and file:// from ssh and http', () => {
    const local = ['/srv/git/p.git', './p.git', '../p', 'p.git', 'file:///srv/p.git', 'FILE:///x', '/a:b/c'];
    const remote = [
      'git@github.com:team/p.git',
      'github.com:p.git',
      'ssh://git@host/p.git',
      'https://host/p.git',
      'git://host/p.git',
      'ext::ssh host',
    ];
    expect(local.filter((u) => !isLocalUrl(u))).toEqual([]);
    expect(remote.filter((u) => isLocalUrl(u))).toEqual([]);
  });

  it('reads a remote’s urls and push urls through insteadOf and pushInsteadOf', () => {
    const entries = [
      { key: 'remote.origin.url', value: 'https://host/p.git' },
      { key: 'remote.origin.pushurl', value: 'git@host:p.git' },
      { key: 'url./srv/mirror/.pushInsteadOf', value: 'git@host:' },
    ];
    expect(urlsFor('origin', entries, false).some(isLocalUrl)).toBe(false);
    expect(urlsFor('origin', entries, true).some(isLocalUrl)).toBe(true);
    expect(urlsFor('/abs/path.git', [], true)).toContain('/abs/path.git');
  });
});
