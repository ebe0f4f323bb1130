/**
 * Another machine's sessions taken up by this machine's review, radar and merge (decision 143, "Another
 * machine's session lands here"): each is seen as a member of this machine's own checkout of the same
 * repository (matched by the repository's identity every view carries), its work read from what its
 * machine pushed to the shared remote. A member's worktree is a path that never exists here, so every
 * domain reads its work from git objects, never from a folder.
 */
import { join } from 'node:path';
import type { SessionView } from '../../api/index.js';
import { SessionStore, type ProjectRow, type SessionWithProject } from '../../store/sessions.js';
import type { Db } from '../../store/db.js';
import { fetchPushedWork, pushedWork, type PushedWork } from '../../sync/index.js';
import { findRepository } from '../../worktrees/index.js';
import { errorMessage, InvalidInputError } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { RemoteSessions } from './sessions.js';
import { RepoKeys } from './repo-keys.js';

const log = createLogger('cluster');

export interface ElsewhereMember {
  session: SessionWithProject;
  view: SessionView;
}

export class ElsewhereWork {
  readonly keys = new RepoKeys();
  private readonly projects: SessionStore;

  constructor(
    private readonly remote: () => RemoteSessions | undefined,
    db: Db,
    private readonly home: string,
  ) {
    this.projects = new SessionStore(db);
  }

  /**
   * This machine's checkout of repository `repo`: the repository at `cwd` first (registered as a
   * project when it matches), else a project this machine knows.
   */
  async projectOf(repo: string, cwd?: string): Promise<ProjectRow | undefined> {
    if (cwd !== undefined) {
      const here = await findRepository(cwd).catch(() => undefined);
      if (here !== undefined && (await this.keys.of(here.root)) === repo)
        return this.projects.ensureProject(here.root);
    }
    for (const project of this.projects.projects()) {
      if ((await this.keys.of(project.root)) === repo) return project;
    }
    return undefined;
  }

  /** The other machines' live sessions whose repository this machine has a checkout of, as its members. */
  async members(): Promise<ElsewhereMember[]> {
    const remote = this.remote();
    if (remote === undefined) return [];
    const found: ElsewhereMember[] = [];
    for (const view of remote.list()) {
      if (view.repo === undefined) continue;
      const project = await this.projectOf(view.repo);
      if (project !== undefined) found.push({ view, session: this.member(view, project) });
    }
    return found;
  }

  /** `view` as a session of `project` here. */
  member(view: SessionView, project: ProjectRow): SessionWithProject {
    return asMember(view, project, join(this.home, 'elsewhere', view.machine ?? 'unknown', view.id));
  }

  /**
   * The members' work as their machines last pushed it: one fetch per repository, then each
   * member's branch and snapshot. A member never pushed is missing from the answer; the members of
   * a repository whose remote cannot be reached are named in `unread`, so they are asked again.
   */
  async work(
    members: readonly SessionWithProject[],
  ): Promise<Map<string, PushedWork> & { unread: Set<string> }> {
    const work = Object.assign(new Map<string, PushedWork>(), { unread: new Set<string>() });
    const roots = new Set(members.map((m) => m.project_root));
    for (const root of roots) {
      try {
        await fetchPushedWork(root);
      } catch (error) {
        log.warn("could not fetch the other machines' pushed work", { root, error: errorMessage(error) });
        for (const member of members) if (member.project_root === root) work.unread.add(member.id);
        continue;
      }
      for (const member of members.filter((m) => m.project_root === root)) {
        const pushed = await pushedWork(root, { id: member.id, name: remoteBranchName(member) }).catch(
          () => undefined,
        );
        if (pushed !== undefined) work.set(member.id, pushed);
      }
    }
    return work;
  }
}

/** The name its machine pushed the session's branch under (`baton/<name>` on the remote). */
export function remoteBranchName(member: SessionWithProject): string {
  return member.name;
}

/** A view of another machine's session as a row of this machine's `project`, its worktree `elsewhere` (never created). */
export function asMember(view: SessionView, project: ProjectRow, elsewhere: string): SessionWithProject {
  if (view.machine === undefined)
    throw new InvalidInputError(`${view.name} is not another machine's session.`);
  return {
    id: view.id,
    project_id: project.id,
    project_name: project.name,
    project_root: project.root,
    name: view.name,
    agent: view.agent,
    prompt: view.prompt,
    model: view.model,
    permission_mode: view.permissionMode,
    options_json: '{}',
    state: view.state,
    state_reason_json: view.reason === null ? null : JSON.stringify(view.reason),
    pinned: view.pinned ? 1 : 0,
    branch: view.branch,
    base_ref: view.baseRef,
    base_commit: view.baseCommit,
    worktree: elsewhere,
    host_pid: null,
    agent_session_id: null,
    last_seq: view.lastSeq,
    ingested_offset: 0,
    input_tokens: view.inputTokens,
    output_tokens: view.outputTokens,
    cost_usd: view.costUsd,
    activity: view.activity,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    last_event_at: view.lastEventAt,
    removed_at: null,
    snapshot_ref: null,
    task_id: null,
    task_title: view.task?.title ?? null,
    task_tracker: view.task?.tracker ?? null,
  };
}
