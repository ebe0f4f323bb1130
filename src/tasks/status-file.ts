/**
 * `.baton/status.md`: the repository's sessions as a table (agent, task, state, last update) for
 * tools that read files rather than the API. Rewritten whole, through a temporary file and a
 * rename, so a reader never sees half a table.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { gitOut } from '../worktrees/index.js';

export interface StatusRow {
  session: string;
  agent: string;
  task: { id: number; title: string; tracker: string | null } | null;
  state: string;
  updatedAt: string;
}

export const STATUS_FILE = join('.baton', 'status.md');

export function renderStatus(rows: readonly StatusRow[], now: Date): string {
  const lines = [
    '# Baton status',
    '',
    `Kept by Baton; rewritten on every change (last ${now.toISOString()}). Edits here are overwritten.`,
    '',
    '| session | agent | task | state | last update |',
    '|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const task =
      row.task === null
        ? '—'
        : `${row.task.id}. ${row.task.title}${row.task.tracker === null ? '' : ` (${row.task.tracker})`}`;
    lines.push(
      `| ${cell(row.session)} | ${cell(row.agent)} | ${cell(task)} | ${row.state.replace(/_/g, ' ')} | ${row.updatedAt} |`,
    );
  }
  if (rows.length === 0) lines.push('| — | — | — | — | — |');
  return lines.join('\n') + '\n';
}

export function writeStatus(root: string, text: string): void {
  const path = join(root, STATUS_FILE);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/** The paths `.git/info/exclude` keeps out of git when the repository does not commit Baton's files. */
export const EXCLUDED = ['/.baton/status.md', '/.baton/decisions/', '/.baton/notes/', '/.baton/*.tmp'];

/** Adds Baton's task files to the repository's own exclude file (never the committed .gitignore), once. */
export async function excludeTaskFiles(root: string): Promise<void> {
  const given = await gitOut(root, ['rev-parse', '--git-path', 'info/exclude']);
  const file = isAbsolute(given) ? given : join(root, given);
  const present = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const have = new Set(present.split('\n').map((line) => line.trim()));
  const missing = EXCLUDED.filter((line) => !have.has(line));
  if (missing.length === 0) return;
  mkdirSync(dirname(file), { recursive: true });
  const lead = present === '' || present.endsWith('\n') ? '' : '\n';
  appendFileSync(file, `${lead}# Baton's task files (tasks.commitFiles is off)\n${missing.join('\n')}\n`);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}
