/**
 * A project's coupled groups, computed from its live sessions: each one's work snapshotted (its
 * worktree left untouched; another machine's read from what it pushed), analysed (cached by tree id), references between non-code files
 * found, then grouped. Snapshots run a few at a time so twenty sessions do not start sixty git
 * processes at once on a small machine.
 */
import { existsSync } from 'node:fs';
import type { SessionWithProject } from '../store/sessions.js';
import { snapshotWork, type WorkSnapshot } from '../worktrees/index.js';
import { coupledGroups, type Edge, type Group, type MemberWork } from './coupling.js';
import { isTest, mentions, resolveSpecifier } from './imports.js';
import type { WorkAnalysis, WorkAnalyzer } from './work.js';

const PARALLEL = 4;

export interface Member {
  session: SessionWithProject;
  snapshot: WorkSnapshot;
  analysis: WorkAnalysis;
}

export interface ProjectGroups {
  members: Map<string, Member>;
  groups: Group[];
}

/** Another machine's session of the project with its work as that machine last pushed it (fetched here: its objects are in the repository). */
export interface PushedMember {
  session: SessionWithProject;
  snapshot: WorkSnapshot;
}

export async function computeGroups(
  analyzer: WorkAnalyzer,
  sessions: readonly SessionWithProject[],
  elsewhere: readonly PushedMember[] = [],
): Promise<ProjectGroups> {
  const live = sessions.filter((s) => s.removed_at === null && existsSync(s.worktree));
  const members = new Map<string, Member>();
  await mapLimit(elsewhere, PARALLEL, async ({ session, snapshot }) => {
    const analysis = await analyzer.analyze(session.project_root, session.base_commit, snapshot.tree);
    members.set(session.id, { session, snapshot, analysis });
  });
  await mapLimit(live, PARALLEL, async (session) => {
    let snapshot: WorkSnapshot;
    try {
      snapshot = await snapshotWork(session.worktree);
    } catch (error) {
      // Removed (or being removed) since the list was read: it is simply no longer in a group.
      if (!existsSync(session.worktree)) return;
      throw error;
    }
    const analysis = await analyzer.analyze(session.project_root, session.base_commit, snapshot.tree);
    members.set(session.id, { session, snapshot, analysis });
  });

  // Every file a live session adds, by path: an import one session's work cannot resolve in its
  // own tree may name a file another session is writing (its test, written first).
  const addedBy = new Set<string>();
  for (const member of members.values()) member.analysis.added.forEach((p) => addedBy.add(p));
  const works: MemberWork[] = [];
  for (const member of members.values()) {
    const others = new Set<string>();
    for (const other of members.values())
      if (other !== member) other.analysis.changed.forEach((p) => others.add(p));
    member.analysis.changed.forEach((p) => others.delete(p));
    const edges: Edge[] = [...member.analysis.edges];
    for (const { from, specifier, kind } of member.analysis.unresolved) {
      const to = resolveSpecifier(from, specifier, addedBy);
      if (to !== undefined && to !== from) edges.push({ from, to, kind });
    }
    for (const { path, oid } of member.analysis.texts) {
      if (others.size === 0) break;
      const text = await analyzer.text(member.session.project_root, oid);
      // A test in another language naming the other's module tests it (tests/test_watcher.py: `from app.watcher import …`).
      for (const target of others)
        if (mentions(text, target))
          edges.push({ from: path, to: target, kind: isTest(path) ? 'tests' : 'mentions' });
    }
    works.push({
      id: member.session.id,
      name: member.session.name,
      createdAt: member.session.created_at,
      changed: member.analysis.changed,
      edges,
    });
  }
  return { members, groups: coupledGroups(works) };
}

async function mapLimit<T>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
