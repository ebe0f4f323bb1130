/**
 * `baton blame`: git's own blame of a file, each line then looked up in the note of the commit it
 * comes from (notes.ts). A line no session's turn wrote keeps git's answer: the commit, its author
 * and its subject (a person, or a tool outside Baton).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, basename } from 'node:path';
import { InvalidInputError, NotAGitRepositoryError } from '../shared/errors.js';
import { git } from '../worktrees/index.js';
import { parseBlame } from './diff.js';
import { readNotes, turnAt } from './notes.js';
import type { TurnRecord } from './record.js';

export interface BlameLine {
  line: number;
  text: string;
  commit: string;
  /** The path in the commit the line comes from (the file may have been renamed since). */
  path: string;
  author: string;
  authorMail: string;
  at: string;
  summary: string;
  /** The turn that wrote it, when a session of Baton's did; null for a person's (or a tool's) line. */
  turn: TurnRecord | null;
}

/** `file`, `file:12`, `file:12-20`. A file name may itself hold a colon: only a trailing `:<n>[-<n>]` is a range. */
export function parseBlameSpec(spec: string): { path: string; from?: number; to?: number } {
  const match = /^(.*):(\d+)(?:-(\d+))?$/.exec(spec);
  if (match === null) return { path: spec };
  const from = Number(match[2]);
  const to = match[3] === undefined ? from : Number(match[3]);
  if (from < 1 || to < from)
    throw new InvalidInputError(
      `"${spec}": a range is <first>-<last> with 1 ≤ first ≤ last, as in file.ts:10-20.`,
    );
  return { path: match[1]!, from, to };
}

/** Blames `path` (relative to `cwd`) as it is in the checkout, lines `from`..`to` when given. */
export async function blameFile(cwd: string, path: string, from?: number, to?: number): Promise<BlameLine[]> {
  if (path === '' || path.startsWith('-')) throw new InvalidInputError(`"${path}" is not a file to blame.`);
  // No file name holds a NUL; passed on, it fails the spawn itself with an internal error.
  if (path.includes('\0') || cwd.includes('\0'))
    throw new InvalidInputError(`${JSON.stringify(path)} holds a NUL character: no file is named so.`);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw new InvalidInputError(`${cwd} is not a folder.`);
  const inside = await git(cwd, ['rev-parse', '--is-inside-work-tree'], { okExitCodes: [128] });
  if (inside.exitCode !== 0) throw new NotAGitRepositoryError(cwd);
  const range = from === undefined ? [] : ['-L', `${from},${to ?? from}`];
  const blamed = await git(cwd, ['--literal-pathspecs', 'blame', '--porcelain', ...range, '--', path], {
    okExitCodes: [128],
  });
  if (blamed.exitCode !== 0) throw new InvalidInputError(blameRefusal(path, blamed.stderr));
  const lines = parseBlame(blamed.stdout);
  const commits = [...new Set(lines.map((l) => l.commit))].filter((sha) => !/^0+$/.test(sha));
  const notes = await readNotes(cwd, commits);
  return lines.map((l) => {
    const note = notes.get(l.commit);
    return {
      line: l.line,
      text: l.text,
      commit: l.commit,
      path: l.path,
      author: l.author,
      authorMail: l.authorMail,
      at: l.authorTime === 0 ? '' : new Date(l.authorTime * 1000).toISOString(),
      summary: l.summary,
      turn: (note === undefined ? undefined : turnAt(note, l.path, l.origLine)) ?? null,
    };
  });
}

/** Git's refusal in words that say what to do. */
function blameRefusal(path: string, stderr: string): string {
  const said = stderr.trim().split('\n').at(-1) ?? '';
  if (/no such path|no such file/i.test(said))
    return `${path} is not in this repository's history (nor on disk); give a file git knows, as in \`baton blame ${basename(path) === path ? path : `${dirname(path)}/${basename(path)}`}\`.`;
  if (/has only \d+ lines?/.test(said))
    return `${said.replace(/^fatal: /, '')}; give a range inside the file.`;
  return `git blame refused ${path}: ${said.replace(/^fatal: /, '')}`;
}
