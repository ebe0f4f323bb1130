/**
 * The board's lines as plain strings cut to the terminal's width, so that what 80 columns show
 * is decided here (and unit-tested), not by wrapping. Colours are chosen here too, and only when
 * the terminal has them and NO_COLOR is not set.
 */
import type { ConflictBadge } from '../api/conflicts.js';
import type { SessionView } from '../api/index.js';
import { age, describe, evidenceMark } from '../cli/render.js';
import { describeRelayedEvent, describeWorkspaceEvent } from '../cli/commands/events.js';
import type { FeedEvent } from './model.js';

/** Colours by group and state; `undefined` leaves the terminal's own. */
const GROUP_COLOR: Record<string, string> = {
  'Needs input': 'yellow',
  Failed: 'red',
  Working: 'blue',
  'Ready for review': 'green',
  Stopped: 'gray',
  Completed: 'gray',
};

/**
 * Whether to colour: not when NO_COLOR is set (to anything but empty), not on a dumb terminal,
 * and only when the terminal says it has colours.
 */
export function colorsWanted(
  env: NodeJS.ProcessEnv,
  out: { hasColors?: () => boolean; isTTY?: boolean },
): boolean {
  if ((env.NO_COLOR ?? '') !== '' || env.TERM === 'dumb') return false;
  if ((env.FORCE_COLOR ?? '') !== '' && env.FORCE_COLOR !== '0') return true;
  return out.isTTY === true && (out.hasColors?.() ?? false);
}

export function groupColor(title: string, color: boolean): string | undefined {
  if (!color) return undefined;
  return GROUP_COLOR[title.replace(/ \(\d+\)$/, '')];
}

/** Cuts `text` to `width` columns with an ellipsis; pads it when `pad` asks. */
export function fit(text: string, width: number, pad = false): string {
  if (width <= 0) return '';
  const chars = [...text];
  if (chars.length > width) return chars.slice(0, Math.max(0, width - 1)).join('') + '…';
  return pad ? text + ' '.repeat(width - chars.length) : text;
}

export interface Columns {
  name: number;
  agent: number;
  /** The machine running each session, when the workspace is shared (0: no column). */
  machine: number;
}

/** The name column as wide as the longest shown name, within 12..28 (narrower on a narrow terminal). */
export function columnsFor(sessions: readonly SessionView[], width: number, manyProjects: boolean): Columns {
  const longest = Math.max(4, ...sessions.map((s) => label(s, manyProjects).length));
  const machine = sessions.some((s) => s.machine !== undefined)
    ? Math.min(12, Math.max(4, ...sessions.map((s) => (s.machine ?? '').length)))
    : 0;
  return { name: Math.min(longest, width < 100 ? 20 : 28), agent: 8, machine };
}

export function label(s: SessionView, manyProjects: boolean): string {
  return manyProjects ? `${s.project}/${s.name}` : s.name;
}

/** `› name  agent  [machine]  age  activity`, exactly `width` columns. */
export function sessionLine(
  s: SessionView,
  selected: boolean,
  columns: Columns,
  manyProjects: boolean,
  now: number,
  width: number,
  conflict?: ConflictBadge,
): string {
  const pin = s.pinned ? '*' : ' ';
  const head = `${selected ? '›' : ' '}${pin}${fit(label(s, manyProjects), columns.name, true)} ${fit(s.agent, columns.agent, true)} ${columns.machine === 0 ? '' : `${fit(s.machine ?? '', columns.machine, true)} `}${age(s.lastEventAt ?? s.createdAt, now).padStart(3)}  `;
  // A queued session says its place and what holds it (describe), as `baton ls` does.
  // What Baton checked of the work, as `baton ls` marks it (decision 290).
  const mark = evidenceMark(s);
  const detail =
    conflictWord(conflict) +
    (s.state === 'queued' ? describe(s) : stateWord(s) + (mark === '' ? '' : `${mark} `) + describe(s));
  return fit(head + detail, width, true);
}

/**
 * `⚠ hot: beta, base · soft: gamma · ` before the activity: each other side under its own pair's
 * level, so a soft neighbour is not read as hot because the session is hot with someone else.
 */
export function conflictWord(badge: ConflictBadge | undefined): string {
  if (badge === undefined || badge.with.length === 0) return '';
  const names = (level: string): string[] =>
    badge.with.filter((w) => w.level === level).map((w) => (w.base ? 'base' : w.name));
  const parts = (['hot', 'soft'] as const)
    .map((level) => [level, names(level)] as const)
    .filter(([, list]) => list.length > 0)
    .map(([level, list]) => `${level}: ${list.join(', ')}`);
  return `⚠ ${parts.join(' · ')} · `;
}

/** Inside a group the state is known, except where a group holds several (Pinned, Working). */
function stateWord(s: SessionView): string {
  if (s.pinned) return `[${s.state.replace(/_/g, ' ')}] `;
  if (s.state === 'starting' || s.state === 'preparing') return `[${s.state}] `;
  return '';
}

/** One workspace event of any domain, known or not: `12:01:03 merge.landed  a landed on main`; another machine's marked `[beta]`. */
export function workspaceLine(event: FeedEvent, width: number): string {
  const time = typeof event.ts === 'string' ? event.ts.slice(11, 19) : '';
  const line =
    'machine' in event
      ? `${time} [${event.machine}] ${event.type}  ${describeRelayedEvent(event)}`
      : `${time} ${event.type}  ${describeWorkspaceEvent(event)}`;
  return fit(line.replace(/\s+/g, ' '), width);
}

/** The footer's keys, shorter on a narrow terminal. */
export function keyHints(width: number): string {
  const wide =
    'j/k move  enter attach  space peek  r reply  a/d approve/deny  n new  p pin  s stop  x remove  / filter  tab scope  ? help  q quit';
  const narrow = 'j/k move, → attach, space peek, r/a/d answer, n new, / filter, ? help, q quit';
  return fit(width >= wide.length ? wide : narrow, width);
}

export const HELP_LINES = [
  'j / k, ↑ / ↓   move between sessions (PgUp / PgDn by a screen)',
  'enter, →       attach: the live transcript; type a reply; esc back',
  'space          peek: the last events and the question or approval',
  'r              reply to the selected session (its question shown)',
  'a / d          approve / deny its pending tool call',
  'n              dispatch a new session: prompt, agent, name',
  'p / s / x      pin or unpin / stop / remove (asks first)',
  '/              filter by name, task, agent or state; esc clears',
  'tab            this repository only / every repository',
  'q              quit the board; sessions go on',
];
