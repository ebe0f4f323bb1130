/**
 * The stale-work report: sessions idle longer than N hours, Baton branches not merged into the
 * base, and conflicts the radar sees; the agent says what to finish, merge or drop.
 */
import { git } from '../../worktrees/index.js';
import { numberOption, type RoutineTemplate } from './template.js';

const IDLE_STATES = new Set(['working', 'needs_input', 'ready_for_review', 'stopped', 'failed']);

export const staleWork: RoutineTemplate = {
  name: 'stale-work',
  description: 'idle sessions, unmerged Baton branches and radar conflicts, with a recommendation for each',
  options: { hours: 24 },
  async prepare(ctx) {
    const hours = numberOption(ctx, 'hours', 24);
    const cutoff = ctx.now.getTime() - hours * 3600_000;
    const sessions = ctx.sessions
      .list()
      .filter((s) => s.project_root === ctx.projectRoot && s.removed_at === null);
    const idle = sessions.filter(
      (s) => IDLE_STATES.has(s.state) && Date.parse(s.last_event_at ?? s.updated_at) < cutoff,
    );
    const live = new Set(sessions.map((s) => s.branch));
    const head =
      (
        await git(ctx.projectRoot, ['symbolic-ref', '--short', 'HEAD'], { okExitCodes: [128] })
      ).stdout.trim() || 'HEAD';
    const branches = (
      await git(ctx.projectRoot, [
        'branch',
        '--list',
        'baton/*',
        '--no-merged',
        head,
        '--format=%(refname:short) %(committerdate:iso-strict)',
      ])
    ).stdout
      .split('\n')
      .filter((line) => line.trim() !== '');
    const orphaned = branches.filter((line) => !live.has(line.split(' ')[0] ?? ''));
    const conflicts = ctx.conflicts?.() ?? [];
    if (idle.length === 0 && orphaned.length === 0 && conflicts.length === 0)
      return {
        nothing: `no session idle for ${hours} h, no unmerged Baton branch without a session, no conflict`,
      };
    return {
      prompt: [
        `Report on stale work in this repository (base ${head}). For each item recommend finish, merge, or drop, with a line of reasoning. Do not change any files.`,
        '',
        `Sessions idle for more than ${hours} h:`,
        ...(idle.length === 0
          ? ['(none)']
          : idle.map(
              (s) =>
                `- ${s.name} (${s.agent}, ${s.state.replace(/_/g, ' ')}, last activity ${s.last_event_at ?? s.updated_at}): ${s.prompt.split('\n')[0]}`,
            )),
        '',
        'Baton branches not merged, with no session left:',
        ...(orphaned.length === 0 ? ['(none)'] : orphaned.map((line) => `- ${line}`)),
        '',
        'Conflicts the radar sees:',
        ...(conflicts.length === 0
          ? ['(none)']
          : conflicts.map((c) => `- ${c.a} ↔ ${c.b}: ${c.level} (${c.files.join(', ')})`)),
      ].join('\n'),
    };
  },
};
