import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { baseWithLanded } from './landed-elsewhere.js';

let dir: string;
let here: string;
let other: string;
const commit = (cwd: string, file: string): string => {
  writeFileSync(join(cwd, file), `${file}\n`);
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-qm', file);
  return git(cwd, 'rev-parse', 'HEAD');
};

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-landed-')));
  const bare = join(dir, 'remote.git');
  git(dir, 'init', '--quiet', '--bare', '-b', 'main', bare);
  here = join(dir, 'here');
  git(dir, 'init', '--quiet', '-b', 'main', here);
  commit(here, 'a.txt');
  git(here, 'remote', 'add', 'origin', bare);
  git(here, 'push', '--quiet', 'origin', 'main');
  other = join(dir, 'other');
  git(dir, 'clone', '--quiet', bare, other);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a prerequisite's landing, as a waiting session's base", () => {
  it('is this base when it has it, the remote base when only that has it, and a wait naming it when neither does', async () => {
    const local = git(here, 'rev-parse', 'main');
    const mine = commit(here, 'mine.txt');
    expect(await baseWithLanded(here, 'main', mine, [{ taskId: 1, title: 'mine', commit: mine }])).toEqual({
      tip: mine,
    });

    // Landed on the other machine, not pushed yet: wait, naming it.
    const theirs = commit(other, 'theirs.txt');
    const waiting = await baseWithLanded(here, 'main', mine, [
      { taskId: 2, title: 'theirs', commit: theirs },
    ]);
    expect(waiting).toEqual({
      waiting: `after task 2 (theirs) at ${theirs.slice(0, 12)}, landed on another machine: not on main here or on the remote yet (push it there)`,
    });

    // Pushed: the remote's main is the base, and this machine's main is left as it is.
    git(other, 'push', '--quiet', 'origin', 'main');
    expect(
      await baseWithLanded(here, 'main', local, [{ taskId: 2, title: 'theirs', commit: theirs }]),
    ).toEqual({ tip: theirs });
    expect(git(here, 'rev-parse', 'main')).toBe(mine);
  });

  it('is this base when the landed commit is here but no longer on it (the base was moved back since), as on one machine', async () => {
    const before = git(here, 'rev-parse', 'main');
    const landed = commit(here, 'landed.txt');
    git(here, 'reset', '--quiet', '--hard', before);
    expect(
      await baseWithLanded(here, 'main', before, [{ taskId: 3, title: 'landed', commit: landed }]),
    ).toEqual({ tip: before });
  });
});
