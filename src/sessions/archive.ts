/**
 * Disk and cleanup across a repository's worktrees (decision 62, "Carried changes and restores go
 * through a tree"): `du`, `gc` by the repository's cleanup policy (archiving = `rm`: teardown, snapshot
 * of uncommitted work, removal), the list of snapshots, and `restore`. Nothing here deletes work
 * without a snapshot: gc goes through the same removal as `baton rm`, which snapshots first.
 */
import { existsSync } from 'node:fs';
import { diskUse, pickForArchive, type GcDecision } from '../environments/index.js';
import { loadRepoConfig } from '../projects/index.js';
import { InvalidInputError, SessionStateError } from '../shared/errors.js';
import { homePaths } from '../shared/paths.js';
import {
  findRepository,
  listSnapshots,
  projectWorktreePath,
  restoreSnapshot,
  type SnapshotInfo,
} from '../worktrees/index.js';
import type { SessionCommands } from './commands.js';
import type { SessionsCore } from './core.js';
import { validateSessionName } from './names.js';

export interface DiskRow {
  session: string;
  project: string;
  worktree: string;
  ownedBytes: number;
  sharedBytes: number;
}

export class Archive {
  constructor(
    private readonly core: SessionsCore,
    private readonly commands: SessionCommands,
  ) {}

  /** Disk per worktree; the total counts a file hard-linked into several worktrees once. */
  du(): { worktrees: DiskRow[]; totalOwnedBytes: number; totalSharedBytes: number } {
    const rows: DiskRow[] = [];
    const seen = new Set<number>();
    let totalOwnedBytes = 0;
    let totalSharedBytes = 0;
    for (const s of this.core.store.listLive()) {
      if (!existsSync(s.worktree)) continue;
      const alone = diskUse(s.worktree);
      rows.push({ session: s.name, project: s.project_name, worktree: s.worktree, ...alone });
      const counted = diskUse(s.worktree, seen);
      totalOwnedBytes += counted.ownedBytes;
      totalSharedBytes += counted.sharedBytes;
    }
    return { worktrees: rows, totalOwnedBytes, totalSharedBytes };
  }

  /** Archives the repository's idle worktrees by its cleanup policy; with `dryRun`, only says which. */
  async gc(
    cwd: string,
    dryRun: boolean,
    now = new Date(),
  ): Promise<{ decisions: GcDecision[]; archived: { name: string; snapshotRef: string | null }[] }> {
    const repo = await findRepository(cwd);
    const policy = loadRepoConfig(repo.root).cleanup ?? {};
    if (policy.idleHours === undefined && policy.maxWorktrees === undefined) {
      throw new InvalidInputError(
        `${repo.root} has no cleanup policy; set cleanup.idleHours and/or cleanup.maxWorktrees in .baton/config.json.`,
      );
    }
    // In-place sessions work in the main checkout, which is never archived.
    const sessions = this.core.store
      .listLive()
      .filter((s) => s.project_root === repo.root && s.worktree !== repo.root && existsSync(s.worktree));
    const decisions = pickForArchive(
      sessions.map((s) => ({
        id: s.id,
        name: s.name,
        state: s.state,
        pinned: s.pinned === 1,
        lastActivity: s.last_event_at ?? s.created_at,
      })),
      policy,
      now,
    );
    const archived: { name: string; snapshotRef: string | null }[] = [];
    if (!dryRun) {
      for (const d of decisions) {
        const { result } = await this.commands.remove(d.id);
        archived.push({ name: d.name, snapshotRef: result.snapshotRef ?? null });
      }
    }
    return { decisions, archived };
  }

  async snapshots(cwd: string): Promise<SnapshotInfo[]> {
    return listSnapshots((await findRepository(cwd)).root);
  }

  /** Brings snapshot `name` back as a worktree on `baton/<as>`; a name in use is refused before anything is made. */
  async restore(
    cwd: string,
    name: string,
    as = name,
  ): Promise<{ snapshot: SnapshotInfo; worktree: string; branch: string }> {
    validateSessionName(as);
    const repo = await findRepository(cwd);
    const project = this.core.store.findProjectByRoot(repo.root);
    if (project === undefined)
      throw new InvalidInputError(
        `Baton has no sessions in ${repo.root}, so it has nothing to restore there.`,
      );
    if (this.core.store.nameTaken(project.id, as))
      throw new SessionStateError(
        `A session named "${as}" exists in this project; restore under another name with --as <name>.`,
      );
    const worktree = projectWorktreePath(homePaths(this.core.home).worktrees, project.name, as);
    const branch = `baton/${as}`;
    const snapshot = await restoreSnapshot(repo.root, name, worktree, branch);
    return { snapshot, worktree, branch };
  }
}
