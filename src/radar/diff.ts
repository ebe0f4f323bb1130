/**
 * One side's change against a merge base, file by file: the exact line ranges it changes (in the
 * base's lines) and the file's diff text for people. Both come from one `git diff -U3`: the
 * ranges are read off the hunk bodies line by line, so context lines never count as changed and
 * two edits three lines apart stay two hunks (a `-U0` diff would give the same ranges, but no
 * readable diff to show the other session).
 */
import type { LineRange } from '../api/conflicts.js';

export interface FileChange {
  path: string;
  /** Changed ranges in the base's lines; a binary file is one range covering it all. */
  hunks: LineRange[];
  diff: string;
  binary: boolean;
  /** The file's blob after the change (all zeros: deleted); two sides ending on the same blob merge cleanly. */
  blob?: string;
  /** Whether the file is new or gone (a rename is both, as the diff has no renames), else changed in place. */
  kind: 'changed' | 'added' | 'deleted';
  /** The file's mode after the change, when the diff says it (`160000`: a submodule). */
  mode?: string;
}

export type WorkDiff = Map<string, FileChange>;

/** The arguments for a diff from `from` (a commit or tree) to `to` (a tree), parsed by `parseDiff`. */
export function diffArgs(from: string, to: string): string[] {
  return [
    '-c',
    'core.quotePath=false',
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--full-index',
    '-U3',
    from,
    to,
    '--',
  ];
}

/**
 * The arguments for the exact line changes between two commits (`-U0`), limited to `paths`:
 * how a base that moved shifts the lines of the files two sessions both change (`parseShifts`).
 */
export function shiftArgs(from: string, to: string, paths: string[]): string[] {
  return [
    '-c',
    'core.quotePath=false',
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '-U0',
    from,
    to,
    '--',
    ...paths.map((path) => `:(literal)${path}`),
  ];
}

const WHOLE_FILE: LineRange = { start: 0, count: Number.MAX_SAFE_INTEGER };

export function parseDiff(text: string): WorkDiff {
  const files: WorkDiff = new Map();
  const sections = text.split(/^(?=diff --git )/m).filter((s) => s.startsWith('diff --git '));
  for (const section of sections) {
    const path = pathOf(section);
    if (path === undefined) continue;
    const binary = /^Binary files .* differ$/m.test(section);
    const blob = /^index [0-9a-f]+\.\.([0-9a-f]+)/m.exec(section)?.[1];
    const header = section.slice(0, headerEnd(section));
    const kind = /^new file mode /m.test(header)
      ? 'added'
      : /^deleted file mode /m.test(header)
        ? 'deleted'
        : 'changed';
    const mode = /^(?:new file mode|new mode|index [0-9a-f]+\.\.[0-9a-f]+) (\d+)$/m.exec(header)?.[1];
    files.set(path, {
      path,
      hunks: binary ? [WHOLE_FILE] : hunksOf(section),
      diff: section,
      binary,
      ...(blob === undefined ? {} : { blob }),
      kind,
      ...(mode === undefined ? {} : { mode }),
    });
  }
  return files;
}

/** One change between two versions of a file, from a `-U0` hunk header: old lines replaced by new ones. */
export interface Shift {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** Per path, the changes of a `-U0` diff (`shiftArgs`); a binary file's change is the whole file. */
export function parseShifts(text: string): Map<string, Shift[] | 'whole'> {
  const out = new Map<string, Shift[] | 'whole'>();
  const sections = text.split(/^(?=diff --git )/m).filter((s) => s.startsWith('diff --git '));
  for (const section of sections) {
    const path = pathOf(section);
    if (path === undefined) continue;
    if (/^Binary files .* differ$/m.test(section)) {
      out.set(path, 'whole');
      continue;
    }
    const shifts: Shift[] = [];
    for (const m of section.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm))
      shifts.push({
        oldStart: Number(m[1]),
        oldCount: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newCount: m[4] === undefined ? 1 : Number(m[4]),
      });
    out.set(path, shifts);
  }
  return out;
}

/**
 * A line of the old version in the new version's lines, as a closed span: moved by the changes
 * above it, or the whole replacement when a change replaced it (an empty span `[n+1, n]` when
 * the change deleted it: nothing there any more, the place sits after line n).
 */
function mapLine(line: number, shifts: Shift[]): [number, number] {
  let delta = 0;
  for (const s of shifts) {
    if (s.oldCount === 0) {
      // An insertion after old line `oldStart`.
      if (s.oldStart < line) delta += s.newCount;
      else break;
      continue;
    }
    const oldEnd = s.oldStart + s.oldCount - 1;
    if (oldEnd < line) {
      delta += s.newCount - s.oldCount;
      continue;
    }
    if (s.oldStart <= line)
      return s.newCount === 0 ? [s.newStart + 1, s.newStart] : [s.newStart, s.newStart + s.newCount - 1];
    break;
  }
  return [line + delta, line + delta];
}

/**
 * Ranges of one version's lines carried into another's, through the changes between the two
 * (`parseShifts`): how two sessions that forked from different base commits are compared in the
 * same lines. A file changed as a whole (binary) maps to the whole file.
 */
export function mapRanges(ranges: LineRange[], shifts: Shift[] | 'whole' | undefined): LineRange[] {
  if (shifts === undefined || shifts.length === 0) return ranges;
  if (shifts === 'whole') return ranges.length === 0 ? ranges : [WHOLE_FILE];
  return ranges.map((range) => {
    if (range.count >= Number.MAX_SAFE_INTEGER) return range;
    if (range.count === 0) {
      // An insertion after line `start`: after wherever that line went (or at the top).
      if (range.start === 0) return range;
      const [, hi] = mapLine(range.start, shifts);
      return { start: Math.max(0, hi), count: 0 };
    }
    const [lo] = mapLine(range.start, shifts);
    const [, hi] = mapLine(range.start + range.count - 1, shifts);
    return hi >= lo ? { start: lo, count: hi - lo + 1 } : { start: Math.max(0, lo - 1), count: 0 };
  });
}

/** Where a section's extended header ends: its first `---`, `Binary files` or hunk line (a file's own lines could look like header lines). */
function headerEnd(section: string): number {
  const found = /^(?:--- |Binary files |@@ )/m.exec(section);
  return found === null ? section.length : found.index;
}

/** `diff --git a/P b/P` (no renames: both names are the same), either unquoted or C-quoted. */
function pathOf(section: string): string | undefined {
  const line = section.slice(
    'diff --git '.length,
    section.indexOf('\n') === -1 ? undefined : section.indexOf('\n'),
  );
  if (line.startsWith('"')) {
    const first = unquote(line);
    return first?.value.replace(/^a\//, '');
  }
  if ((line.length - 5) % 2 !== 0) return undefined;
  return line.slice(2, 2 + (line.length - 5) / 2);
}

/** A C-style quoted string at the start of `text` (git's quoting of unusual paths). */
function unquote(text: string): { value: string; length: number } | undefined {
  const bytes: number[] = [];
  for (let i = 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') return { value: Buffer.from(bytes).toString('utf8'), length: i + 1 };
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = text[++i] ?? '';
    const octal = /^[0-7]{3}/.exec(text.slice(i));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 2;
    } else
      bytes.push(
        ({ n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11 } as Record<string, number>)[next] ??
          next.charCodeAt(0),
      );
  }
  return undefined;
}

/** Changed ranges of a text file's hunks: runs of removed lines, and insertion points. */
function hunksOf(section: string): LineRange[] {
  const ranges: LineRange[] = [];
  const lines = section.split('\n');
  let oldLine = 0;
  let inHunk = false;
  let run: LineRange | undefined;
  const close = (): void => {
    if (run !== undefined) ranges.push(run);
    run = undefined;
  };
  for (const line of lines) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (header) {
      close();
      inHunk = true;
      const start = Number(header[1]);
      const count = header[2] === undefined ? 1 : Number(header[2]);
      // A hunk with no old lines is an insertion after line `start`; otherwise it starts at `start`.
      oldLine = count === 0 ? start + 1 : start;
      continue;
    }
    if (!inHunk) continue;
    const mark = line[0];
    if (mark === '-') {
      if (run === undefined || run.start + run.count !== oldLine) {
        close();
        run = { start: oldLine, count: 0 };
      }
      run.count++;
      oldLine++;
    } else if (mark === '+') {
      // Added lines extend the run they follow, or are an insertion after the line before.
      run ??= { start: oldLine - 1, count: 0 };
    } else if (mark === ' ') {
      close();
      oldLine++;
    } else if (mark !== '\\') {
      close();
      inHunk = false;
    }
  }
  close();
  return ranges;
}

/** The base lines a range touches, as a closed interval; an insertion after line n sits between n and n+1. */
function span(range: LineRange): [number, number] {
  return range.count === 0
    ? [range.start + 0.5, range.start + 0.5]
    : [range.start, range.start + range.count - 1];
}

/**
 * Whether two sides' changes to a file collide: overlapping or adjacent ranges (git refuses to
 * merge changes that touch neighbouring lines too), or two insertions at the same place.
 */
export function rangesCollide(a: LineRange, b: LineRange): boolean {
  const [a0, a1] = span(a);
  const [b0, b1] = span(b);
  return a0 <= b1 + 1 && b0 <= a1 + 1;
}

export function hunksCollide(a: LineRange[], b: LineRange[]): boolean {
  return a.some((x) => b.some((y) => rangesCollide(x, y)));
}
