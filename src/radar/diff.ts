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
    '-U3',
    from,
    to,
    '--',
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
    files.set(path, { path, hunks: binary ? [WHOLE_FILE] : hunksOf(section), diff: section, binary });
  }
  return files;
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
