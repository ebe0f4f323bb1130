/**
 * One attempt as the comparison shows it: the repository's check run on its work (in a scratch
 * worktree of a snapshot, never in the agent's own worktree, which it may still be using), the
 * size of its diff, its files, cost and time, and the live work of other sessions it collides
 * with. A check result is kept with the tree it ran on: unchanged work is not checked twice.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { AttemptView, CheckSummary } from '../api/attempts.js';
import type { ConflictsView } from '../api/conflicts.js';
import { type CheckCommand, describeCheck, runCheck, withScratchWorktree } from '../merge/index.js';
import { DEFAULT_CHECK_SECONDS, loadRepoConfig } from '../projects/index.js';
import { errorMessage } from '../shared/errors.js';
import { ACTIVE_STATES } from '../sessions/index.js';
import type { AttemptMemberRow } from '../store/attempts.js';
import type { SessionWithProject } from '../store/sessions.js';
import { sessionDiffStat, snapshotCommit, snapshotWork } from '../worktrees/index.js';

type Check = z.infer<typeof CheckSummary>;

/** What is kept of a comparison between requests (and after the attempt is archived). */
export interface SavedSummary {
  /** The tree the check ran on. */
  tree: string | null;
  check: Check;
  diff: AttemptView['diff'];
}

export interface CompareContext {
  home: string;
  groupId: string;
  env: NodeJS.ProcessEnv;
  /** The group's other sessions: their overlap with this one is expected, not a conflict. */
  siblings: ReadonlySet<string>;
  radar: (() => ConflictsView) | undefined;
  runChecks: boolean;
  now: Date;
  /** Checks running now, by tree and command: two requests share one run. */
  inFlight: Map<string, Promise<Check>>;
}

const NO_CHECK: Check = {
  outcome: 'none',
  command: null,
  exitCode: null,
  durationMs: null,
  outputTail: null,
};
const EMPTY_DIFF = { files: [], additions: 0, deletions: 0 };

export async function compareAttempt(
  member: AttemptMemberRow,
  session: SessionWithProject,
  ctx: CompareContext,
): Promise<{ view: AttemptView; saved: SavedSummary }> {
  const saved = member.summary_json === null ? undefined : (JSON.parse(member.summary_json) as SavedSummary);
  const gone = session.removed_at !== null || !existsSync(session.worktree);
  const kept = saved ?? { tree: null, check: NO_CHECK, diff: EMPTY_DIFF };
  const summary = gone
    ? kept
    : await measure(session, saved, ctx).catch((error: unknown) => {
        // Archived (or removed) while we read it: what was kept of it stands.
        if (!existsSync(session.worktree)) return kept;
        throw error;
      });
  const active = session.state === 'queued' || ACTIVE_STATES.includes(session.state);
  const end = active ? ctx.now.getTime() : Date.parse(session.last_event_at ?? session.updated_at);
  const view: AttemptView = {
    slot: member.slot,
    sessionId: session.id,
    name: session.name,
    agent: session.agent,
    state: session.state,
    branch: session.branch,
    archived: member.archived_at !== null,
    snapshotRef: member.archived_snapshot,
    winner: false,
    check: summary.check,
    diff: summary.diff,
    inputTokens: session.input_tokens,
    outputTokens: session.output_tokens,
    costUsd: session.cost_usd,
    seconds: Math.max(0, Math.round((end - Date.parse(session.created_at)) / 1000)),
    conflicts: gone ? [] : conflictsOf(session.id, ctx),
  };
  return { view, saved: summary };
}

async function measure(
  session: SessionWithProject,
  saved: SavedSummary | undefined,
  ctx: CompareContext,
): Promise<SavedSummary> {
  // Its own work: what landed on its base since it started is not part of the attempt (decision 148).
  const stat = await sessionDiffStat(session);
  const diff = { files: stat.files.map((f) => f.path), additions: stat.additions, deletions: stat.deletions };
  let config;
  try {
    config = loadRepoConfig(session.project_root);
  } catch (error) {
    return { tree: null, diff, check: { ...NO_CHECK, outcome: 'error', outputTail: errorMessage(error) } };
  }
  const command = config.merge?.check;
  if (command === undefined) return { tree: null, diff, check: NO_CHECK };
  const described = describeCheck(command);
  const pending: Check = { ...NO_CHECK, outcome: 'pending', command: described };
  // Work still changing is not checked: the result would describe a moment, not the attempt.
  if (session.state === 'queued' || ACTIVE_STATES.includes(session.state))
    return { tree: null, diff, check: pending };
  const snapshot = await snapshotWork(session.worktree);
  if (saved?.tree === snapshot.tree && saved.check.command === described && saved.check.outcome !== 'pending')
    return { tree: snapshot.tree, diff, check: saved.check };
  if (!ctx.runChecks) return { tree: null, diff, check: pending };
  const key = `${snapshot.tree}\0${described}`;
  let running = ctx.inFlight.get(key);
  if (running === undefined) {
    running = checkSnapshot(
      session,
      snapshot,
      command,
      config.merge?.checkTimeoutSeconds ?? DEFAULT_CHECK_SECONDS,
      ctx,
    ).finally(() => ctx.inFlight.delete(key));
    ctx.inFlight.set(key, running);
  }
  return { tree: snapshot.tree, diff, check: await running };
}

async function checkSnapshot(
  session: SessionWithProject,
  snapshot: { head: string; tree: string },
  command: CheckCommand,
  timeoutSeconds: number,
  ctx: CompareContext,
): Promise<Check> {
  try {
    const commit = await snapshotCommit(
      session.worktree,
      snapshot,
      `baton: attempt ${session.name} as checked`,
    );
    const scratch = join(ctx.home, 'attempts', ctx.groupId, `${session.name}-${snapshot.tree.slice(0, 10)}`);
    const result = await withScratchWorktree(session.project_root, scratch, commit, (cwd) =>
      runCheck(command, { cwd, timeoutSeconds, env: ctx.env }),
    );
    return {
      outcome: result.outcome,
      command: result.command,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      outputTail: result.outputTail,
    };
  } catch (error) {
    return {
      ...NO_CHECK,
      outcome: 'error',
      command: describeCheck(command),
      outputTail: errorMessage(error),
    };
  }
}

function conflictsOf(sessionId: string, ctx: CompareContext): AttemptView['conflicts'] {
  if (ctx.radar === undefined) return [];
  const out: AttemptView['conflicts'] = [];
  for (const conflict of ctx.radar().conflicts) {
    const other =
      conflict.a.sessionId === sessionId
        ? conflict.b
        : conflict.b.kind === 'session' && conflict.b.sessionId === sessionId
          ? conflict.a
          : undefined;
    if (other === undefined) continue;
    if (other.kind === 'session' && ctx.siblings.has(other.sessionId)) continue;
    out.push({
      with: other.kind === 'base' ? `${other.ref} (base)` : other.name,
      level: conflict.level,
      files: conflict.files.map((f) => f.path),
    });
  }
  return out;
}
