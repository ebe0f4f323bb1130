import { describe, expect, it } from 'vitest';
import { verdictKey } from './verdict-key.js';
import type { FileChange, WorkDiff } from './diff.js';

const change = (path: string, blob: string, more: Partial<FileChange> = {}): FileChange => ({
  path,
  hunks: [],
  diff: '',
  binary: false,
  blob,
  kind: 'changed',
  mode: '100644',
  ...more,
});
const work = (...changes: FileChange[]): WorkDiff => new Map(changes.map((c) => [c.path, c]));
const a = { head: 'head-a' };
const b = { head: 'head-b' };

describe("the key of git's merge verdict for a pair (decision 467)", () => {
  const shared = work(change('shared.txt', 'a1'), change('mine.txt', 'm1'));
  const theirs = work(change('shared.txt', 'b1'), change('theirs.txt', 't1'));
  const key = verdictKey(a, b, shared, theirs);

  it('stays the same when a side edits only a file the other does not change', () => {
    expect(key).toBeDefined();
    const edited = work(change('shared.txt', 'a1'), change('mine.txt', 'm2'));
    expect(verdictKey(a, b, edited, theirs)).toBe(key);
  });

  it('changes with a shared file’s blob or mode on either side, with a head, and with the pair’s order', () => {
    const keys = [
      verdictKey(a, b, work(change('shared.txt', 'a2'), change('mine.txt', 'm1')), theirs),
      verdictKey(a, b, shared, work(change('shared.txt', 'b1', { mode: '100755' }))),
      verdictKey({ head: 'head-a2' }, b, shared, theirs),
      verdictKey(b, a, theirs, shared),
    ];
    for (const other of keys) {
      expect(other).toBeDefined();
      expect(other).not.toBe(key);
    }
  });

  it('holds the mode of a path both sides leave on the same blob (a file both add, one executable)', () => {
    const both = work(change('shared.txt', 'a1'), change('x.sh', 'x1', { kind: 'added' }));
    const plain = verdictKey(
      a,
      b,
      both,
      work(change('shared.txt', 'b1'), change('x.sh', 'x1', { kind: 'added' })),
    );
    const executable = verdictKey(
      a,
      b,
      both,
      work(change('shared.txt', 'b1'), change('x.sh', 'x1', { kind: 'added', mode: '100755' })),
    );
    expect(plain).toBeDefined();
    expect(executable).toBeDefined();
    expect(executable).not.toBe(plain);
  });

  it('holds the names of added files (one side’s file can meet the other’s folder), not their content', () => {
    const added = verdictKey(a, b, work(...shared.values(), change('x', 'x1', { kind: 'added' })), theirs);
    expect(added).not.toBe(key);
    const addedEdited = verdictKey(
      a,
      b,
      work(...shared.values(), change('x', 'x2', { kind: 'added' })),
      theirs,
    );
    expect(addedEdited).toBe(added);
  });

  it('is none when either side deletes a file (git may find a rename) or changes a submodule', () => {
    const deleted = work(...shared.values(), change('gone.txt', '0'.repeat(40), { kind: 'deleted' }));
    expect(verdictKey(a, b, shared, deleted)).toBeUndefined();
    const submodule = work(...shared.values(), change('lib', 'c1', { mode: '160000' }));
    expect(verdictKey(a, b, submodule, theirs)).toBeUndefined();
    // A mode change alone (no blob line): not read as a key's blob.
    const chmod = change('run.sh', '');
    delete chmod.blob;
    const modeOnly = work(...shared.values(), chmod);
    expect(verdictKey(a, b, modeOnly, theirs)).toBeUndefined();
  });
});
