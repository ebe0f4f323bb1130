/** The scripted agent borrows Claude Code's tool names, so its transcripts read like a real agent's. */
import type { ToolKind } from '../types.js';

export const WRITE_TOOL = 'Write';
export const EDIT_TOOL = 'Edit';
export const SHELL_TOOL = 'Bash';

const TOOL_KINDS: Record<string, ToolKind> = { [WRITE_TOOL]: 'edit', [EDIT_TOOL]: 'edit', [SHELL_TOOL]: 'run', Read: 'read' };

/** A script's `approve` step may name any tool; names it does not know are 'other'. */
export function toolKind(tool: string): ToolKind {
  return Object.hasOwn(TOOL_KINDS, tool) ? (TOOL_KINDS[tool] ?? 'other') : 'other';
}
