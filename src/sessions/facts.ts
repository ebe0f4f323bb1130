/**
 * What only a session's own machine can say of it, read the same way for a local request and for
 * another machine's (src/cluster/peers/sessions.ts): its worktree's diff and changed files, and
 * its usage running totals.
 */
import type { UsagePoint } from '../api/web.js';
import type { BatonEvent } from '../events/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import { reportCost } from '../usage/index.js';
import { type ChangedFile, changedFiles, diffStat, worktreeDiff } from '../worktrees/index.js';

const USAGE_POINTS = 500;

export interface FactsSessions {
  latestEvents(sessionId: string, types: string[], limit: number): BatonEvent[];
  /** The session's spend as the usage ledger prices it. */
  costOf(session: SessionWithProject): number;
}

export function sessionDiff(session: SessionWithProject): Promise<{ text: string; truncated: boolean }> {
  return worktreeDiff(session.worktree, session.base_commit);
}

export async function sessionDiffStat(session: SessionWithProject) {
  const stat = await diffStat(session.worktree, session.base_commit);
  return {
    session: session.name,
    branch: session.branch,
    baseRef: session.base_ref,
    baseCommit: session.base_commit,
    ...stat,
  };
}

export function sessionFiles(session: SessionWithProject): Promise<ChangedFile[]> {
  return changedFiles(session.worktree, session.base_commit).catch(() => []);
}

export function sessionUsage(sessions: FactsSessions, session: SessionWithProject): { points: UsagePoint[] } {
  return {
    points: runningTotals(sessions.latestEvents(session.id, ['usage.reported'], USAGE_POINTS), {
      ...session,
      cost_usd: sessions.costOf(session),
    }),
  };
}

/**
 * Usage reports come newest first; the session row holds the totals, so walk back from them,
 * each report priced as the ledger prices it (decision 154), so the chart ends at the cost shown.
 */
function runningTotals(
  newestFirst: BatonEvent[],
  totals: { input_tokens: number; output_tokens: number; cost_usd: number; model: string | null },
): UsagePoint[] {
  let input = totals.input_tokens;
  let output = totals.output_tokens;
  let cost = totals.cost_usd;
  const points: UsagePoint[] = [];
  for (const event of newestFirst) {
    if (event.type !== 'usage.reported') continue;
    points.push({
      seq: event.seq,
      ts: event.ts,
      inputTokens: input,
      outputTokens: output,
      costUsd: Math.max(0, cost),
    });
    input -= event.inputTokens;
    output -= event.outputTokens;
    cost -= reportCost(event, totals.model).usd ?? 0;
  }
  return points.reverse();
}
