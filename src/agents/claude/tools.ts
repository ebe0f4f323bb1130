/** How Claude Code's tools read in events: their kind, a short description and the files they touch. */
import { isAbsolute, relative, resolve } from 'node:path';
import type { GateCall, ToolKind } from '../types.js';

const MAX_INPUT = 2_000;

/** Claude Code's built-in tools by kind; anything else (Task, TodoWrite, MCP tools, …) is 'other'. */
const TOOL_KINDS: Record<string, ToolKind> = {
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Read: 'read',
  NotebookRead: 'read',
  Bash: 'run',
  BashOutput: 'run',
  KillShell: 'run',
  KillBash: 'run',
  Glob: 'search',
  Grep: 'search',
  LS: 'search',
  WebFetch: 'web',
  WebSearch: 'web',
};

export function toolKind(tool: string): ToolKind {
  return Object.hasOwn(TOOL_KINDS, tool) ? (TOOL_KINDS[tool] ?? 'other') : 'other';
}

/** Tools whose input names a file they write. */
const FILE_WRITERS: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

export function describeToolInput(tool: string, input: Record<string, unknown>): string {
  const main =
    tool === 'Bash'
      ? input.command
      : (input[FILE_WRITERS[tool] ?? 'file_path'] ?? input.pattern ?? input.url ?? input.query);
  const text = typeof main === 'string' ? main : JSON.stringify(input);
  return text.length > MAX_INPUT ? `${text.slice(0, MAX_INPUT)}…` : text;
}

export function filesOfToolInput(
  tool: string,
  input: Record<string, unknown>,
  cwd: string,
): string[] | undefined {
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

/** A Claude Code tool call as the gate sees it: a command to run, or the file an edit writes. */
export function gateCall(tool: string, input: Record<string, unknown>): GateCall {
  const kind = toolKind(tool);
  if (tool === 'Bash' && typeof input.command === 'string') return { tool, kind, command: input.command };
  const key = FILE_WRITERS[tool];
  const path = key === undefined ? undefined : input[key];
  return typeof path === 'string' ? { tool, kind, paths: [path] } : { tool, kind };
}
