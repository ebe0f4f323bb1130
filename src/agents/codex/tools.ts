/** Codex's tool items as Baton names them: the tool shown to the user and its kind. */
import type { ToolKind } from '../types.js';

/** Codex runs commands through one shell tool and edits through patches. */
export const COMMAND_TOOL = 'shell';
export const PATCH_TOOL = 'apply_patch';
export const WEB_SEARCH_TOOL = 'web_search';

/** The app-server's item types that are tool calls, by kind. */
export const ITEM_KINDS = {
  commandExecution: 'run',
  fileChange: 'edit',
  webSearch: 'web',
  // An MCP server's tool can do anything; its name says nothing Baton can rely on.
  mcpToolCall: 'other',
} as const satisfies Record<string, ToolKind>;
