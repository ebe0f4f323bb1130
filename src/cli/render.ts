/** Text rendering of sessions for people. Scripts use --json instead. */
import type { PeekView, SessionView } from '../api/index.js';
import type { ReviewQueueView } from '../api/sessions.js';
import { STATE_GROUPS } from '../api/groups.js';
import { oneLine, reasonText } from '../events/format.js';

export function renderList(sessions: SessionView[], now = Date.now(), reviewQueue?: ReviewQueueView): string {
  if (sessions.length === 0) return 'No sessions. Start one with: baton dispatch "what to do" --name my-task\n';
  const manyProjects = new Set(sessions.map((s) => s.project)).size > 1;
  const lines: string[] = [];
  const pinned = sessions.filter((s) => s.pinned);
  const groups: { title: string; sessions: SessionView[] }[] = [];
  if (pinned.length > 0) groups.push({ title: 'Pinned', sessions: pinned });
  for (const group of STATE_GROUPS) {
    const members = sessions.filter((s) => !s.pinned && s.state === group.state);
    if (members.length > 0) groups.push({ title: group.title, sessions: members });
  }
  for (const group of groups) {
    lines.push(`${group.title} (${group.sessions.length})`);
    for (const s of group.sessions) lines.push('  ' + renderRow(s, manyProjects, now));
  }
  if (reviewQueue !== undefined && reviewQueue.sessions > 0) lines.push('', renderReviewQueue(reviewQueue));
  return lines.join('\n') + '\n';
}

/** `Review queue: 3 sessions, 14 files, +412 -32 lines`: what waits on a person, by size. */
export function renderReviewQueue(queue: ReviewQueueView): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const measured = queue.sessions - queue.measuring;
  const size = measured > 0 ? `, ${plural(queue.files, 'file')}, +${queue.additions} -${queue.deletions} lines` : '';
  const pending = queue.measuring > 0 ? ` (${queue.measuring} not measured yet)` : '';
  return `Review queue: ${plural(queue.sessions, 'session')} ready${size}${pending}`;
}

function renderRow(s: SessionView, showProject: boolean, now: number): string {
  const name = (showProject ? `${s.project}/${s.name}` : s.name).padEnd(showProject ? 32 : 22);
  const usage = s.inputTokens + s.outputTokens > 0 ? `${formatTokens(s.inputTokens + s.outputTokens)} tok $${s.costUsd.toFixed(2)}` : '';
  const detail = s.state === 'queued' && s.queuePosition !== null ? `queued #${s.queuePosition}` : describe(s);
  return `${s.id.slice(0, 6)}  ${name} ${s.agent.padEnd(8)} ${age(s.lastEventAt ?? s.createdAt, now).padStart(4)}  ${usage.padEnd(18)} ${detail}`.trimEnd();
}

function describe(s: SessionView): string {
  if (s.reason !== null && (s.state === 'needs_input' || s.state === 'failed')) {
    const prefix = s.reason.kind === 'approval' ? 'approve? ' : s.reason.kind === 'question' ? 'asks: ' : '';
    return oneLine(prefix + reasonText(s.reason), 80);
  }
  return oneLine(s.activity ?? '', 80);
}

export function renderPeek(view: PeekView, now = Date.now()): string {
  const s = view.session;
  const lines = [
    `${s.name} (${s.id}) — ${s.state.replace(/_/g, ' ')}${s.pinned ? ', pinned' : ''}`,
    `  task:     ${oneLine(s.prompt, 100)}`,
    `  agent:    ${s.agent}${s.model ? ` (${s.model})` : ''}, ${s.running ? `host pid ${s.hostPid}` : 'not running'}`,
    `  branch:   ${s.branch} from ${s.baseRef} (${s.baseCommit.slice(0, 8)})`,
    `  worktree: ${s.worktree}`,
  ];
  if (s.reason !== null) lines.push(`  ${s.reason.kind === 'approval' ? 'approve?' : s.reason.kind === 'question' ? 'question:' : 'reason:  '} ${reasonText(s.reason)}`);
  if (view.currentStep) lines.push(`  now:      ${oneLine(view.currentStep, 100)}`);
  if (view.lastOutput) lines.push(`  last said: ${oneLine(view.lastOutput, 100)}`);
  lines.push(`  usage:    ${formatTokens(s.inputTokens)} in, ${formatTokens(s.outputTokens)} out, $${s.costUsd.toFixed(4)}`);
  lines.push(`  active:   ${age(s.lastEventAt ?? s.createdAt, now)} ago`);
  lines.push(`  files changed (${view.filesChanged.length}):`);
  for (const f of view.filesChanged.slice(0, 30)) lines.push(`    ${f.status.padEnd(2)} ${f.path}`);
  if (view.filesChanged.length > 30) lines.push(`    … and ${view.filesChanged.length - 30} more`);
  return lines.join('\n') + '\n';
}

export function renderSessionLine(s: SessionView): string {
  const reason = s.reason === null ? '' : ` — ${reasonText(s.reason)}`;
  return `${s.name} (${s.id}): ${s.state.replace(/_/g, ' ')}${reason}\n`;
}

function formatTokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function age(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}
