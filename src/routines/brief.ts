/**
 * The workspace brief a routine's session starts with (in Baton's instructions, never in the
 * user's files): the live sessions and what they do, the tasks, the newest decisions and notes
 * in `.baton/`, and the last day's sessions with their last word — and how to report.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionWithProject } from '../store/sessions.js';
import type { RoutineSessions, TaskSummary } from './ports.js';

/** The final message that means "nothing found": the run is then archived quietly. */
export const NOTHING_TO_REPORT = 'NOTHING TO REPORT';

const LIVE = new Set(['queued', 'preparing', 'starting', 'working', 'needs_input', 'ready_for_review']);
const FILES_PER_FOLDER = 10;
const EXCERPT = 400;

export interface BriefInput {
  routine: string;
  projectRoot: string;
  now: Date;
  sessions: RoutineSessions;
  /** The repository's tasks, when the tasks domain is there. */
  tasks: TaskSummary[] | undefined;
}

export function workspaceBrief(input: BriefInput): string {
  const all = input.sessions
    .list()
    .filter((s) => s.project_root === input.projectRoot && s.removed_at === null);
  const live = all.filter((s) => LIVE.has(s.state));
  const dayAgo = input.now.getTime() - 24 * 3600_000;
  const recent = all.filter((s) => Date.parse(s.last_event_at ?? s.updated_at) >= dayAgo);
  const lines = [
    `You are running the routine "${input.routine}", started by Baton at ${input.now.toISOString()}. This is the workspace as it stands.`,
    '',
    '## Sessions working now',
    ...(live.length === 0
      ? ['(none)']
      : live.map((s) => `- ${s.name} (${s.agent}, ${s.state.replace(/_/g, ' ')}): ${firstLine(s.prompt)}`)),
    '',
    '## Tasks',
    ...taskLines(input),
    '',
    '## Recent decisions (.baton/decisions)',
    ...folderExcerpts(join(input.projectRoot, '.baton', 'decisions')),
    '',
    '## Recent notes (.baton/notes)',
    ...folderExcerpts(join(input.projectRoot, '.baton', 'notes')),
    '',
    '## Sessions of the last 24 hours, with their last word',
    ...(recent.length === 0 ? ['(none)'] : recent.map((s) => sessionSummary(s, input.sessions))),
    '',
    '## Reporting',
    `Your final message is your report; it reaches the user's inbox. If you find nothing worth the user's attention, make your final message exactly "${NOTHING_TO_REPORT}" and change no files: the run is then archived quietly.`,
    "You may add notes (Markdown files in .baton/notes/) and create tasks through Baton's tools when they are available to you; never edit other sessions' worktrees.",
  ];
  return lines.join('\n');
}

function taskLines(input: BriefInput): string[] {
  if (input.tasks === undefined) return ['(tasks are not available)'];
  const tasks = input.tasks;
  if (tasks.length === 0) return ['(none)'];
  return tasks
    .slice(0, 50)
    .map((t) => `- #${t.id} [${t.column}] ${t.title}${t.tracker ? ` (${t.tracker})` : ''}`);
}

function sessionSummary(session: SessionWithProject, sessions: RoutineSessions): string {
  const last = sessions.lastMessage(session.id);
  return `- ${session.name} (${session.agent}, ${session.state.replace(/_/g, ' ')}): ${firstLine(session.prompt)}${last === undefined ? '' : `\n  last word: ${clip(last.replace(/\s+/g, ' '), EXCERPT)}`}`;
}

/** The newest Markdown files of a folder, each as its name and first lines; a folder that is not there is "(none)". */
function folderExcerpts(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.md'));
  } catch {
    return ['(none)'];
  }
  const files = names
    .map((name) => {
      try {
        return {
          name,
          mtime: statSync(join(folder, name)).mtimeMs,
          text: readFileSync(join(folder, name), 'utf8'),
        };
      } catch {
        return undefined;
      }
    })
    .filter((f) => f !== undefined)
    .sort((a, b) => b.mtime - a.mtime)
    .slice(0, FILES_PER_FOLDER);
  if (files.length === 0) return ['(none)'];
  return files.map((f) => `- ${f.name}: ${clip(f.text.replace(/\s+/g, ' ').trim(), EXCERPT)}`);
}

function firstLine(text: string): string {
  return clip(text.split('\n')[0] ?? '', 120);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
