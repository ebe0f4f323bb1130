/** What a session's agent is told when its work could not land: enough to fix it without asking. */
import type { z } from 'zod';
import type { MergeCheckOutcome } from '../events/workspace.js';
import type { SessionWithProject } from '../store/sessions.js';

export function conflictReport(
  session: SessionWithProject,
  base: string,
  files: string[],
  group: SessionWithProject[],
): string {
  const before = group
    .slice(
      0,
      group.findIndex((m) => m.id === session.id),
    )
    .map((m) => m.name);
  const against = before.length > 0 ? `${base} (with ${before.join(', ')} merged before you)` : base;
  return [
    `Baton could not merge your work (branch ${session.branch}) into ${against}: it conflicts in`,
    ...files.map((f) => `  - ${f}`),
    `Nothing was landed. Merge ${base} into your branch (\`git merge ${base}\`), resolve these conflicts, commit, and finish; then it can be merged again.`,
  ].join('\n');
}

export function checkReport(
  session: SessionWithProject,
  base: string,
  check: z.infer<typeof MergeCheckOutcome>,
  group: SessionWithProject[],
  bisected: boolean,
): string {
  const what =
    check.outcome === 'timed_out'
      ? `did not finish within its time limit and was stopped after ${((check.durationMs ?? 0) / 1000).toFixed(1)} s`
      : `failed (exit ${check.exitCode ?? 'by a signal'})`;
  const where = bisected
    ? `The group ${group.map((m) => m.name).join(', ')} was checked as a whole and then bisected: the check passes without your work and fails with it.`
    : `Your work merged cleanly onto ${base}.`;
  return [
    `${where} The repository's check \`${check.command ?? ''}\` ${what}, so nothing was landed. The end of its output:`,
    '```',
    check.outputTail ?? '',
    '```',
    `Fix it on your branch (${session.branch}) and finish; then it can be merged again.`,
  ].join('\n');
}
