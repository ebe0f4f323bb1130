/** `baton pr` through the real binary: pushes go to a local bare remote; `gh` is a recording stand-in or absent. */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PrView } from '../../src/api/merge.js';
import { eachTest, TestBaton } from '../support/baton.js';
import { finishedSession } from '../support/landing.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('baton pr', () => {
  /** A remote whose URL is GitHub's but which pushes to a local bare repository: nothing reaches the network. */
  function remote(baton: TestBaton, dir: string): string {
    const bare = join(baton.root, 'remote.git');
    baton.git(baton.root, 'init', '--quiet', '--bare', bare);
    baton.git(dir, 'remote', 'add', 'origin', 'https://github.com/octo/repo.git');
    baton.git(dir, 'config', 'remote.origin.pushurl', bare);
    return bare;
  }

  it('pushes the branch with its uncommitted work and, without gh, prints the compare URL', async () => {
    const bare = remote(t, repo);
    const s = await finishedSession(t, repo, 'propose', {
      committed: { 'p.txt': 'p\n' },
      uncommitted: { 'q.txt': 'q\n' },
    });
    const view = await t.json<PrView>(['pr', 'propose'], { cwd: repo });
    expect(view).toMatchObject({
      remote: 'origin',
      branch: 'baton/propose',
      base: 'main',
      via: 'url',
      url: 'https://github.com/octo/repo/compare/main...baton/propose?expand=1',
      committedWork: true,
    });
    expect(view.note).toMatch(/gh \(the GitHub CLI\) is not installed/);
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/propose')).toBe(view.commit);
    expect(t.git(bare, 'show', `${view.commit}:q.txt`)).toBe('q');
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('');
    const types = (await t.client().call('GET /api/workspace/events')).events
      .map((e) => e.type)
      .filter((type) => type.startsWith('pr.'));
    expect(types).toEqual(['pr.pushed', 'pr.opened']);
    const text = await t.ok(['pr', 'propose'], { cwd: repo });
    expect(text).toMatch(
      /Pushed baton\/propose \([0-9a-f]{12}\) to origin\.\nNot opened with gh: gh \(the GitHub CLI\) is not installed; open the pull request at the URL\.\nOpen the pull request: https:\/\/github\.com\/octo\/repo\/compare\/main\.\.\.baton\/propose\?expand=1/,
    );
  });

  it('opens the pull request with gh when it is logged in, passing head, base, title and body', async () => {
    const bin = join(t.root, 'fake-bin');
    mkdirSync(bin);
    const log = join(t.root, 'gh-argv');
    // Records each call's arguments, NUL-separated, one call per line of the log.
    writeFileSync(
      join(bin, 'gh'),
      `#!/bin/sh\nprintf '%s\\0' "$@" >> '${log}'\nprintf '\\n' >> '${log}'\n[ "$1" = auth ] && exit 0\necho https://github.com/octo/repo/pull/1\n`,
    );
    chmodSync(join(bin, 'gh'), 0o755);
    const baton = new TestBaton({ PATH: `${bin}:${process.env.PATH ?? ''}` });
    try {
      const dir = baton.repo();
      remote(baton, dir);
      await finishedSession(baton, dir, 'ghpr', { committed: { 'g.txt': 'g\n' } });
      const view = JSON.parse(await baton.ok(['pr', 'ghpr', '--json'], { cwd: dir })) as PrView;
      expect(view).toMatchObject({ via: 'gh', url: 'https://github.com/octo/repo/pull/1', note: null });
      const calls = readFileSync(log, 'utf8')
        .split('\0\n')
        .filter(Boolean)
        .map((line) => line.split('\0'));
      expect(calls[0]).toEqual(['auth', 'status']);
      expect(calls[1]?.slice(0, 8)).toEqual([
        'pr',
        'create',
        '--head',
        'baton/ghpr',
        '--base',
        'main',
        '--title',
        'ghpr: do the thing',
      ]);
      expect(calls[1]?.[8]).toBe('--body');
      expect(calls[1]?.[9]).toMatch(
        /Baton session \*\*ghpr\*\*[\s\S]*> ghpr: do the thing\n> with detail[\s\S]*1 commit, 1 file changed:\n- `g.txt`/,
      );
    } finally {
      baton.cleanup();
    }
  });

  it('refuses a missing remote before touching the session’s work', async () => {
    const s = await finishedSession(t, repo, 'noremote', { uncommitted: { 'n.txt': 'n\n' } });
    const run = await t.run(['pr', 'noremote'], { cwd: repo });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /The repository has no remote "origin"\. Add it with `git remote add origin <url>`, or set "pr": \{"remote": "…"\}/,
    );
    expect(t.git(s.worktree, 'status', '--porcelain')).toBe('?? n.txt');
  });
});
