/**
 * The key of git's merge verdict for a pair, from what git's merge reads of the two sides (decision
 * 467, "A radar pass lists a repository's settings once, and asks git's merge verdict again only
 * when what it reads changed"); what it reads of the repository is `MergeReads`' part.
 */
import type { Side } from './compare.js';
import type { WorkDiff } from './diff.js';

/**
 * What git's merge reads of two sides, as a key, when that is less than their whole trees: the
 * sides' heads (with their only merge base, the commit both diffs start from), the blob and mode
 * on either side of every path both sides change, and the names of the files either side adds.
 * Then an edit to a file only one side changes asks no merge-tree again (decision 467). Undefined,
 * and git asked every time, when either side deletes a file (a deleted file with an added one is
 * a rename git may find, and what it pairs it with depends on files the key leaves out) or
 * changes a submodule (whose merge looks into the submodule's own history). What git reads of
 * the repository itself (attributes, settings) is the comparer's to add (`MergeReads`).
 *
 * Why that is all: with no file deleted there is no rename to detect, so git's merge takes each
 * path on its own. A path only one side changes takes that side's version, cleanly, whatever its
 * content and mode; a path both change merges the three blobs and modes the key holds (the base's
 * are the head's merge base's, fixed by the heads) — including a path both leave on the same
 * blob, which still conflicts when their modes differ (a file both add, one executable, or one a
 * symlink) and stops when they agree; and a file one side adds can meet the other side's only by
 * its name (one side's file `x` where the other adds `x/y`), which the key holds too.
 */
export function verdictKey(
  a: Pick<Side, 'head'>,
  b: Pick<Side, 'head'>,
  diffA: WorkDiff,
  diffB: WorkDiff,
): string | undefined {
  const parts = [a.head, b.head];
  for (const [name, diff] of [
    ['a', diffA],
    ['b', diffB],
  ] as const) {
    const added: string[] = [];
    for (const change of diff.values()) {
      if (
        change.kind === 'deleted' ||
        change.blob === undefined ||
        change.mode === undefined ||
        change.mode === '160000'
      )
        return undefined;
      if (change.kind === 'added') added.push(change.path);
    }
    parts.push(`${name}+`, ...added.sort());
  }
  parts.push('both');
  for (const path of pathsInBoth(diffA, diffB).sort()) {
    const [fa, fb] = [diffA.get(path), diffB.get(path)];
    parts.push(path, `${fa?.blob ?? ''} ${fa?.mode ?? ''}`, `${fb?.blob ?? ''} ${fb?.mode ?? ''}`);
  }
  return parts.join('\0');
}

/** Every path both sides change, the same blob or not: the paths whose content git's merge reads. */
export function pathsInBoth(a: WorkDiff, b: WorkDiff): string[] {
  return [...a.keys()].filter((path) => b.has(path));
}
