/** How Claude Code's tool inputs read in events: a short description and the files they touch. */
import { isAbsolute, relative, resolve } from 'node:path';

const MAX_INPUT = 2_000;

/** Tools whose input names a file they write. */
const FILE_WRITERS: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

export function describeToolInput(tool: string, input: Record<string, unknown>): string {
  const main = tool === 'Bash' ? input.command : (input[FILE_WRITERS[tool] ?? 'file_path'] ?? input.pattern ?? input.url);
  const text = typeof main === 'string' ? main : JSON.stringify(input);
  return text.length > MAX_INPUT ? `${text.slice(0, MAX_INPUT)}…` : text;
}

export function filesOfToolInput(tool: string, input: Record<string, unknown>, cwd: string): string[] | undefined {
  const key = FILE_WRITERS[tool];
  const path = key === undefined ? undefined : input[key];
  return typeof path === 'string' && path !== '' ? [relativeToCwd(path, cwd)] : undefined;
}

/** Relative to the worktree; a path outside it stays absolute so out-of-scope edits stand out. */
export function relativeToCwd(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
}
