/**
 * The Claude Code adapter, on the official Agent SDK (`query()` with streaming input): approvals
 * through `canUseTool`, replies as new turns, interrupt, resume by session id, usage and cost.
 */
import { InvalidInputError } from '../../shared/errors.js';
import type { AgentAdapter } from '../types.js';
import { findClaude } from './locate.js';
import { ClaudeRun } from './run.js';

export { ClaudeRun } from './run.js';

const OPTION_KEYS = ['claudePath'] as const;

export const claudeAgent: AgentAdapter = {
  id: 'claude',
  validateOptions(options, cwd) {
    const unknown = Object.keys(options).filter((k) => !(OPTION_KEYS as readonly string[]).includes(k));
    if (unknown.length > 0)
      throw new InvalidInputError(
        `Unknown option(s) for the claude agent: ${unknown.join(', ')}. Known: ${OPTION_KEYS.join(', ')}.`,
      );
    findClaude(options.claudePath, process.env, cwd);
    return options.claudePath === undefined ? {} : { claudePath: options.claudePath };
  },
  async start(options, emit) {
    const claudePath = findClaude(
      options.options.claudePath,
      { ...process.env, ...options.env },
      options.cwd,
    );
    const run = new ClaudeRun(options, emit, claudePath);
    run.start();
    return run;
  },
};
