import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../shared/errors.js';
import { fetchPushedWork, pushedWork } from './fetch.js';

let root: string;
let author: string;
let here: string;

/** Another machine's push of session `name`: its branch, and a snapshot of `uncommitted` on top when given. */
function pushSession(
  id: string,
  name: string,
  committed: string,
  uncommitted?: string,
): { tip: string; snapshot?: string } {
  git(author, 'checkout', '--quiet', '-B', `baton/${name}`, 'main');
  writeFileSync(join(author, `${name}.txt`), committed);
  git(author, 'add', '.');
  git(author, 'commit', '-qm', `work of ${name}`);
  const tip = git(author, 'rev-parse', 'HEAD');
  git(author, 'push', '--quiet', '--force', 'origin', `HEAD:refs/heads/baton/${name}`);
  if (uncommitted === undefined) return { tip };
  writeFileSync(join(author, `${name}.txt`), uncommitted);
  git(author, 'add', '.');
  const tree = git(author, 'write-tree');
  git(author, 'reset', '--quiet', '--hard');
  const snapshot = git(author, 'commit-tree', tree, '-p', tip, '-m', 'baton: uncommitted work');
  git(author, 'push', '--quiet', '--force', 'origin', `${snapshot}:refs/baton/snapshots/${id}`);
  return { tip, snapshot };
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-sync-fetch-')));
  const bare = join(root, 'remote.git');
  git(root, 'init', '--quiet', '--bare', bare);
  author = join(root, 'author');
  git(root, 'init', '--quiet', '-b', 'main', author);
  writeFileSync(join(author, 'a.txt'), 'a\n');
  git(author, 'add', '.');
  git(author, 'commit', '-qm', 'base');
  git(author, 'remote', 'add', 'origin', bare);
  git(author, 'push', '--quiet', 'origin', 'main');
  here = join(root, 'here');
  git(root, 'clone', '--quiet', '--branch', 'main', bare, here);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("another machine's pushed session work", () => {
  it('reads a branch with its uncommitted-work snapshot, and a branch alone, as head and tree', async () => {
    const withWork = pushSession('id-one', 'one', 'committed\n', 'uncommitted\n');
    const plain = pushSession('id-two', 'two', 'two\n');
    await fetchPushedWork(here);

    const one = await pushedWork(here, { id: 'id-one', name: 'one' });
    expect(one).toEqual({
      head: withWork.tip,
      snapshot: withWork.snapshot,
      tree: git(here, 'rev-parse', `${withWork.snapshot ?? ''}^{tree}`),
    });
    expect(git(here, 'cat-file', '-p', `${one?.tree ?? ''}:one.txt`)).toBe('uncommitted');
    const two = await pushedWork(here, { id: 'id-two', name: 'two' });
    expect(two).toEqual({
      head: plain.tip,
      snapshot: null,
      tree: git(here, 'rev-parse', `${plain.tip}^{tree}`),
    });
    expect(await pushedWork(here, { id: 'id-three', name: 'three' })).toBeUndefined();
    // Nothing of the user's own branches or remote-tracking refs is touched.
    expect(git(here, 'for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/remotes/origin/baton')).toBe(
      'refs/heads/main',
    );
  });

  it('ignores a snapshot left beside an older tip, and forgets a branch the remote deleted', async () => {
    pushSession('id-one', 'one', 'first\n', 'uncommitted\n');
    // The branch moves on without the snapshot moving with it (not what sync does, but anyone may push).
    const newer = pushSession('id-one', 'one', 'second\n');
    await fetchPushedWork(here);
    const one = await pushedWork(here, { id: 'id-one', name: 'one' });
    expect(one).toMatchObject({ head: newer.tip, snapshot: null });

    git(author, 'push', '--quiet', 'origin', '--delete', 'baton/one');
    await fetchPushedWork(here);
    expect(await pushedWork(here, { id: 'id-one', name: 'one' })).toBeUndefined();
  });

  it('names the remote it cannot fetch from', async () => {
    git(here, 'remote', 'set-url', 'origin', join(root, 'gone.git'));
    const failed = await fetchPushedWork(here).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(InvalidInputError);
    expect((failed as Error).message).toMatch(/Cannot fetch the sessions' pushed work from origin/);
  });

  it('runs fetches of one repository one at a time, so callers at once (radar, review, merge) do not collide on its refs', async () => {
    for (let n = 0; n < 12; n++)
      pushSession(`id-${n}`, `s${n}`, `work ${n}\n`, n % 2 === 0 ? `more ${n}\n` : undefined);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => fetchPushedWork(here)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect((await pushedWork(here, { id: 'id-11', name: 's11' }))?.head).toBe(
      git(author, 'rev-parse', 'baton/s11'),
    );
  });
});
