/**
 * A unified diff parsed into files and hunks, and each line of the combined diff attributed to
 * the session(s) whose own diff against the same base has it. All diffs share the base, so base
 * line numbers are one coordinate system: a removed line is the session's that removed that base
 * line; an added line is the session's that added the same text at the same place in the base
 * (or, failing that, the same text anywhere in the file, for lines a merge moved).
 */

export interface DiffLine {
  kind: '+' | '-' | ' ';
  text: string;
  /** Line number in the base (removed and context lines). */
  old: number | null;
  /** Line number in the result (added and context lines). */
  new: number | null;
  /** Names of the sessions that wrote this line (empty for context, or a line no session has). */
  by: string[];
}

export interface Hunk {
  header: string;
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: DiffLine[];
  /** Sessions that wrote any line of the hunk. */
  sessions: string[];
}

export interface FileDiff {
  path: string;
  oldPath: string | null;
  status: 'added' | 'deleted' | 'modified';
  binary: boolean;
  hunks: Hunk[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function parseDiff(text: string): FileDiff[] {
  const files: FileDiff[] = [];
  let file: FileDiff | undefined;
  let hunk: Hunk | undefined;
  let oldLine = 0;
  let newLine = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      file = { path: '', oldPath: null, status: 'modified', binary: false, hunks: [] };
      hunk = undefined;
      files.push(file);
      const m = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      if (m) file.path = m[2]!;
      continue;
    }
    if (file === undefined) continue;
    if (hunk === undefined || !/^[ +\-\\]/.test(line)) {
      const h = HUNK.exec(line);
      if (h) {
        oldLine = Number(h[1]);
        newLine = Number(h[3]);
        hunk = {
          header: line,
          oldStart: oldLine,
          oldCount: Number(h[2] ?? 1),
          newStart: newLine,
          newCount: Number(h[4] ?? 1),
          lines: [],
          sessions: [],
        };
        file.hunks.push(hunk);
      } else if (line.startsWith('--- ')) {
        if (line === '--- /dev/null') file.status = 'added';
        else file.oldPath = unquote(line.slice(4));
      } else if (line.startsWith('+++ ')) {
        if (line === '+++ /dev/null') file.status = 'deleted';
        else file.path = unquote(line.slice(4));
      } else if (line.startsWith('new file mode')) file.status = 'added';
      else if (line.startsWith('deleted file mode')) file.status = 'deleted';
      else if (line.startsWith('Binary files ')) file.binary = true;
      continue;
    }
    if (line.startsWith('\\')) continue; // "\ No newline at end of file"
    const kind = line[0] as DiffLine['kind'];
    const text = line.slice(1);
    if (kind === '-') hunk.lines.push({ kind, text, old: oldLine++, new: null, by: [] });
    else if (kind === '+') hunk.lines.push({ kind, text, old: null, new: newLine++, by: [] });
    else hunk.lines.push({ kind, text, old: oldLine++, new: newLine++, by: [] });
  }
  for (const f of files) {
    if (f.status === 'deleted' && f.oldPath !== null) f.path = f.oldPath;
    if (f.oldPath === f.path) f.oldPath = null;
  }
  return files;
}

/**
 * A `---`/`+++` path without its `a/`/`b/` prefix. Git quotes paths with unusual characters
 * (`"a/caf\303\251.ts"`, octal bytes) and ends a path holding spaces with a tab.
 */
function unquote(path: string): string {
  const trimmed = path.replace(/\t$/, '');
  if (!trimmed.startsWith('"')) return trimmed.replace(/^[ab]\//, '');
  const body = trimmed.slice(1, -1).replace(/^[ab]\//, '');
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c));
      continue;
    }
    const next = body[++i]!;
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else
      bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

interface Fingerprint {
  removed: Set<number>;
  /** `${base line the addition follows}\0${text}` */
  placed: Set<string>;
  texts: Set<string>;
}

function fingerprint(file: FileDiff): Fingerprint {
  const fp: Fingerprint = { removed: new Set(), placed: new Set(), texts: new Set() };
  for (const hunk of file.hunks) {
    let after = hunk.oldStart - 1;
    for (const line of hunk.lines) {
      if (line.kind === '-') fp.removed.add(line.old!);
      if (line.kind === '+') {
        fp.placed.add(`${after}\0${line.text}`);
        fp.texts.add(line.text);
      } else after = line.old!;
    }
  }
  return fp;
}

/**
 * Sets `by` on every changed line of `combined` and `sessions` on every hunk, from each
 * member's own diff of the same file against the same base.
 */
export function attribute(combined: FileDiff, members: readonly { name: string; file: FileDiff }[]): void {
  const prints = members.map((m) => ({ name: m.name, fp: fingerprint(m.file) }));
  for (const hunk of combined.hunks) {
    let after = hunk.oldStart - 1;
    const sessions = new Set<string>();
    for (const line of hunk.lines) {
      if (line.kind === '-') line.by = prints.filter((p) => p.fp.removed.has(line.old!)).map((p) => p.name);
      else if (line.kind === '+') {
        const key = `${after}\0${line.text}`;
        const placed = prints.filter((p) => p.fp.placed.has(key));
        line.by = (placed.length > 0 ? placed : prints.filter((p) => p.fp.texts.has(line.text))).map(
          (p) => p.name,
        );
      } else after = line.old!;
      if (line.kind !== ' ') {
        if (line.kind === '-') after = line.old!;
        line.by.forEach((n) => sessions.add(n));
      }
    }
    hunk.sessions = members.map((m) => m.name).filter((n) => sessions.has(n));
  }
}

/** The hunk of one file as a unified diff of its own (for a viewer that renders diffs). */
export function hunkText(file: FileDiff, hunk: Hunk): string {
  const from = file.status === 'added' ? '/dev/null' : `a/${file.oldPath ?? file.path}`;
  const to = file.status === 'deleted' ? '/dev/null' : `b/${file.path}`;
  const body = hunk.lines.map((l) => `${l.kind}${l.text}`).join('\n');
  return `diff --git a/${file.oldPath ?? file.path} b/${file.path}\n--- ${from}\n+++ ${to}\n${hunk.header}\n${body}\n`;
}
