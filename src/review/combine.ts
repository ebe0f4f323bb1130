/**
 * A group's work as one tree: each member's snapshot as a commit, merged in order with
 * `git merge-tree --write-tree` (nothing checked out, no index, no worktree touched; git 2.38+
 * finds the merge base itself), then one diff against the group's base in which every hunk is
 * attributed to the member(s) whose own diff has its lines. A file the merge could not combine is
 * shown as each member's side of it, and said to conflict.
 */
import { git, gitOut } from '../worktrees/index.js';
import { attribute, parseDiff, type FileDiff } from './attribution.js';

export interface CombineMember {
  name: string;
  /** The commit the member started from: its own diff, what it wrote, is read against this. */
  base: string;
  /** The member's snapshot as a commit (its work on top of its branch tip). */
  commit: string;
  tree: string;
  changed: readonly string[];
}

/** Past this many changed lines a file's hunks are left out (a lock file, generated code); its state still works. */
export const MAX_FILE_LINES = 3000;
/** Past this many changed lines in all, the remaining files are listed without their hunks (the page stays usable). */
export const MAX_TOTAL_LINES = 30_000;

export interface CombinedFile extends FileDiff {
  omittedLines: number;
  /** Sessions that changed the file. */
  sessions: string[];
  /** Set when the members' changes to the file do not merge: the hunks are then each member's own. */
  conflict: { sessions: string[] } | null;
  /** What the file's review state is tied to: its content in the combined tree (or each side's). */
  contentKey: string;
}

export interface Combined {
  tree: string;
  files: CombinedFile[];
}

const IDENTITY = ['-c', 'user.name=Baton', '-c', 'user.email=baton@localhost'];
const DIFF = [
  '-c',
  'core.quotePath=false',
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-renames',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

/** The base every member's diff is read against: their shared base, or the newest commit all of them contain. */
export async function groupBase(cwd: string, bases: readonly string[]): Promise<string> {
  const distinct = [...new Set(bases)];
  if (distinct.length === 1) return distinct[0]!;
  return gitOut(cwd, ['merge-base', '--octopus', ...distinct]);
}

export async function combine(
  cwd: string,
  base: string,
  members: readonly CombineMember[],
): Promise<Combined> {
  const conflicted = new Map<string, Set<string>>();
  let tip = members[0]!.commit;
  let tree = members[0]!.tree;
  for (let k = 1; k < members.length; k++) {
    const member = members[k]!;
    const merged = await git(
      cwd,
      ['merge-tree', '--write-tree', '--name-only', '-z', '--allow-unrelated-histories', tip, member.commit],
      { okExitCodes: [1] },
    );
    const [treeId = '', ...rest] = merged.stdout.split('\0');
    tree = treeId;
    if (merged.exitCode === 1) {
      const end = rest.indexOf('');
      for (const path of rest.slice(0, end < 0 ? rest.length : end)) {
        const who = conflicted.get(path) ?? new Set<string>();
        for (const m of members.slice(0, k + 1)) if (m.changed.includes(path)) who.add(m.name);
        conflicted.set(path, who);
      }
    }
    tip = await gitOut(cwd, [
      ...IDENTITY,
      'commit-tree',
      tree,
      '-p',
      tip,
      '-p',
      member.commit,
      '-m',
      'baton review',
    ]);
  }

  const [combinedText, ...ownTexts] = await Promise.all([
    gitOut(cwd, [...DIFF, base, tree, '--']),
    // What each member wrote is its tree against its own base: a member started from a newer
    // commit did not write what that commit added, and lines of it stay unattributed.
    ...members.map((m) => gitOut(cwd, [...DIFF, m.base, m.tree, '--'])),
  ]);
  const own = ownTexts.map((text, i) => ({
    name: members[i]!.name,
    files: new Map(parseDiff(text).map((f) => [f.path, f])),
  }));
  const blobs = await blobIds(cwd, tree);

  const files: CombinedFile[] = [];
  const seen = new Set<string>();
  for (const file of parseDiff(combinedText)) {
    seen.add(file.path);
    const sides = own
      .filter((o) => o.files.has(file.path))
      .map((o) => ({ name: o.name, file: o.files.get(file.path)! }));
    const conflict = conflicted.get(file.path);
    if (conflict !== undefined) {
      files.push(conflictFile(file, sides, [...conflict], blobs));
      continue;
    }
    attribute(file, sides);
    files.push({
      ...file,
      sessions: sides.map((s) => s.name),
      conflict: null,
      contentKey: blobs.get(`0:${file.path}`) ?? 'deleted',
      omittedLines: 0,
    });
  }
  // A conflict the merge resolved to the base's content (say, one side deleted what the other changed) still needs a look.
  for (const [path, who] of conflicted) {
    if (seen.has(path)) continue;
    const sides = own
      .filter((o) => o.files.has(path))
      .map((o) => ({ name: o.name, file: o.files.get(path)! }));
    if (sides.length > 0) files.push(conflictFile({ ...sides[0]!.file, hunks: [] }, sides, [...who], blobs));
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  let shown = 0;
  for (const file of files) {
    const changed = file.hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind !== ' ').length, 0);
    if (changed > MAX_FILE_LINES || shown + changed > MAX_TOTAL_LINES) {
      file.hunks = [];
      file.omittedLines = changed;
    } else shown += changed;
  }
  return { tree, files };
}

function conflictFile(
  file: FileDiff,
  sides: { name: string; file: FileDiff }[],
  who: string[],
  blobs: Map<string, string>,
): CombinedFile {
  const hunks = sides.flatMap((side) =>
    side.file.hunks.map((h) => ({
      ...h,
      sessions: [side.name],
      lines: h.lines.map((l) => ({ ...l, by: l.kind === ' ' ? [] : [side.name] })),
    })),
  );
  // The merged blob holds both sides (between conflict markers), so it changes when either does.
  const contentKey = `conflict:${blobs.get(`0:${file.path}`) ?? 'deleted'}`;
  return {
    ...file,
    hunks,
    sessions: sides.map((s) => s.name),
    conflict: { sessions: who.length > 0 ? who : sides.map((s) => s.name) },
    contentKey,
    omittedLines: 0,
  };
}

/** Blob ids of the combined tree, by `0:<path>`. */
async function blobIds(cwd: string, tree: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const { stdout } = await git(cwd, ['ls-tree', '-r', '-z', '--full-tree', tree]);
  for (const entry of stdout.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab > 0) out.set(`0:${entry.slice(tab + 1)}`, entry.slice(0, tab).split(' ')[2] ?? '');
  }
  return out;
}
