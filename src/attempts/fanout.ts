/**
 * A fan-out while it runs and after: a batch whose session fails is retried once (a new session
 * with the same prompt, `<name>-retry`), then listed as failed; when every batch is done or
 * failed the fan-out is finished. Both are driven by the sessions' state changes on the bus, and
 * redone after a restart (`resume`), so a supervisor killed midway retries what it missed.
 */
import { existsSync } from 'node:fs';
import type { BatchView, FanoutView } from '../api/attempts.js';
import type { WorkspaceBus } from '../bus/index.js';
import { AttemptBatchRetried, AttemptFanoutFinished } from '../events/workspace.js';
import type { PermissionMode } from '../events/vocabulary.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { AttemptGroupWithProject, AttemptMemberRow, AttemptStore } from '../store/attempts.js';
import type { SessionWithProject } from '../store/sessions.js';
import { sessionDiffStat } from '../worktrees/index.js';
import { summaryOf } from './views.js';
import { finalMessage, type AttemptSessions } from './sessions.js';
import { ledgerOf } from './ledger.js';
import { batchPrompt } from './plan.js';
import { dispatchOne } from './start.js';

const log = createLogger('fanout');

const DONE = new Set(['ready_for_review', 'completed']);
/** Ended without finishing; `stopped` is a person's decision, so it is not retried. */
const FAILED = new Set(['failed', 'stopped']);

export interface FanoutDeps {
  store: AttemptStore;
  sessions: AttemptSessions;
  bus: WorkspaceBus;
}

/** Per group, one reaction at a time: two state changes of one fan-out never race to retry. */
const chains = new Map<string, Promise<void>>();

/** Reacts to a session of a running fan-out changing state. */
export function onMemberChanged(deps: FanoutDeps, sessionId: string): void {
  const member = deps.store.memberOf(sessionId);
  if (member === undefined) return;
  const group = deps.store.get(member.group_id);
  if (group?.kind !== 'fanout' || group.state !== 'running') return;
  void step(deps, group.id);
}

/** Runs `advance` for the group after the steps already queued for it (never two at once). */
export function step(deps: FanoutDeps, groupId: string): Promise<void> {
  const previous = chains.get(groupId) ?? Promise.resolve();
  const next = previous
    .then(() => advance(deps, groupId))
    .catch((error: unknown) =>
      log.error('fan-out step failed', { group: groupId, error: errorMessage(error) }),
    );
  chains.set(groupId, next);
  void next.then(() => {
    if (chains.get(groupId) === next) chains.delete(groupId);
  });
  return next;
}

/** Retries the batches whose first try failed, then finishes the fan-out when nothing is left to run. */
async function advance(deps: FanoutDeps, groupId: string): Promise<void> {
  const group = deps.store.get(groupId);
  if (group === undefined || group.state !== 'running') return;
  for (const [slot, tries] of bySlot(deps.store.members(groupId))) {
    const latest = tries[tries.length - 1]!;
    const session = deps.sessions.get(latest.session_id);
    if (session === undefined || latest.try > 1 || session.state !== 'failed') continue;
    await retry(deps, group, slot, latest, session);
  }
  const batches = bySlot(deps.store.members(groupId));
  const states = [...batches.values()].map((tries) => batchState(deps.sessions, tries));
  if (states.some((s) => s === 'running' || s === 'needs_input')) return;
  const done = states.filter((s) => s === 'done').length;
  deps.store.setState(groupId, 'finished', {
    message: `${done} of ${states.length} batches done, ${states.length - done} failed`,
  });
  deps.bus.publish(AttemptFanoutFinished, {
    groupId,
    project: group.project_name,
    taskId: group.task_id,
    batches: states.length,
    done,
    failed: states.length - done,
  });
}

async function retry(
  deps: FanoutDeps,
  group: AttemptGroupWithProject,
  slot: number,
  failed: AttemptMemberRow,
  session: SessionWithProject,
): Promise<void> {
  // The failed session's own settings; its prompt names only the items the ledger does not hold
  // finished (decision 301), so the retry redoes none of them.
  const ledger = ledgerOf(
    deps.sessions,
    deps.store.members(group.id).filter((m) => m.slot === slot),
  );
  const prompt =
    ledger.finished.length === 0
      ? session.prompt
      : `${batchPrompt(group.prompt, ledger.left, slot, bySlot(deps.store.members(group.id)).size)}\nAn earlier try finished ${ledger.finished.join(', ')}: leave them as they are.\n`;
  const request = {
    prompt,
    cwd: group.project_root,
    name: undefined,
    model: session.model ?? undefined,
    base: session.base_ref === 'HEAD' ? session.base_commit : session.base_ref,
    permissionMode: session.permission_mode as PermissionMode,
    options: { [failed.agent]: JSON.parse(session.options_json) as Record<string, unknown> },
    // The retry is told what the batch was told, and works for the same task.
    instructions: group.instructions ?? undefined,
    taskId: group.task_id ?? undefined,
  };
  let again: SessionWithProject;
  try {
    again = await dispatchOne(deps.sessions, request, {
      agent: failed.agent,
      name: `${session.name}-retry`,
      prompt,
    });
  } catch (error) {
    // Not retried: the batch is listed as failed, and why is in the log.
    log.error('fan-out batch not retried', { group: group.id, batch: slot, error: errorMessage(error) });
    deps.store.addMember({
      group_id: group.id,
      slot,
      try: 2,
      session_id: session.id,
      agent: failed.agent,
      items_json: failed.items_json,
    });
    return;
  }
  deps.store.addMember({
    group_id: group.id,
    slot,
    try: 2,
    session_id: again.id,
    agent: failed.agent,
    items_json: failed.items_json,
  });
  deps.bus.publish(AttemptBatchRetried, {
    groupId: group.id,
    project: group.project_name,
    taskId: group.task_id,
    batch: slot,
    failed: { sessionId: session.id, name: session.name },
    retry: { sessionId: again.id, name: again.name },
  });
}

/** The fan-out's report: per batch its tries, state, items, diff stat and the agent's last message. */
export async function fanoutReport(deps: FanoutDeps, group: AttemptGroupWithProject): Promise<FanoutView> {
  const members = deps.store.members(group.id);
  const batches: BatchView[] = [];
  for (const [slot, tries] of bySlot(members)) {
    const latest = deps.sessions.get(tries[tries.length - 1]!.session_id);
    const stat =
      latest !== undefined && latest.removed_at === null && existsSync(latest.worktree)
        ? await sessionDiffStat(latest)
        : undefined;
    batches.push({
      batch: slot,
      items: JSON.parse(tries[0]!.items_json ?? '[]') as string[],
      finished: ledgerOf(deps.sessions, tries).finished,
      state: batchState(deps.sessions, tries),
      // A retry that could not be dispatched is recorded with the failed session again: shown once.
      tries: uniqueSessions(tries).flatMap((t) => {
        const s = deps.sessions.get(t.session_id);
        return s === undefined ? [] : [{ sessionId: s.id, name: s.name, state: s.state }];
      }),
      diff:
        stat === undefined
          ? { files: [], additions: 0, deletions: 0 }
          : { files: stat.files.map((f) => f.path), additions: stat.additions, deletions: stat.deletions },
      finalMessage: latest === undefined ? null : finalMessage(deps.sessions, latest.id),
    });
  }
  const count = (state: BatchView['state']): number => batches.filter((b) => b.state === state).length;
  return {
    ...summaryOf(group, uniqueSessions(members).length),
    agent: members[0]?.agent ?? '',
    batchSize: group.batch_size ?? 0,
    items: batches.reduce((n, b) => n + b.items.length, 0),
    itemsFinished: batches.reduce((n, b) => n + b.finished.length, 0),
    done: count('done'),
    failed: count('failed'),
    running: count('running') + count('needs_input'),
    batches,
  };
}

function batchState(sessions: AttemptSessions, tries: AttemptMemberRow[]): BatchView['state'] {
  const latest = tries[tries.length - 1]!;
  const session = sessions.get(latest.session_id);
  if (session === undefined) return 'failed';
  if (DONE.has(session.state)) return 'done';
  if (FAILED.has(session.state)) return latest.try > 1 || session.state === 'stopped' ? 'failed' : 'running';
  if (session.removed_at !== null) return 'failed';
  return session.state === 'needs_input' ? 'needs_input' : 'running';
}

function bySlot(members: AttemptMemberRow[]): Map<number, AttemptMemberRow[]> {
  const slots = new Map<number, AttemptMemberRow[]>();
  for (const m of members) slots.set(m.slot, [...(slots.get(m.slot) ?? []), m]);
  return slots;
}

function uniqueSessions(members: AttemptMemberRow[]): AttemptMemberRow[] {
  const seen = new Set<string>();
  return members.filter((m) => !seen.has(m.session_id) && seen.add(m.session_id) !== undefined);
}
