/** `baton events`: the workspace bus — what happened across sessions (and, later, tasks, merges, routines). */
import type { RelayedWorkspaceEvent } from '../../events/workspace-relayed.js';
import type { WorkspaceEvent } from '../../events/workspace.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { followWorkspace } from '../follow.js';
import type { Context } from '../context.js';

export async function events(
  ctx: Context,
  opts: { follow?: boolean; json?: boolean; after: string },
): Promise<void> {
  let last = Number(opts.after);
  if (!Number.isInteger(last) || last < 0)
    throw new InvalidInputError(`--after must be a non-negative integer, got "${opts.after}"`);
  const api = await client(ctx);
  const print = (event: WorkspaceEvent): void => {
    last = event.seq;
    ctx.out.write((opts.json ? JSON.stringify(event) : formatWorkspaceEvent(event)) + '\n');
  };
  const printRelayed = (event: RelayedWorkspaceEvent): void => {
    last = event.seq;
    ctx.out.write((opts.json ? JSON.stringify(event) : formatRelayedEvent(event)) + '\n');
  };
  if (!opts.follow) {
    // Paged, so a long history is printed whole; the other machines' events share the sequence.
    for (;;) {
      const page = await api.call('GET /api/workspace/events', { query: { after: last, relayed: '1' } });
      const merged: (WorkspaceEvent | RelayedWorkspaceEvent)[] = [
        ...page.events,
        ...(page.relayed ?? []),
      ].sort((a, b) => a.seq - b.seq);
      for (const event of merged) {
        if ('machine' in event) printRelayed(event);
        else print(event);
      }
      if (merged.length === 0 || last >= page.lastSeq) return;
    }
  }
  ctx.keepAlive = true;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  await followWorkspace(ctx, api, () => last, print, controller.signal, printRelayed);
}

/** Another machine's event: as this machine's would read, with `[machine]` before its type. */
export function formatRelayedEvent(event: RelayedWorkspaceEvent): string {
  const time = event.ts.slice(11, 19);
  return `${String(event.seq).padStart(5)} ${time} [${event.machine}] ${event.type.padEnd(22)} ${describeRelayedEvent(event)}`;
}

/**
 * What another machine's event says, in words: as its own would read when this build knows its
 * type. Not checked against the schemas: a bare `baton` (the board's feed) loads no zod; an event
 * of another version whose data does not read as this one's falls back to its fields.
 */
export function describeRelayedEvent(event: RelayedWorkspaceEvent): string {
  try {
    const text = describeWorkspaceEvent({
      seq: event.seq,
      ts: event.ts,
      type: event.type,
      data: event.data,
    } as WorkspaceEvent);
    return text.includes('undefined') ? describeUnknown(event.data) : text;
  } catch {
    return describeUnknown(event.data);
  }
}

/** One line for people: sequence, time, what happened. */
export function formatWorkspaceEvent(event: WorkspaceEvent): string {
  const time = event.ts.slice(11, 19);
  return `${String(event.seq).padStart(5)} ${time} ${event.type.padEnd(22)} ${describeWorkspaceEvent(event)}`;
}

/**
 * What happened, in words. An event of a domain this build does not know (a newer supervisor)
 * still reads: its type and the names and words in its data.
 */
export function describeWorkspaceEvent(event: WorkspaceEvent): string {
  const known: string | undefined = describeKnown(event);
  return known ?? describeUnknown((event as { data?: unknown }).data);
}

function describeUnknown(data: unknown): string {
  if (typeof data !== 'object' || data === null)
    return typeof data === 'string' || typeof data === 'number' ? String(data) : '';
  const words = Object.entries(data as Record<string, unknown>)
    .filter(
      ([key, value]) =>
        key !== 'id' &&
        (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'),
    )
    .map(([key, value]) => (key === 'name' || key === 'title' ? String(value) : `${key}: ${String(value)}`));
  return words.join(', ').replace(/\s+/g, ' ');
}

function describeKnown(event: WorkspaceEvent): string {
  switch (event.type) {
    case 'session.dispatched':
      return `${event.data.name} (${event.data.agent}) on ${event.data.branch}`;
    case 'session.state_changed':
      return `${event.data.name}: ${event.data.from === undefined ? '' : `${event.data.from.replace(/_/g, ' ')} → `}${event.data.to.replace(/_/g, ' ')}`;
    case 'session.pinned':
      return `${event.data.name} ${event.data.pinned ? 'pinned' : 'unpinned'}`;
    case 'session.removed':
      return `${event.data.name} removed${event.data.snapshotRef === null ? '' : `; uncommitted work kept in ${event.data.snapshotRef}`}`;
    case 'radar.conflict_found':
      return `${event.data.a.name} ↔ ${event.data.b.name}: ${event.data.level} (${event.data.files.join(', ')})`;
    case 'radar.conflict_changed':
      return `${event.data.a.name} ↔ ${event.data.b.name}: ${event.data.previous} → ${event.data.level} (${event.data.files.join(', ')})`;
    case 'radar.conflict_cleared':
      return `${event.data.a.name} ↔ ${event.data.b.name}: cleared (${event.data.reason})`;
    case 'merge.queued':
      return `${members(event.data.sessions)} → ${event.data.base}: queued at position ${event.data.position}`;
    case 'merge.started':
      return `${members(event.data.sessions)} → ${event.data.base}: merging onto ${event.data.baseCommit.slice(0, 12)}`;
    case 'merge.checking':
      return `${members(event.data.sessions)}: checking \`${event.data.command}\``;
    case 'merge.landed':
      return `${members(event.data.sessions)} landed on ${event.data.base} at ${event.data.commit.slice(0, 12)} (check: ${event.data.check.outcome.replace(/_/g, ' ')})`;
    case 'merge.conflicted':
      return `${members(event.data.sessions)}: ${event.data.culprit.name} conflicts in ${event.data.files.join(', ')}`;
    case 'merge.failed':
      return `${members(event.data.sessions)} not landed: ${event.data.message}`;
    case 'pr.pushed':
      return `${event.data.name}: pushed ${event.data.branch} to ${event.data.remote}`;
    case 'pr.opened':
      return `${event.data.name}: pull request ${event.data.url ?? `(open it by hand for ${event.data.branch})`}`;
    case 'review.groups_changed':
      return `${event.data.project}: ${event.data.groups.map((g) => `${g.number}: ${g.sessions.join('+')}`).join(', ') || 'no groups'}`;
    case 'review.file_state_set':
      return `${event.data.project} group ${event.data.group}: ${event.data.path} ${event.data.state.replace(/_/g, ' ')}`;
    case 'review.file_state_reset':
      return `${event.data.project}: ${event.data.path} changed, no longer ${event.data.previous.replace(/_/g, ' ')}`;
    case 'review.comment_sent':
      return `${event.data.project} group ${event.data.group}: comment on ${event.data.path}:${event.data.startLine} sent to ${event.data.name}`;
    case 'routine.added':
      return `${event.data.routine} (${event.data.project}): ${event.data.when}${event.data.nextRunAt === null ? '' : `, next ${event.data.nextRunAt}`}`;
    case 'routine.changed':
      return `${event.data.routine}: ${event.data.paused ? 'paused' : `active${event.data.nextRunAt === null ? '' : `, next ${event.data.nextRunAt}`}`}`;
    case 'routine.removed':
      return `${event.data.routine} (${event.data.project}) removed`;
    case 'routine.fired':
      return `${event.data.routine} run ${event.data.runId} (${event.data.trigger}): session ${event.data.sessionName}`;
    case 'routine.skipped':
      return `${event.data.routine} run ${event.data.runId} (${event.data.trigger}) ${event.data.outcome}: ${event.data.cause}`;
    case 'routine.finished':
      return `${event.data.routine} run ${event.data.runId}: ${event.data.outcome} — ${event.data.summary.split('\n')[0] ?? ''}`;
    case 'task.added':
      return `task ${event.data.task.id}: ${event.data.task.title} (${event.data.task.column})`;
    case 'task.edited':
      return `task ${event.data.task.id}: ${event.data.fields.join(', ')} changed`;
    case 'task.moved':
      return `task ${event.data.task.id}: ${event.data.from.replace(/_/g, ' ')} → ${event.data.to.replace(/_/g, ' ')} (${event.data.by === 'hand' ? 'by hand' : `by its ${event.data.by}`})`;
    case 'task.removed':
      return `task ${event.data.taskId} removed: ${event.data.title}`;
    case 'task.session_linked':
      return `task ${event.data.task.id}: ${event.data.name} (${event.data.agent}) started on it`;
    case 'task.decided':
      return `task ${event.data.taskId}: decision ${event.data.file}`;
    case 'task.noted':
      return `task ${event.data.taskId}: note ${event.data.file}`;
    case 'task.synced':
      return `${event.data.project}: tasks ${[...event.data.changed, ...event.data.removed].join(', ')} changed on another machine`;
    case 'session.message_sent':
      return `${event.data.from.name} → ${event.data.to.name}: ${oneLine(event.data.text)}`;
    case 'agent.decision_recorded':
      return `${event.data.author.name} decided: ${oneLine(event.data.title)}`;
    case 'agent.note_added':
      return `${event.data.author.name} noted: ${oneLine(event.data.text)}`;
    case 'agent.task_created':
      return `${event.data.author.name} created task ${event.seq}: ${oneLine(event.data.title)}`;
    case 'policy.allow_added':
      return `allow rule ${event.data.ruleId}: ${allowText(event.data)} (from ${event.data.source})`;
    case 'policy.allow_revoked':
      return `allow rule ${event.data.ruleId} revoked: ${allowText(event.data)}`;
    case 'policy.auto_approved':
      return `${event.data.name}: ${event.data.tool} \`${event.data.input.slice(0, 80)}\` approved by allow rule ${event.data.ruleId}`;
    case 'watchdog.alert_raised':
      return `${event.data.name ?? 'workspace'}: ${event.data.message}${event.data.action === 'alert' ? '' : ` (${event.data.action === 'pause' ? 'paused' : 'stopped'})`} [${event.data.rule}, alert ${event.data.alertId}]`;
    case 'watchdog.alert_acknowledged':
      return `alert ${event.data.alertId} acknowledged`;
    case 'budget.set':
      return `budget ${event.data.scope}: $${event.data.limitUsd} (warn at ${Math.round(event.data.warnRatio * 100)}%)`;
    case 'budget.removed':
      return `budget ${event.data.scope} removed`;
    case 'memory.pressure_began':
      return event.data.message;
    case 'memory.host_released':
      return `${event.data.name}: its agent let go to free memory (${event.data.availableMb} MB available, reserve ${event.data.reserveMb} MB); a reply resumes it`;
    case 'memory.pressure_ended':
      return `memory back above the reserve: ${event.data.availableMb} MB available, reserve ${event.data.reserveMb} MB`;
    case 'fresh.rebased':
      return `${event.data.name}: rebased onto ${event.data.baseRef} (${event.data.onto.slice(0, 8)}), ${event.data.commits} of its own; checkpoint ${event.data.checkpoint} holds the work before`;
    case 'fresh.conflicted':
      return `${event.data.name}: behind ${event.data.baseRef} (${event.data.onto.slice(0, 8)}), rebasing conflicts in ${event.data.files.join(', ')}; ${event.data.handedTo === 'agent' ? 'handed to its agent' : 'left for the user'}`;
    case 'fresh.deferred':
      return `${event.data.name}: ${event.data.message}`;
    case 'budget.resumed':
      return `${event.data.name}: resumed within its budget ($${event.data.spentUsd.toFixed(2)} of $${event.data.limitUsd})`;
    case 'handoff.created':
      return `${event.data.from.name} (${event.data.from.agent}) handed off to ${event.data.to.name} (${event.data.to.agent}), ${event.data.packTokens} tokens`;
    case 'transcripts.imported':
      return `${event.data.events} events of ${event.data.sessions} ${event.data.vendor} sessions imported`;
    case 'attempt.started':
      return `${event.data.kind === 'best_of' ? 'best-of' : 'fan-out'} ${event.data.groupId}: ${members(event.data.sessions)}`;
    case 'attempt.picked':
      return `${event.data.groupId}: picked ${event.data.winner.name} (merge ${event.data.mergeId})`;
    case 'attempt.settled':
      return `${event.data.groupId}: ${event.data.message}`;
    case 'attempt.batch_retried':
      return `${event.data.groupId} batch ${event.data.batch}: ${event.data.failed.name} failed, retried as ${event.data.retry.name}`;
    case 'attempt.fanout_finished':
      return `${event.data.groupId}: ${event.data.done} of ${event.data.batches} batches done, ${event.data.failed} failed`;
    case 'sync.pushed':
      return `${event.data.name}: pushed ${event.data.commit.slice(0, 8)} to ${event.data.remote} ${event.data.ref}${event.data.snapshotCommit === null ? '' : ` with uncommitted work ${event.data.snapshotCommit.slice(0, 8)}`} (${event.data.ms} ms)`;
    case 'sync.failed':
      return `${event.data.name}: push to ${event.data.remote} failed: ${event.data.reason}`;
    case 'sync.notes':
      return event.data.failure !== null
        ? `${event.data.project}: provenance notes not synced with ${event.data.remote}: ${event.data.failure}`
        : `${event.data.project}: provenance notes ${[event.data.merged ? 'merged from' : '', event.data.pushed ? 'pushed to' : ''].filter(Boolean).join(' and ')} ${event.data.remote}`;
    case 'provenance.recorded':
      return `${event.data.name}: turn ${event.data.turn} recorded${event.data.commit === null ? ' (no change)' : ` as ${event.data.commit.slice(0, 8)}`} (${event.data.ms} ms)`;
    case 'provenance.verified':
      return `${event.data.name}: turn ${event.data.turn} ${event.data.outcome === 'passed' ? 'verified' : event.data.outcome === 'timed_out' ? 'check timed out' : 'check failed'}: \`${event.data.command}\`${event.data.tests === null ? '' : ` (${event.data.tests.passed} passed, ${event.data.tests.failed} failed)`} in ${(event.data.durationMs / 1000).toFixed(1)} s`;
    case 'provenance.red_green': {
      const vacuous = event.data.tests.filter((t) => t.vacuous).map((t) => t.file);
      return `${event.data.name}: turn ${event.data.turn}'s ${event.data.tests.length} new test file(s) run on the base${vacuous.length === 0 ? ': each fails there' : `; passes without the change: ${vacuous.join(', ')}`} (${(event.data.durationMs / 1000).toFixed(1)} s)`;
    }
    case 'provenance.noted':
      return `${members(event.data.sessions)}: ${event.data.lines} lines noted on ${event.data.commits} landed commits (${event.data.ms} ms)`;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function allowText(rule: { tool: string | null; pattern: string | null; project: string | null }): string {
  const what =
    rule.pattern === null
      ? `every ${rule.tool ?? ''} call`
      : `\`${rule.pattern}\`${rule.tool === null ? '' : ` (${rule.tool})`}`;
  return `${what} in ${rule.project ?? 'every repository'}`;
}

function members(sessions: { name: string }[]): string {
  return sessions.map((s) => s.name).join(', ');
}
