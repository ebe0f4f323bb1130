/**
 * The review domain's face: groups of coupled sessions per project, a group's combined review,
 * per-file review state and comments that go back to the session that wrote the lines. Sessions
 * come in through `deps` (the supervisor passes the session manager's list and reply), so this
 * domain never reaches into the sessions domain itself.
 */
import type { z } from 'zod';
import type {
  GroupReview,
  ReviewCommentRequest,
  ReviewGroupList,
  ReviewGroupSummary,
} from '../api/review.js';
import type { WorkspaceBus } from '../bus/index.js';
import {
  ReviewCommentSent,
  ReviewFileStateReset,
  ReviewFileStateSet,
  ReviewGroupsChanged,
} from '../events/workspace.js';
import { errorMessage, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import { ReviewFileStore, type ReviewFileState } from '../store/review.js';
import type { SessionWithProject } from '../store/sessions.js';
import { snapshotCommit } from '../worktrees/index.js';
import { combine, groupBase, type Combined } from './combine.js';
import { buildComment } from './comment.js';
import type { Group } from './coupling.js';
import { AmbiguousProjectError, ReviewGroupNotFoundError, ReviewProjectNotFoundError } from './errors.js';
import { computeGroups, type Member, type ProjectGroups, type PushedMember } from './groups.js';
import { Bounded } from './objects.js';
import { WorkAnalyzer } from './work.js';

const log = createLogger('review');

/** How long after the last question about a project its groups are kept current by themselves. */
export const WATCH_MS = 30 * 60 * 1000;

export interface ReviewDeps {
  db: Db;
  bus: WorkspaceBus;
  /** Live sessions, oldest first. */
  sessions: () => SessionWithProject[];
  /** Sends a reply to a session (resuming it if it must), another machine's through its machine. */
  reply: (sessionId: string, text: string) => Promise<unknown>;
  /** Other machines' sessions of this machine's projects, with their pushed work (a shared workspace). */
  elsewhere?: (() => Promise<PushedMember[]>) | undefined;
  clock?: () => Date;
}

interface Project {
  id: string;
  name: string;
  root: string;
}

interface Resolved {
  project: Project;
  computed: ProjectGroups;
  group: Group;
}

export class ReviewService {
  readonly analyzer = new WorkAnalyzer();
  private readonly files: ReviewFileStore;
  private readonly combined = new Bounded<string, Promise<Combined>>(32);
  /** The last groups published per project, to publish `review.groups_changed` only on a change. */
  private readonly published = new Map<string, string>();
  /** When someone last asked about each project's review (a listing, a group, a state, a comment). */
  private readonly asked = new Map<string, number>();
  private readonly clock: () => Date;
  /** The projects of the other machines' members at the last read. */
  private remoteProjects: Project[] = [];

  constructor(private readonly deps: ReviewDeps) {
    this.files = new ReviewFileStore(deps.db);
    this.clock = deps.clock ?? (() => new Date());
  }

  async listGroups(projectRef?: string, cwd?: string): Promise<ReviewGroupList> {
    const started = performance.now();
    await this.elsewhere();
    const projects =
      projectRef !== undefined || this.projectAt(cwd) !== undefined
        ? [this.project(projectRef, cwd)]
        : this.projects();
    const out: ReviewGroupList['projects'] = [];
    for (const project of projects) {
      const computed = await this.compute(project);
      out.push({
        project: project.name,
        root: project.root,
        groups: computed.groups.map((g) => summary(g, computed.members)),
      });
    }
    return { projects: out, ms: Math.round(performance.now() - started) };
  }

  async group(ref: string, projectRef?: string, cwd?: string): Promise<GroupReview> {
    return (await this.review(ref, projectRef, cwd)).review;
  }

  /** The group's review, and what each file's state is tied to. */
  private async review(
    ref: string,
    projectRef?: string,
    cwd?: string,
  ): Promise<{ review: GroupReview; project: Project; keys: Map<string, string> }> {
    const { project, computed, group } = await this.resolve(ref, projectRef, cwd);
    const members = group.members.map((id) => computed.members.get(id)!);
    const base = await groupBase(
      project.root,
      members.map((m) => m.session.base_commit),
    );
    const combined = await this.combine(project.root, base, members);
    const rows = this.files.get(
      project.id,
      combined.files.map((f) => f.path),
    );
    const files = combined.files.map(({ contentKey, ...file }) => {
      const row = rows.get(file.path);
      let state: ReviewFileState | 'none' = 'none';
      if (row !== undefined && row.content_key === contentKey) state = row.state;
      else if (row !== undefined && this.files.clear(project.id, file.path)) {
        this.deps.bus.publish(ReviewFileStateReset, {
          project: project.name,
          path: file.path,
          previous: row.state,
        });
      }
      return { ...file, state };
    });
    const review = {
      ...summary(group, computed.members),
      project: project.name,
      root: project.root,
      base,
      conflicts: combined.files
        .filter((f) => f.conflict !== null)
        .map((f) => ({ path: f.path, sessions: f.conflict!.sessions })),
      files,
    };
    return { review, project, keys: new Map(combined.files.map((f) => [f.path, f.contentKey])) };
  }

  async setFileState(
    ref: string,
    path: string,
    state: ReviewFileState | 'none',
    projectRef?: string,
    cwd?: string,
    message?: string,
  ): Promise<{
    path: string;
    state: ReviewFileState | 'none';
    sessions: string[];
    sentTo: { id: string; name: string }[];
  }> {
    const text = message?.trim() ?? '';
    if (text !== '' && state !== 'changes_requested')
      throw new InvalidInputError(
        'A message goes with requesting changes only; to say something about lines, comment on them.',
      );
    const { review, project, keys } = await this.review(ref, projectRef, cwd);
    const file = this.fileOf(review, path);
    if (state === 'none') this.files.clear(project.id, file.path);
    else this.files.set(project.id, file.path, state, keys.get(file.path)!, this.clock());
    this.deps.bus.publish(ReviewFileStateSet, {
      project: project.name,
      group: review.number,
      path: file.path,
      state,
      sessions: file.sessions,
    });
    const recipients = text === '' ? [] : review.members.filter((m) => file.sessions.includes(m.name));
    for (const member of recipients) {
      const others = file.sessions.filter((n) => n !== member.name);
      const reply = `Changes requested on ${file.path}${others.length > 0 ? ` (changed by you and ${others.join(', ')})` : ''}, in the combined review of group ${review.number}:\n\n${text}`;
      await this.deps.reply(member.id, reply);
    }
    return {
      path: file.path,
      state,
      sessions: file.sessions,
      sentTo: recipients.map((m) => ({ id: m.id, name: m.name })),
    };
  }

  async comment(
    ref: string,
    request: z.output<typeof ReviewCommentRequest>,
    projectRef?: string,
    cwd?: string,
  ): Promise<{ sentTo: { id: string; name: string }[]; reply: string }> {
    if (request.text.trim() === '')
      throw new InvalidInputError('The comment is empty: write what the session should change.');
    const review = await this.group(ref, projectRef, cwd);
    const file = this.fileOf(review, request.path);
    const { recipients, reply, startLine, endLine } = buildComment(review, file, request);
    for (const member of recipients) {
      await this.deps.reply(member.id, reply);
      this.deps.bus.publish(ReviewCommentSent, {
        project: review.project,
        group: review.number,
        path: file.path,
        startLine,
        endLine,
        sessionId: member.id,
        name: member.name,
      });
    }
    return { sentTo: recipients.map((m) => ({ id: m.id, name: m.name })), reply };
  }

  /** Whether someone asked about the project's review in the last half hour: its groups are then kept current by `watchGroups`. */
  watched(projectName: string): boolean {
    const at = this.asked.get(projectName);
    return at !== undefined && this.clock().getTime() - at < WATCH_MS;
  }

  /** Recomputes a project's groups (after a session's turn ends or it is removed), publishing a change. */
  async refresh(projectName: string): Promise<void> {
    const project = this.projects().find((p) => p.name === projectName);
    if (project !== undefined) await this.compute(project, false);
    else if (this.published.has(projectName)) {
      this.published.delete(projectName);
      this.deps.bus.publish(ReviewGroupsChanged, { project: projectName, groups: [] });
    }
  }

  private fileOf(review: GroupReview, path: string): GroupReview['files'][number] {
    const clean = path.replace(/^\.\//, '');
    const file = review.files.find((f) => f.path === clean);
    if (file !== undefined) return file;
    const paths = review.files.map((f) => f.path);
    throw new InvalidInputError(
      `${path} is not among the files group ${review.number} changes${paths.length === 0 ? ' (it changes none yet)' : `: ${paths.slice(0, 20).join(', ')}${paths.length > 20 ? ', …' : ''}`}.`,
      { path, files: paths },
    );
  }

  private async compute(project: Project, asked = true): Promise<ProjectGroups> {
    if (asked) this.asked.set(project.name, this.clock().getTime());
    const elsewhere = (await this.elsewhere()).filter((m) => m.session.project_id === project.id);
    const computed = await computeGroups(
      this.analyzer,
      this.deps.sessions().filter((s) => s.project_id === project.id),
      elsewhere,
    );
    const groups = computed.groups.map((g) => ({
      number: g.number,
      sessions: g.members.map((id) => computed.members.get(id)!.session.name),
    }));
    const signature = JSON.stringify(groups);
    if (this.published.get(project.name) !== signature) {
      this.published.set(project.name, signature);
      this.deps.bus.publish(ReviewGroupsChanged, { project: project.name, groups });
    }
    return computed;
  }

  /** Other machines' members; none when they cannot be read (this machine's groups still answer). */
  private async elsewhere(): Promise<PushedMember[]> {
    if (this.deps.elsewhere === undefined) return [];
    try {
      const members = await this.deps.elsewhere();
      // This machine's checkouts that only other machines' sessions work in have groups too.
      this.remoteProjects = [
        ...new Map(
          members.map((m) => [
            m.session.project_id,
            { id: m.session.project_id, name: m.session.project_name, root: m.session.project_root },
          ]),
        ).values(),
      ];
      return members;
    } catch (error) {
      log.warn("could not read the other machines' sessions; groups of this machine's alone", {
        error: errorMessage(error),
      });
      return [];
    }
  }

  private async resolve(ref: string, projectRef?: string, cwd?: string): Promise<Resolved> {
    await this.elsewhere();
    const project = this.project(projectRef, cwd);
    const computed = await this.compute(project);
    const number = /^\d+$/.test(ref) ? Number(ref) : undefined;
    const group =
      number !== undefined
        ? computed.groups.find((g) => g.number === number)
        : computed.groups.find((g) =>
            g.members.some((id) => id === ref || computed.members.get(id)!.session.name === ref),
          );
    if (group === undefined) throw new ReviewGroupNotFoundError(ref, project.name, computed.groups.length);
    return { project, computed, group };
  }

  private async combine(root: string, base: string, members: readonly Member[]): Promise<Combined> {
    const key = `${base}|${members.map((m) => `${m.snapshot.head}:${m.snapshot.tree}`).join('|')}`;
    const cached = this.combined.get(key);
    if (cached !== undefined) return cached;
    const running = (async () => {
      // In the repository, not the worktree: the objects are shared, and a worktree removed since it was read must not fail the review.
      const commits = await Promise.all(
        members.map((m) => snapshotCommit(root, m.snapshot, `baton review: ${m.session.name}`)),
      );
      return combine(
        root,
        base,
        members.map((m, i) => ({
          name: m.session.name,
          base: m.session.base_commit,
          commit: commits[i]!,
          tree: m.snapshot.tree,
          changed: m.analysis.changed,
        })),
      );
    })();
    running.catch(() => this.combined.delete(key));
    return this.combined.set(key, running);
  }

  private projects(): Project[] {
    const byId = new Map<string, Project>();
    for (const s of this.deps.sessions())
      byId.set(s.project_id, { id: s.project_id, name: s.project_name, root: s.project_root });
    for (const p of this.remoteProjects) if (!byId.has(p.id)) byId.set(p.id, p);
    return [...byId.values()];
  }

  /** The project a working directory is in: its repository or one of its sessions' worktrees. */
  private projectAt(cwd: string | undefined): Project | undefined {
    if (cwd === undefined) return undefined;
    const inside = (root: string) => cwd === root || cwd.startsWith(root.endsWith('/') ? root : `${root}/`);
    const session = this.deps.sessions().find((s) => inside(s.project_root) || inside(s.worktree));
    if (session === undefined) return this.remoteProjects.find((p) => inside(p.root));
    return { id: session.project_id, name: session.project_name, root: session.project_root };
  }

  private project(ref?: string, cwd?: string): Project {
    const projects = this.projects();
    if (ref !== undefined) {
      const found = projects.find((p) => p.name === ref || p.root === ref);
      if (found === undefined)
        throw new ReviewProjectNotFoundError(
          ref,
          projects.map((p) => p.name),
        );
      return found;
    }
    const here = this.projectAt(cwd);
    if (here !== undefined) return here;
    if (projects.length === 1) return projects[0]!;
    if (projects.length === 0) throw new ReviewProjectNotFoundError(cwd ?? '(none given)', []);
    throw new AmbiguousProjectError(projects.map((p) => p.name));
  }
}

function summary(group: Group, members: Map<string, Member>): ReviewGroupSummary {
  return {
    number: group.number,
    members: group.members.map((id) => {
      const m = members.get(id)!;
      return {
        id,
        name: m.session.name,
        state: m.session.state,
        branch: m.session.branch,
        filesChanged: m.analysis.changed.length,
      };
    }),
    reasons: group.reasons,
  };
}
