import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { restoreSession } from './restore.js';

let root: string;
let clone: string;
let bare: string;

/** A snapshot commit made by hand, as anyone with push access could, carrying `name` as its Baton-Name trailer. */
function pushSnapshot(id: string, name: string): void {
  const author = join(root, 'author');
  const tip = git(author, 'rev-parse', 'HEAD');
  const tree = git(author, 'rev-parse', 'HEAD^{tree}');
  const snapshot = git(
    author,
    'commit-tree',
    tree,
    '-p',
    tip,
    '-m',
    `baton: uncommitted work\n\nBaton-Session: ${id}\nBaton-Name: ${name}\n`,
  );
  git(author, 'push', '--quiet', 'origin', `${snapshot}:refs/baton/snapshots/${id}`);
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-sync-restore-')));
  bare = join(root, 'remote.git');
  git(root, 'init', '--quiet', '--bare', bare);
  const author = join(root, 'author');
  git(root, 'init', '--quiet', '-b', 'main', author);
  writeFileSync(join(author, 'a.txt'), 'a\n');
  git(author, 'add', '.');
  git(author, 'commit', '-qm', 'base');
  git(author, 'remote', 'add', 'origin', bare);
  git(author, 'push', '--quiet', 'origin', 'main');
  // The clone sits two folders deep, so a name climbing out of it has somewhere to land.
  mkdirSync(join(root, 'deep', 'er'), { recursive: true });
  clone = join(root, 'deep', 'er', 'clone');
  git(root, 'clone', '--quiet', '--branch', 'main', bare, clone);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('restoring a session from the shared remote', () => {
  it.each([
    ['x/../../../escaped', /contains '\.\.'/],
    ['a/b', /characters other than letters/],
    ['-rf', /starts with '-'/],
    ['ok name', /whitespace/],
  ])('refuses a snapshot whose Baton-Name trailer is %j, creating no folder or branch', async (name, why) => {
    pushSnapshot('hostile1', name);
    const before = {
      root: readdirSync(root).sort(),
      deep: readdirSync(join(root, 'deep')).sort(),
      er: readdirSync(join(root, 'deep', 'er')).sort(),
    };
    const refused = await restoreSession({ cwd: clone, session: 'hostile1' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'invalid_input', data: { trailer: 'Baton-Name', name } });
    expect((refused as Error).message).toMatch(
      /refs\/baton\/snapshots\/hostile1 on origin has a Baton-Name trailer/,
    );
    expect((refused as Error).message).toMatch(why);
    expect({
      root: readdirSync(root).sort(),
      deep: readdirSync(join(root, 'deep')).sort(),
      er: readdirSync(join(root, 'deep', 'er')).sort(),
    }).toEqual(before);
    expect(existsSync(join(root, 'escaped'))).toBe(false);
    expect(git(clone, 'for-each-ref', '--format=%(refname)', 'refs/heads/baton/')).toBe('');
  });

  it('restores a snapshot whose trailer is a good session name', async () => {
    pushSnapshot('good1', 'fine-name');
    const restored = await restoreSession({ cwd: clone, session: 'good1' });
    expect(restored).toMatchObject({
      branch: 'baton/fine-name',
      path: join(root, 'deep', 'er', 'clone-fine-name'),
    });
    expect(existsSync(join(restored.path, 'a.txt'))).toBe(true);
  });

  it('refuses a session reference that is not a session id or name before asking the remote', async () => {
    const refused = await restoreSession({ cwd: clone, session: 'a/b' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'invalid_input', data: { session: 'a/b' } });
  });
});
