/**
 * Reading `git diff -U0` and `git blame --porcelain`: which lines a commit added, where a line of
 * one version of a file sits in another, and which commit each line of a file comes from. Pure,
 * so the line arithmetic is tested apart from git.
 */

/** One hunk of a zero-context diff: `count` lines at `start` of the old side became `newCount` at `newStart`. */
export interface Hunk {
  start: number;
  count: number;
  newStart: number;
  newCount: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of `git diff -U0` output, by the new side's path (a deleted file is left out). */
export function parseDiff(text: string): Map<string, Hunk[]> {
  const files = new Map<string, Hunk[]>();
  let current: Hunk[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = undefined;
      continue;
    }
    if (line.startsWith('+++ ')) {
      const path = line.slice(4);
      if (path === '/dev/null') current = undefined;
      else {
        current = [];
        files.set(unquote(path).replace(/^b\//, ''), current);
      }
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk === null || current === undefined) continue;
    current.push({
      start: Number(hunk[1]),
      count: hunk[2] === undefined ? 1 : Number(hunk[2]),
      newStart: Number(hunk[3]),
      newCount: hunk[4] === undefined ? 1 : Number(hunk[4]),
    });
  }
  return files;
}

/** Git quotes a path with unusual characters in C style; this reads the common escapes back. */
function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const inner = path.slice(1, -1);
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = inner[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(inner.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The new side's line numbers a diff added (1-based, ascending). */
export function addedLines(hunks: readonly Hunk[]): number[] {
  const lines: number[] = [];
  for (const h of hunks) for (let i = 0; i < h.newCount; i++) lines.push(h.newStart + i);
  return lines;
}

/**
 * Where line `line` of the old side is on the new side, or undefined when the diff removed or
 * changed it. A hunk that removes nothing (`count` 0) inserts after its `start`.
 */
export function mapLine(hunks: readonly Hunk[], line: number): number | undefined {
  let offset = 0;
  for (const h of hunks) {
    const from = h.count === 0 ? h.start + 1 : h.start;
    if (line < from) break;
    if (line < from + h.count) return undefined;
    offset += h.newCount - h.count;
  }
  return line + offset;
}

/** One line of `git blame --porcelain`: the commit it comes from, its number there, and its path there. */
export interface BlamedLine {
  commit: string;
  origLine: number;
  line: number;
  path: string;
  text: string;
  boundary: boolean;
  author: string;
  authorMail: string;
  authorTime: number;
  summary: string;
}

const HEADER = /^([0-9a-f]{40,64}) (\d+) (\d+)(?: \d+)?$/;

export function parseBlame(text: string): BlamedLine[] {
  const commits = new Map<
    string,
    {
      author: string;
      authorMail: string;
      authorTime: number;
      summary: string;
      boundary: boolean;
      path: string;
    }
  >();
  const lines: BlamedLine[] = [];
  let header: { commit: string; origLine: number; line: number } | undefined;
  let path: string | undefined;
  for (const raw of text.split('\n')) {
    if (header === undefined) {
      const match = HEADER.exec(raw);
      if (match !== null) {
        header = { commit: match[1]!, origLine: Number(match[2]), line: Number(match[3]) };
        path = undefined;
        if (!commits.has(header.commit))
          commits.set(header.commit, {
            author: '',
            authorMail: '',
            authorTime: 0,
            summary: '',
            boundary: false,
            path: '',
          });
      }
      continue;
    }
    const info = commits.get(header.commit)!;
    if (raw.startsWith('\t')) {
      lines.push({
        ...header,
        path: path ?? info.path,
        text: raw.slice(1),
        boundary: info.boundary,
        author: info.author,
        authorMail: info.authorMail,
        authorTime: info.authorTime,
        summary: info.summary,
      });
      header = undefined;
      continue;
    }
    const space = raw.indexOf(' ');
    const key = space === -1 ? raw : raw.slice(0, space);
    const value = space === -1 ? '' : raw.slice(space + 1);
    if (key === 'author') info.author = value;
    else if (key === 'author-mail') info.authorMail = value.replace(/^<|>$/g, '');
    else if (key === 'author-time') info.authorTime = Number(value);
    else if (key === 'summary') info.summary = value;
    else if (key === 'boundary') info.boundary = true;
    else if (key === 'filename') {
      path = value;
      info.path = value;
    }
  }
  return lines;
}
