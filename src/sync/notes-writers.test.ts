/**
 * The two writers of `refs/notes/baton` — a landing's `git notes add` and sync's `git notes merge`
 * of the remote's notes — one at a time per repository (decision 455). Each reads the notes,
 * writes a notes commit on what it read, and moves the ref without a compare-and-swap. The test
 * places the interleaving at that step boundary: it holds the ref's lock file (git retries a held
 * ref lock, here for as long as it takes), so a writer that read the notes stops just before it
 * moves the ref. On the old code both writers read the same notes and each moved the ref once the
 * lock went: the last one's commit left out the other's note. Now the landing's writer waits for the
 * merge to end and writes on top of it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../test/support/git-repo.js';
import { until } from '../../test/support/wait.js';
import { readNotes, writeNote } from '../provenance/index.js';
import { fetchNotes } from './notes.js';
import { note } from './testing.js';

let root: string;
let points: string;
let pointsBefore: string | undefined;

function commit(clone: string, file: string): string {
  writeFileSync(join(clone, file), `${file}\n`);
  git(clone, 'add', file);
  git(clone, 'commit', '-qm', file);
  return git(clone, 'rev-parse', 'HEAD');
}

/** The subjects of every commit object in the repository, reachable or not (a writer's commit before its ref moves). */
function commitSubjects(repo: string): string[] {
  const objects = execFileSync(
    'git',
    ['cat-file', '--batch-all-objects', '--batch-check=%(objecttype) %(objectname)'],
    { cwd: repo, encoding: 'utf8' },
  );
  const commits = objects
    .split('\n')
    .filter((line) => line.startsWith('commit '))
    .map((line) => line.slice('commit '.length));
  return git(repo, 'log', '--no-walk=unsorted', '--format=%s', ...commits).split('\n');
}

const count = (subjects: string[], prefix: string): number =>
  subjects.filter((s) => s.startsWith(prefix)).length;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-notes-writers-')));
  points = join(root, 'points');
  mkdirSync(points);
  pointsBefore = process.env.BATON_TEST_POINTS;
  process.env.BATON_TEST_POINTS = points;
});

afterEach(() => {
  if (pointsBefore === undefined) delete process.env.BATON_TEST_POINTS;
  else process.env.BATON_TEST_POINTS = pointsBefore;
  rmSync(root, { recursive: true, force: true });
});

describe('the writers of refs/notes/baton', () => {
  it("keep both a landing's note and the remote's notes merged at the same moment", async () => {
    // Another clone noted its landing and pushed its notes; this clone has notes of its own.
    const bare = join(root, 'remote.git');
    git(root, 'init', '--quiet', '--bare', '-b', 'main', bare);
    const other = join(root, 'other');
    git(root, 'init', '--quiet', '-b', 'main', other);
    const theirs = commit(other, 'theirs.txt');
    git(other, 'notes', '--ref=refs/notes/baton', 'add', '-m', JSON.stringify(note('w-other', 'theirs.txt')));
    git(other, 'push', '-q', bare, 'main', 'refs/notes/baton');
    const here = join(root, 'here');
    git(root, 'clone', '-q', bare, here);
    const earlier = commit(here, 'earlier.txt');
    git(
      here,
      'notes',
      '--ref=refs/notes/baton',
      'add',
      '-m',
      JSON.stringify(note('w-earlier', 'earlier.txt')),
    );
    const landed = commit(here, 'landed.txt');

    // The step boundary: a writer that read the notes waits at the ref's lock until the test lets go.
    git(here, 'config', 'core.filesRefLockTimeout', '-1');
    const lock = join(here, '.git', 'refs', 'notes', 'baton.lock');
    writeFileSync(lock, '');
    const before = commitSubjects(here);

    const merging = fetchNotes(here, bare);
    await until(
      () => count(commitSubjects(here), 'Merged notes') > count(before, 'Merged notes'),
      "sync's merge to have read the notes and made its commit",
      { timeoutMs: 30_000 },
    );
    const noting = writeNote(here, landed, note('w-landed', 'landed.txt'));
    // Before: the landing's `git notes add` read the same notes and waited at the lock too. Now it
    // waits for the merge to end, before it reads anything.
    const waited = await until(
      () =>
        existsSync(join(points, 'notes.writer-waiting.reached'))
          ? 'waited for the merge'
          : count(commitSubjects(here), 'Notes added') > count(before, 'Notes added')
            ? 'read the notes the merge read'
            : false,
      "the landing's writer to wait or to read",
      { timeoutMs: 30_000 },
    );
    rmSync(lock);
    expect(await merging).toMatchObject({ merged: true });
    await noting;

    const notes = await readNotes(here, [theirs, earlier, landed]);
    expect({
      waited,
      theirs: notes.get(theirs)?.turns[0]?.name,
      earlier: notes.get(earlier)?.turns[0]?.name,
      landed: notes.get(landed)?.turns[0]?.name,
    }).toEqual({
      waited: 'waited for the merge',
      theirs: 'w-other',
      earlier: 'w-earlier',
      landed: 'w-landed',
    });
  });
});
