/**
 * The Codex adapter, on `codex app-server` (JSON-RPC over stdio): threads and turns, command and
 * patch approvals, follow-up turns, interrupt, thread resume, usage as deltas of thread totals.
 */
import { InvalidInputError } from '../../shared/errors.js';
import type { AgentAdapter } from '../types.js';
import { findCodex, nativeCodex } from './locate.js';
import { CodexRun } from './run.js';

export { CodexRun } from './run.js';

const OPTION_KEYS = ['codexPath'] as const;

export const codexAgent: AgentAdapter = {
  id: 'codex',
  validateOptions(options, cwd) {
    const unknown = Object.keys(options).filter((k) => !(OPTION_KEYS as readonly string[]).includes(k));
    if (unknown.length > 0)
      throw new InvalidInputError(
        `Unknown option(s) for the codex agent: ${unknown.join(', ')}. Known: ${OPTION_KEYS.join(', ')}.`,
      );
    findCodex(options.codexPath, process.env, cwd);
    return options.codexPath === undefined ? {} : { codexPath: options.codexPath };
  },
  async start(options, emit) {
    const codexPath = nativeCodex(
      findCodex(options.options.codexPath, { ...process.env, ...options.env }, options.cwd),
    );
    const run = new CodexRun(options, emit, codexPath);
    run.start();
    return run;
  },
};
