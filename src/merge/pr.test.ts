import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareUrl, describePr, openWithGh, pushBranch } from './pr.js';

let root: string;
let repo: string;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-pr-test-'));
  repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  git(repo, 'branch', 'baton/s');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A stand-in `gh` on PATH: records its arguments (unit-separated, one record per call), answers `auth status` with `authExit`. */
function fakeGh(authExit: number): { env: NodeJS.ProcessEnv; calls: () => string[][] } {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(root, 'gh-calls');
  writeFileSync(
    join(bin, 'gh'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\037' "$a"; done >> ${JSON.stringify(log)}\nprintf '\\036' >> ${JSON.stringify(log)}\n` +
      `if [ "$1" = auth ]; then exit ${authExit}; fi\necho https://github.com/o/r/pull/7\n`,
  );
  chmodSync(join(bin, 'gh'), 0o755);
  const calls = (): string[][] =>
    readFileSync(log, 'utf8')
      .split('\u001e')
      .filter(Boolean)
      .map((line) => line.split('\u001f').slice(0, -1));
  return { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` }, calls };
}

describe('pull requests', () => {
  it('derives the page to open from GitHub and GitLab remotes, and none from others', () => {
    for (const url of [
      'git@github.com:o/r.git',
      'https://github.com/o/r',
      'https://token@github.com/o/r.git',
      'ssh://git@github.com/o/r.git',
    ]) {
      expect(compareUrl(url, 'main', 'baton/s')).toBe(
        'https://github.com/o/r/compare/main...baton/s?expand=1',
      );
    }
    expect(compareUrl('git@gitlab.com:g/sub/r.git', 'main', 'baton/s')).toBe(
      'https://gitlab.com/g/sub/r/-/merge_requests/new?merge_request%5Bsource_branch%5D=baton%2Fs&merge_request%5Btarget_branch%5D=main',
    );
    expect(compareUrl('/srv/git/r.git', 'main', 'baton/s')).toBeUndefined();
    expect(compareUrl('https://example.org/o/r.git', 'main', 'baton/s')).toBeUndefined();
  });

  it('pushes the branch to a bare remote', async () => {
    const remote = join(root, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    git(repo, 'remote', 'add', 'origin', remote);
    const pushed = await pushBranch(repo, 'origin', 'baton/s');
    expect(pushed.commit).toBe(git(remote, 'rev-parse', 'refs/heads/baton/s'));
    expect(pushed.remoteUrl).toBe(remote);
  });

  it('stops a push to a remote that does not answer, and says so', async () => {
    const remote = join(root, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    git(repo, 'remote', 'add', 'origin', remote);
    // The remote never answers: its ssh command reads until git hangs up, so it ends with git, and
    // git waits on it as it would on a hung server. (Not `remote.origin.receivepack`: Baton's git
    // names the real program whatever a repository's config says, decision 200.)
    git(repo, 'remote', 'set-url', 'origin', 'ssh://git.invalid/r.git');
    const ssh = process.env.GIT_SSH_COMMAND;
    process.env.GIT_SSH_COMMAND = "sh -c 'cat >/dev/null'";
    try {
      await expect(pushBranch(repo, 'origin', 'baton/s', 500)).rejects.toThrow(
        /did not finish within 1 s and was stopped/,
      );
    } finally {
      if (ssh === undefined) delete process.env.GIT_SSH_COMMAND;
      else process.env.GIT_SSH_COMMAND = ssh;
    }
  });

  it('refuses a missing remote, naming the ones there are', async () => {
    git(repo, 'remote', 'add', 'fork', join(root, 'nowhere.git'));
    await expect(pushBranch(repo, 'origin', 'baton/s')).rejects.toThrow(
      /no remote "origin" \(it has: fork\)/,
    );
  });

  it('opens the request with gh, title and body as plain arguments', async () => {
    const gh = fakeGh(0);
    const body = 'Prompt "with quotes"; $(rm -rf /)\nsecond line';
    const outcome = await openWithGh({
      repo,
      base: 'main',
      branch: 'baton/s',
      title: 'Fix `x`',
      body,
      env: gh.env,
    });
    expect(outcome).toEqual({ via: 'gh', url: 'https://github.com/o/r/pull/7' });
    expect(gh.calls()).toEqual([
      ['auth', 'status'],
      ['pr', 'create', '--head', 'baton/s', '--base', 'main', '--title', 'Fix `x`', '--body', body],
    ]);
  });

  it('falls back when gh is logged out or missing, saying which', async () => {
    const gh = fakeGh(1);
    expect(
      await openWithGh({ repo, base: 'main', branch: 'baton/s', title: 't', body: 'b', env: gh.env }),
    ).toEqual({ via: 'fallback', why: 'gh is not logged in (run `gh auth login`)' });
    expect(gh.calls()).toEqual([['auth', 'status']]);
    const empty = join(root, 'empty-bin');
    mkdirSync(empty);
    expect(
      await openWithGh({
        repo,
        base: 'main',
        branch: 'baton/s',
        title: 't',
        body: 'b',
        env: { ...process.env, PATH: empty },
      }),
    ).toEqual({
      via: 'fallback',
      why: 'gh (the GitHub CLI) is not installed',
    });
  });

  it('titles the request with the prompt’s first line and sums up the work in the body', () => {
    const { title, body } = describePr({
      name: 'flaky',
      prompt: '\nFix the flaky watcher test\nIt fails one run in ten.',
      commits: ['a', 'b'],
      files: ['src/w.ts'],
    });
    expect(title).toBe('Fix the flaky watcher test');
    expect(body).toContain('Baton session **flaky**');
    expect(body).toContain('> It fails one run in ten.');
    expect(body).toContain('2 commits, 1 file changed:\n- `src/w.ts`');
  });
});
