/**
 * The owner's side of a landing elsewhere (decision 143): a session another machine landed is
 * retired here — completed, its worktree removed with a snapshot kept of anything left — only if
 * it is still exactly what was handed over: no event since, its branch at the landed commit, and
 * no change in its worktree. Anything newer keeps the session, and the landing machine says why.
 */
import { existsSync } from 'node:fs';
import { branchTip, requireMergeable } from '../../merge/index.js';
import { SessionStateError } from '../../shared/errors.js';
import type { SessionManager } from '../../sessions/index.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { git } from '../../worktrees/index.js';

export async function retireLanded(
  manager: SessionManager,
  command: { sessionId: string; commit: string; lastSeq: number },
): Promise<SessionWithProject> {
  const session = manager.resolve(command.sessionId);
  const kept = (why: string): never => {
    throw new SessionStateError(
      `${session.name} ${why} since it was handed over, so it was not retired there: what landed is the work as handed over.`,
      { reason: 'changed' },
    );
  };
  requireMergeable(session, manager);
  if (session.last_seq !== command.lastSeq) kept('ran again');
  if ((await branchTip(session.project_root, session.branch)) !== command.commit) kept('has new commits');
  if (existsSync(session.worktree)) {
    const status = await git(session.worktree, ['status', '--porcelain', '--untracked-files=all']);
    if (status.stdout.trim() !== '') kept('has uncommitted changes made');
  }
  await manager.done(session.id);
  return (await manager.remove(session.id)).session;
}
