/** Provenance notes sync between two clones of one bare remote, on real git (decision 294). */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseNote, readNotes, type ProvenanceNote } from '../provenance/index.js';
import { syncNotes } from './notes.js';
import { note } from './testing.js';

let root: string;
let bare: string;
let a: string;
let b: string;

function addNote(clone: string, commit: string, body: ProvenanceNote): void {
  git(clone, 'notes', '--ref=refs/notes/baton', 'add', '-f', '-m', JSON.stringify(body), commit);
}

function commit(clone: string, file: string): string {
  writeFileSync(join(clone, file), `${file}\n`);
  git(clone, 'add', file);
  git(clone, 'commit', '-qm', file);
  git(clone, 'push', '-q', 'origin', 'HEAD:refs/heads/main', '--force');
  return git(clone, 'rev-parse', 'HEAD');
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-sync-notes-')));
  bare = join(root, 'remote.git');
  git(root, 'init', '--quiet', '--bare', '-b', 'main', bare);
  a = join(root, 'a');
  git(root, 'init', '--quiet', '-b', 'main', a);
  git(a, 'remote', 'add', 'origin', bare);
  writeFileSync(join(a, 'README'), 'x\n');
  git(a, 'add', 'README');
  git(a, 'commit', '-qm', 'initial');
  git(a, 'push', '-q', 'origin', 'main');
  b = join(root, 'b');
  git(root, 'clone', '-q', bare, b);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('provenance notes sync', () => {
  it("keeps both clones' notes: each side's are merged into the other's through the remote", async () => {
    const ca = commit(a, 'a.txt');
    git(b, 'fetch', '-q', 'origin');
    git(b, 'reset', '-q', '--hard', 'origin/main');
    const cb = commit(b, 'b.txt');
    git(a, 'fetch', '-q', 'origin');
    addNote(a, ca, note('wa', 'a.txt'));
    addNote(b, cb, note('wb', 'b.txt'));

    // A first: the remote has none, so A's are pushed as they are.
    expect(await syncNotes(a, 'origin')).toMatchObject({ merged: false, pushed: true });
    // B has its own and the remote has A's: merged, nothing of either dropped, and pushed back.
    expect(await syncNotes(b, 'origin')).toMatchObject({ merged: true, pushed: true });
    // A takes B's in; nothing is left to push.
    expect(await syncNotes(a, 'origin')).toMatchObject({ merged: true, pushed: false });

    for (const clone of [a, b, bare]) {
      const notes = await readNotes(clone, [ca, cb]);
      expect(notes.get(ca)?.turns[0]?.name).toBe('wa');
      expect(notes.get(cb)?.turns[0]?.name).toBe('wb');
    }
    // A round with nothing new does nothing.
    expect(await syncNotes(b, 'origin')).toMatchObject({ merged: false, pushed: false });
  });

  it('keeps both notes of one commit noted on both clones, and the reader joins them', async () => {
    const shared = commit(a, 'c.txt');
    git(b, 'fetch', '-q', 'origin');
    addNote(a, shared, note('wa', 'c.txt'));
    addNote(b, shared, { ...note('wb', 'd.txt') });
    await syncNotes(a, 'origin');
    expect(await syncNotes(b, 'origin')).toMatchObject({ merged: true, pushed: true });
    const joined = (await readNotes(b, [shared])).get(shared);
    expect(joined?.turns.map((t) => t.name).sort()).toEqual(['wa', 'wb']);
    expect(Object.keys(joined?.files ?? {}).sort()).toEqual(['c.txt', 'd.txt']);
    // Each file's range still points at its own turn after the join.
    const { turns, files } = joined!;
    expect(turns[files['c.txt']![0]![2]]!.name).toBe('wa');
    expect(turns[files['d.txt']![0]![2]]!.name).toBe('wb');
  });

  it('has nothing to do when neither side has notes, and refuses a remote that is not there', async () => {
    expect(await syncNotes(a, 'origin')).toEqual({ local: null, merged: false, pushed: false });
    await expect(syncNotes(a, 'nowhere')).rejects.toThrow(/nowhere/);
  });

  it('reads a note of one JSON line as before, and a hand-written one that is not JSON as none', () => {
    const one = note('w', 'x.txt');
    expect(parseNote(JSON.stringify(one))).toEqual(one);
    expect(parseNote(JSON.stringify(one, null, 2))).toEqual(one);
    expect(parseNote('reviewed by Pat')).toBeUndefined();
  });
});
