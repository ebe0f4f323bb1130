/** Text rendering of sessions for people. Scripts use --json instead. */
import type { PeekView, SessionView } from '../api/index.js';
import type { MemoryHeadroom } from '../api/daemon.js';
import type { EvidenceMark } from '../api/provenance.js';
import type { ReviewQueueView } from '../api/sessions.js';
import { STATE_GROUPS } from '../api/groups.js';
import { formatMb, formatUsd, oneLine, reasonText } from '../events/format.js';

export interface ListLayout {
  /** The terminal's width: each row's activity is cut to fit (never the name). Unset: no limit. */
  width?: number | undefined;
  /** ANSI colours for the group titles (a terminal without NO_COLOR). */
  color?: boolean;
}

/** Group titles' colours: what needs a person stands out. */
const TITLE_COLOR: Record<string, string> = {
  'Needs input': '\x1b[1;33m',
  Failed: '\x1b[1;31m',
  Working: '\x1b[34m',
  'Ready for review': '\x1b[32m',
  Pinned: '\x1b[1m',
};

export function renderList(
  sessions: SessionView[],
  now = Date.now(),
  reviewQueue?: ReviewQueueView,
  layout: ListLayout = {},
  memory?: MemoryHeadroom,
): string {
  if (sessions.length === 0)
    return 'No sessions. Start one with: baton dispatch "what to do" --name my-task\n';
  const manyProjects = new Set(sessions.map((s) => s.project)).size > 1;
  const label = (s: SessionView): string => (manyProjects ? `${s.project}/${s.name}` : s.name);
  const columns = fitColumns(sessions, label, layout.width);
  const lines: string[] = [];
  const pinned = sessions.filter((s) => s.pinned);
  const groups: { title: string; sessions: SessionView[] }[] = [];
  if (pinned.length > 0) groups.push({ title: 'Pinned', sessions: pinned });
  for (const group of STATE_GROUPS) {
    const members = sessions.filter((s) => !s.pinned && s.state === group.state);
    if (members.length > 0) groups.push({ title: group.title, sessions: members });
  }
  const usageHead = columns.usage === 0 ? '' : `${'USAGE'.padEnd(columns.usage)} `;
  const machineHead = columns.machine === 0 ? '' : `${'MACHINE'.padEnd(columns.machine)} `;
  lines.push(
    fit(
      `  ${'ID'.padEnd(6)}  ${'NAME'.padEnd(columns.name)} ${'AGENT'.padEnd(8)} ${machineHead}${'AGE'.padStart(4)}  ${usageHead}ACTIVITY`,
      layout.width,
    ),
  );
  for (const group of groups) {
    const title = fit(`${group.title} (${group.sessions.length})`, layout.width);
    const color = layout.color === true ? TITLE_COLOR[group.title] : undefined;
    lines.push(color === undefined ? title : `${color}${title}\x1b[0m`);
    for (const s of group.sessions)
      lines.push(
        renderRow(
          s,
          (layout.width === undefined ? label(s) : cut(label(s), columns.name)).padEnd(columns.name),
          columns,
          now,
          layout.width,
        ),
      );
  }
  if (reviewQueue !== undefined && reviewQueue.sessions > 0)
    lines.push('', fit(renderReviewQueue(reviewQueue), layout.width));
  const headroom = memory === undefined ? undefined : renderHeadroom(memory);
  if (headroom !== undefined) lines.push(fit(headroom, layout.width));
  return lines.join('\n') + '\n';
}

/**
 * The machine's memory for new sessions (decision 260): "Memory: 1.2 GB free for new sessions
 * (3.4 GB available, 0.5 GB reserve, 1.7 GB for sessions at work to grow into)"; undefined where
 * the kernel does not say.
 */
export function renderHeadroom(memory: MemoryHeadroom): string | undefined {
  if (memory.availableMb === null || memory.freeMb === null) return undefined;
  const growth =
    memory.expectedGrowthMb > 0
      ? `, ${formatMb(memory.expectedGrowthMb)} for sessions at work to grow into`
      : '';
  const off = memory.enabled ? '' : '; memory admission is off';
  return `Memory: ${formatMb(Math.max(0, memory.freeMb))} free for new sessions (${formatMb(memory.availableMb)} available, ${formatMb(memory.reserveMb)} reserve${growth})${off}`;
}

/** The activity keeps at least this much of a row before the columns left of it give way. */
const MIN_ACTIVITY = 12;
/** A name is never cut shorter than this. */
const MIN_NAME = 10;

/**
 * The columns' widths for the terminal's `width` (decision 156, "ls fits the terminal"): each as
 * wide as its widest value; when the row would leave the activity less than MIN_ACTIVITY, the
 * usage column goes first (`baton cost` has it), then the machine column, then the name is cut
 * (down to MIN_NAME). Whatever still does not fit is cut at the width, so no line is ever wider.
 */
function fitColumns(
  sessions: SessionView[],
  label: (s: SessionView) => string,
  width: number | undefined,
): { name: number; usage: number; machine: number } {
  const longest = Math.max(4, ...sessions.map((s) => label(s).length));
  // Without a width, rows are never cut: a longer name overflows its column rather than lose its end.
  const nameWidth = width === undefined ? Math.min(40, longest) : longest;
  // The usage column only as wide as its widest figure, and gone when nobody has used anything.
  const usageWidth = Math.max(0, ...sessions.map((s) => usageOf(s).length));
  // Which machine runs each session, when the workspace is shared across machines (decision 127, "A
  // shared workspace in the supervisor").
  const machineWidth = sessions.some((s) => s.machine !== undefined)
    ? Math.max(7, ...sessions.map((s) => (s.machine ?? '').length))
    : 0;
  const columns = {
    name: nameWidth,
    usage: usageWidth === 0 ? 0 : Math.max(5, usageWidth),
    machine: machineWidth,
  };
  if (width === undefined) return columns;
  // `  ID      NAME AGENT    [MACHINE ]AGE   [USAGE ]` before the activity.
  const head = (): number =>
    2 +
    6 +
    2 +
    columns.name +
    1 +
    8 +
    1 +
    (columns.machine === 0 ? 0 : columns.machine + 1) +
    4 +
    2 +
    (columns.usage === 0 ? 0 : columns.usage + 1);
  const room = width - MIN_ACTIVITY;
  if (head() > room) columns.usage = 0;
  if (head() > room) columns.machine = 0;
  if (head() > room) columns.name = Math.max(Math.min(MIN_NAME, nameWidth), columns.name - (head() - room));
  return columns;
}

/** `text` cut to `width` characters with an ellipsis. */
function cut(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, Math.max(0, width - 1)) + '…';
}

function fit(line: string, width: number | undefined): string {
  return width === undefined || line.length <= width ? line : line.slice(0, Math.max(0, width - 1)) + '…';
}

/** `Review queue: 3 sessions, 14 files, +412 -32 lines`: what waits on a person, by size. */
export function renderReviewQueue(queue: ReviewQueueView): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const measured = queue.sessions - queue.measuring;
  const size =
    measured > 0 ? `, ${plural(queue.files, 'file')}, +${queue.additions} -${queue.deletions} lines` : '';
  const pending = queue.measuring > 0 ? ` (${queue.measuring} not measured yet)` : '';
  return `Review queue: ${plural(queue.sessions, 'session')} ready${size}${pending}`;
}

function usageOf(s: SessionView): string {
  return s.inputTokens + s.outputTokens > 0
    ? `${formatTokens(s.inputTokens + s.outputTokens)} tok ${formatUsd(s.costUsd)}`
    : '';
}

function renderRow(
  s: SessionView,
  name: string,
  columns: { usage: number; machine: number },
  now: number,
  width: number | undefined,
): string {
  const usage = columns.usage === 0 ? '' : `${usageOf(s).padEnd(columns.usage)} `;
  const machine =
    columns.machine === 0 ? '' : `${cut(s.machine ?? '', columns.machine).padEnd(columns.machine)} `;
  const mark = evidenceMark(s);
  const activity = mark === '' ? describe(s) : `${mark} ${describe(s)}`.trimEnd();
  // The task beside every question and approval: what the session is for, not only what it asks.
  const detail =
    s.task === null || s.task === undefined
      ? activity
      : `(${s.task.title}${s.task.tracker === null ? '' : `, ${s.task.tracker}`}) ${activity}`.trimEnd();
  const head = `  ${s.id.slice(0, 6)}  ${name} ${s.agent.padEnd(8)} ${machine}${age(s.lastEventAt ?? s.createdAt, now).padStart(4)}  ${usage}`;
  // The activity gives way to the width first; the columns were narrowed to leave it room.
  const room = width === undefined ? detail.length : Math.max(0, width - head.length);
  const shown = detail.length <= room ? detail : room <= 1 ? '' : detail.slice(0, room - 1) + '…';
  return fit((head + shown).trimEnd(), width);
}

/**
 * A session's activity line: the question or approval it waits on, why it is failed or still
 * queued (a task it waits for, a budget: decision 155), else what it is doing.
 */
export function describe(s: SessionView): string {
  if (s.state === 'queued') {
    const place = s.queuePosition === null ? 'queued' : `queued #${s.queuePosition}`;
    return oneLine(s.heldBy === undefined ? place : `${place}: ${s.heldBy}`, 80);
  }
  if (s.reason !== null && (s.state === 'needs_input' || s.state === 'failed')) {
    const prefix = s.reason.kind === 'approval' ? 'waiting: ' : s.reason.kind === 'question' ? 'asks: ' : '';
    return oneLine(prefix + reasonText(s.reason), 80);
  }
  return oneLine(s.activity ?? '', 80);
}

/**
 * A short mark of what Baton checked (decision 290): `[verified]`, `[failing]`, `[claimed]`, and
 * `[1 vacuous test]` when a new test passes on the base; empty when there is nothing to say.
 */
export function evidenceMark(s: SessionView): string {
  const e = s.evidence;
  if (e === undefined) return '';
  const marks: string[] = e.status === 'none' ? [] : [e.status];
  if (e.vacuous.length > 0)
    marks.push(`${e.vacuous.length} vacuous test${e.vacuous.length === 1 ? '' : 's'}`);
  return marks.length === 0 ? '' : `[${marks.join(', ')}]`;
}

/** Peek's evidence lines: the check Baton ran on which tree, or what the agent claims, and new tests that prove nothing. */
export function evidenceLines(e: EvidenceMark): string[] {
  const tests =
    e.tests === null ? '' : `, ${e.tests.passed} passed, ${e.tests.failed} failed of ${e.tests.ran}`;
  const lines = [
    e.status === 'claimed'
      ? `  evidence: claimed: the agent ran \`${oneLine(e.command ?? '', 80)}\`; Baton did not verify it`
      : e.status === 'none'
        ? '  evidence: none: Baton ran no check on this work'
        : `  evidence: ${e.status}: \`${oneLine(e.command ?? '', 80)}\`${tests} (tree ${(e.tree ?? '').slice(0, 12)})`,
  ];
  for (const file of e.vacuous) lines.push(`    ${file}: regression test passes without the change`);
  for (const file of e.proving) lines.push(`    ${file}: fails on the base, passes with the change`);
  return lines;
}

export function renderPeek(view: PeekView, now = Date.now()): string {
  const s = view.session;
  const lines = [
    `${s.name} (${s.id}) — ${s.state.replace(/_/g, ' ')}${s.pinned ? ', pinned' : ''}`,
    ...(s.task === null || s.task === undefined
      ? [`  task:     ${oneLine(s.prompt, 100)}`]
      : [
          `  task:     ${s.task.id}. ${oneLine(s.task.title, 100)}${s.task.tracker === null ? '' : ` (${s.task.tracker})`}`,
          `  prompt:   ${oneLine(s.prompt, 100)}`,
        ]),
    `  agent:    ${s.agent}${s.model ? ` (${s.model})` : ''}, ${s.running ? `host pid ${s.hostPid}` : 'not running'}`,
    `  branch:   ${s.branch} from ${s.baseRef} (${s.baseCommit.slice(0, 8)})`,
    `  worktree: ${s.worktree}`,
  ];
  if (s.reason !== null)
    lines.push(
      `  ${s.reason.kind === 'approval' ? 'waiting:' : s.reason.kind === 'question' ? 'question:' : 'reason:  '} ${reasonText(s.reason, 500)}`,
    );
  if (view.currentStep) lines.push(`  now:      ${oneLine(view.currentStep, 100)}`);
  if (view.lastOutput) lines.push(`  last said: ${oneLine(view.lastOutput, 100)}`);
  lines.push(
    `  usage:    ${formatTokens(s.inputTokens)} in, ${formatTokens(s.outputTokens)} out, ${formatUsd(s.costUsd)}`,
  );
  if (view.memoryMb !== undefined)
    lines.push(`  memory:   ${formatMb(view.memoryMb)} (host, agent and their children)`);
  lines.push(`  active:   ${age(s.lastEventAt ?? s.createdAt, now)} ago`);
  if (s.evidence !== undefined) lines.push(...evidenceLines(s.evidence));
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
  return n >= 1_000_000
    ? `${(n / 1_000_000).toFixed(1)}M`
    : n >= 1000
      ? `${(n / 1000).toFixed(1)}k`
      : String(n);
}

/** How long ago, in one short word: `12s`, `5m`, `3h`, `2d`. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}
