/**
 * The radar's git: the real CLI with a time limit on every call (a merge-tree of a branch far
 * behind its base can run for minutes; one slow pair must not hang the pass), a cap on how many
 * run at once (the machine is shared with the agents), and a count, so tests and the pass's
 * figures can tell a cached answer from a recomputed one.
 */
import { git, type GitOptions, type GitResult } from '../worktrees/index.js';

export const DEFAULT_GIT_TIMEOUT_MS = 10_000;
export const DEFAULT_GIT_PARALLEL = 4;

export type GitCall = (cwd: string, args: string[], options?: GitOptions) => Promise<GitResult>;

export class GitRunner {
  calls = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: { timeoutMs?: number; parallel?: number; call?: GitCall } = {}) {}

  async run(cwd: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
    const limit = this.options.parallel ?? DEFAULT_GIT_PARALLEL;
    if (this.running >= limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    this.calls++;
    try {
      return await (this.options.call ?? git)(cwd, args, {
        timeoutMs: this.options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS,
        ...options,
      });
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  async out(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
    return (await this.run(cwd, args, options)).stdout.trim();
  }
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
