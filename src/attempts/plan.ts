/**
 * What a group will start, decided before anything is: the agent of each attempt, the items of
 * each batch, the sessions' names and prompts, and the caps. Pure functions; the service starts
 * the sessions.
 */
import type { AgentId } from '../events/vocabulary.js';
import type { RepoConfig } from '../projects/index.js';
import { InvalidInputError } from '../shared/errors.js';

export const DEFAULT_MAX_ATTEMPTS = 8;
export const DEFAULT_MAX_BATCHES = 50;

/** One agent per attempt: `agents` as given when it names each, or its one agent `n` times. */
export function attemptAgents(
  agents: readonly AgentId[],
  n: number | undefined,
  config: RepoConfig,
): AgentId[] {
  const count = n ?? agents.length;
  const max = config.attempts?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (count > max) {
    throw new InvalidInputError(
      `--best-of ${count} is over this repository's cap of ${max} attempts; ask for fewer, or raise attempts.maxAttempts in .baton/config.json.`,
      { reason: 'over_cap', max },
    );
  }
  if (count < 2)
    throw new InvalidInputError(
      `--best-of needs at least 2 attempts to compare (got ${count}); for one session use \`baton dispatch\` without it.`,
    );
  if (agents.length === 1) return Array.from({ length: count }, () => agents[0]!);
  if (agents.length !== count) {
    throw new InvalidInputError(
      `--agents names ${agents.length} agents for ${count} attempts; name one agent (used for every attempt) or one per attempt.`,
    );
  }
  return [...agents];
}

/** `items` in batches of `size`, in order; the last may be smaller. */
export function batches<T>(items: readonly T[], size: number, config: RepoConfig): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new InvalidInputError(`--batch takes a whole number of items per batch, at least 1 (got ${size}).`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  const max = config.attempts?.maxBatches ?? DEFAULT_MAX_BATCHES;
  if (out.length > max) {
    throw new InvalidInputError(
      `${items.length} items in batches of ${size} make ${out.length} batches, over this repository's cap of ${max}; use a larger --batch, or raise attempts.maxBatches in .baton/config.json.`,
      { reason: 'over_cap', max },
    );
  }
  return out;
}

/** What the ledger of finished items reads (decision 301): one line per finished item. */
export const DONE_ASK =
  'As you finish each item, write a line `done: <the item as listed>` in your reply, so a batch resumed after a usage limit, or retried, redoes none of them:';

/** A batch session's prompt: the shared instruction, then its items, one per line. */
export function batchPrompt(prompt: string, items: readonly string[], batch: number, of: number): string {
  return `${prompt}\n\nDo this for each of the ${items.length} items below (batch ${batch} of ${of}; other sessions have the other batches, so touch only what these items need). ${DONE_ASK}\n${items.map((item) => `- ${item}`).join('\n')}\n`;
}

/** Names of a group's sessions: `<base>-a1`… for attempts, `<base>-b1`… for batches, `<name>-retry` for a retried batch. */
export function memberName(base: string, kind: 'best_of' | 'fanout', slot: number, attempt = 1): string {
  return `${base}-${kind === 'best_of' ? 'a' : 'b'}${slot}${attempt > 1 ? '-retry' : ''}`;
}
