/**
 * Files-changed counts for the board's cards. Each count costs two git processes, so counts are
 * cached per session until its event sequence moves on (agents change files through tools,
 * which log events) or the entry ages out (a person may edit the worktree by hand).
 */
import type { SessionManager } from '../sessions/manager.js';
import type { SessionWithProject } from '../store/sessions.js';
import { changedFiles } from '../worktrees/index.js';

const MAX_AGE_MS = 15_000;
const PARALLEL_GIT = 4;

export class ChangeCounts {
  private readonly cache = new Map<string, { seq: number; at: number; count: number }>();

  constructor(private readonly manager: SessionManager) {}

  async all(): Promise<Record<string, number>> {
    const sessions = this.manager.list();
    // Monotonic: a wall clock set back would keep stale counts for as long as it went back.
    const now = performance.now();
    const stale = sessions.filter((s) => {
      const cached = this.cache.get(s.id);
      return cached === undefined || cached.seq !== s.last_seq || now - cached.at > MAX_AGE_MS;
    });
    for (let i = 0; i < stale.length; i += PARALLEL_GIT) {
      await Promise.all(stale.slice(i, i + PARALLEL_GIT).map((s) => this.refresh(s, now)));
    }
    const live = new Set(sessions.map((s) => s.id));
    for (const id of this.cache.keys()) if (!live.has(id)) this.cache.delete(id);
    return Object.fromEntries(sessions.map((s) => [s.id, this.cache.get(s.id)?.count ?? 0]));
  }

  private async refresh(session: SessionWithProject, now: number): Promise<void> {
    // A worktree mid-removal or broken counts as no changes rather than failing the board.
    const files = await changedFiles(session.worktree, session.base_commit).catch(() => []);
    this.cache.set(session.id, { seq: session.last_seq, at: now, count: files.length });
  }
}
