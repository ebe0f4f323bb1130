/**
 * What an agent started from a task is told, besides Baton's own instructions (decision 75, "What a
 * session started from a task is told, and when"): the task, its scope, its decisions and notes, the
 * other sessions running and on what, and the rules of parallel work. Handed over as system prompt
 * (Claude) or developer instructions (Codex) at each start, never written into the repository's
 * CLAUDE.md or AGENTS.md.
 */
import type { Entry } from './files.js';

export interface TaskContext {
  task: {
    id: number;
    title: string;
    description: string;
    scope: readonly string[];
    tracker: string | null;
    trackerUrl: string | null;
  };
  decisions: readonly Entry[];
  notes: readonly Entry[];
  /** The other live sessions of the repository, and their tasks. */
  others: readonly {
    name: string;
    agent: string;
    state: string;
    task: { id: number; title: string; scope: readonly string[] } | null;
  }[];
}

export function taskInstructions(context: TaskContext): string {
  const { task } = context;
  const tracker = task.tracker === null ? '' : ` (tracker: ${task.trackerUrl ?? task.tracker})`;
  const lines = [`## Your task: ${task.id}. ${task.title}${tracker}`];
  if (task.description.trim() !== '') lines.push('', task.description.trim());
  lines.push('', '## Scope');
  if (task.scope.length === 0) lines.push('No scope is set for this task: change only what the task needs.');
  else
    lines.push(
      `Change only files matching ${task.scope.map((g) => `\`${g}\``).join(', ')}. Do not modify files outside ${task.scope.join(', ')}; if the task needs such a change, say so and ask instead.`,
    );
  lines.push('', '## Decisions already made (follow them)');
  lines.push(...list(context.decisions, 'None yet.'));
  lines.push('', '## Notes');
  lines.push(...list(context.notes, 'None yet.'));
  lines.push('', '## Other sessions working on this repository now');
  if (context.others.length === 0) lines.push('None: you are the only one.');
  for (const other of context.others) {
    const on =
      other.task === null
        ? 'no task'
        : `task ${other.task.id}. ${other.task.title}${other.task.scope.length === 0 ? '' : ` (scope ${other.task.scope.join(', ')})`}`;
    lines.push(`- ${other.name} (${other.agent}, ${other.state.replace(/_/g, ' ')}): ${on}`);
  }
  lines.push(
    '',
    '## Rules for parallel work',
    '- Other agents are editing this repository at the same time on their own branches. A build or test error in a file you did not touch may be another agent mid-edit: do not fix it, mention it.',
    '- Keep changes minimal and inside your scope. No unrelated refactors, renames or formatting changes.',
    '- Do not edit .baton/ files; the person running Baton records decisions and notes there.',
  );
  return lines.join('\n');
}

function list(entries: readonly Entry[], none: string): string[] {
  if (entries.length === 0) return [none];
  return entries.map((e) => `- ${e.text.replace(/\s*\n\s*/g, ' ')} (${e.file})`);
}
