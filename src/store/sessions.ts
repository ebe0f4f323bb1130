/** The sessions and projects tables. */
import type { SessionState, StateReason } from '../events/index.js';
import { newId } from '../shared/ids.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

export interface ProjectRow {
  id: string;
  name: string;
  root: string;
  created_at: string;
}

export interface SessionRow {
  id: string;
  project_id: string;
  name: string;
  agent: string;
  prompt: string;
  model: string | null;
  permission_mode: string;
  options_json: string;
  state: SessionState;
  state_reason_json: string | null;
  pinned: number;
  branch: string;
  base_ref: string;
  base_commit: string;
  worktree: string;
  host_pid: number | null;
  agent_session_id: string | null;
  last_seq: number;
  ingested_offset: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  activity: string | null;
  created_at: string;
  updated_at: string;
  last_event_at: string | null;
  removed_at: string | null;
  snapshot_ref: string | null;
  /**
   * The task the session was started from (decision 71, "Tasks are their own domain beside sessions"),
   * if any.
   */
  task_id: number | null;
}

export interface SessionWithProject extends SessionRow {
  project_name: string;
  project_root: string;
  /** The title and tracker reference of the session's task, shown beside its questions. */
  task_title: string | null;
  task_tracker: string | null;
}

export type NewSession = Pick<
  SessionRow,
  | 'id'
  | 'project_id'
  | 'name'
  | 'agent'
  | 'prompt'
  | 'model'
  | 'permission_mode'
  | 'options_json'
  | 'branch'
  | 'base_ref'
  | 'base_commit'
  | 'worktree'
> & { task_id?: number | null };

const SELECT = `SELECT s.*, p.name AS project_name, p.root AS project_root, t.title AS task_title, t.tracker AS task_tracker
  FROM sessions s JOIN projects p ON p.id = s.project_id LEFT JOIN tasks t ON t.id = s.task_id`;

export class SessionStore {
  constructor(private readonly db: Db) {}

  // Ingestion reads a session's row and writes its projection at every batch: prepared once, not
  // at each call (decision 410).
  private getStatement: Statement | undefined;
  private projectionStatement: Statement | undefined;

  /** The project for a repository root, created on first use with a unique folder-friendly name. */
  projects(): ProjectRow[] {
    return this.db.prepare('SELECT * FROM projects ORDER BY name').all() as ProjectRow[];
  }

  ensureProject(root: string): ProjectRow {
    const existing = this.db.prepare('SELECT * FROM projects WHERE root = ?').get(root) as
      ProjectRow | undefined;
    if (existing) return existing;
    const base =
      (root.split('/').filter(Boolean).pop() ?? 'project')
        .replace(/[^A-Za-z0-9._-]/g, '-')
        .replace(/^[-.]+/, '') || 'project';
    let name = base;
    for (let n = 2; this.db.prepare('SELECT 1 FROM projects WHERE name = ?').get(name); n++)
      name = `${base}-${n}`;
    const row: ProjectRow = { id: newId(), name, root, created_at: new Date().toISOString() };
    this.db
      .prepare('INSERT INTO projects (id, name, root, created_at) VALUES (@id, @name, @root, @created_at)')
      .run(row);
    return row;
  }

  insert(session: NewSession, state: SessionState): void {
    const now = new Date().toISOString();
    this.db
      .prepare(
        `INSERT INTO sessions (id, project_id, name, agent, prompt, model, permission_mode, options_json, state,
           branch, base_ref, base_commit, worktree, task_id, created_at, updated_at)
         VALUES (@id, @project_id, @name, @agent, @prompt, @model, @permission_mode, @options_json, @state,
           @branch, @base_ref, @base_commit, @worktree, @task_id, @now, @now)`,
      )
      .run({ ...session, task_id: session.task_id ?? null, state, now });
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM events WHERE session_id = ?').run(id);
    this.db.prepare('DELETE FROM approvals WHERE session_id = ?').run(id);
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  get(id: string): SessionWithProject | undefined {
    this.getStatement ??= this.db.prepare(`${SELECT} WHERE s.id = ?`);
    return this.getStatement.get(id) as SessionWithProject | undefined;
  }

  /**
   * The repository (its main checkout's root) of the live session working in `worktree`, from
   * the records: Baton's git takes a session's git folders from it, never from the worktree's own
   * `.git` file (decision 201).
   */
  repositoryOfWorktree(worktree: string): string | undefined {
    const row = this.db
      .prepare(
        'SELECT p.root AS root FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.worktree = ? AND s.removed_at IS NULL LIMIT 1',
      )
      .get(worktree) as { root: string } | undefined;
    return row?.root;
  }

  /** Live (not removed) sessions, oldest first. */
  listLive(projectId?: string): SessionWithProject[] {
    if (projectId !== undefined) {
      return this.db
        .prepare(`${SELECT} WHERE s.removed_at IS NULL AND s.project_id = ? ORDER BY s.rowid`)
        .all(projectId) as SessionWithProject[];
    }
    return this.db
      .prepare(`${SELECT} WHERE s.removed_at IS NULL ORDER BY s.rowid`)
      .all() as SessionWithProject[];
  }

  /** Removed sessions (landed, or removed by hand), newest first: their record stays (decision 168). */
  listRemoved(projectId?: string): SessionWithProject[] {
    if (projectId !== undefined)
      return this.db
        .prepare(
          `${SELECT} WHERE s.removed_at IS NOT NULL AND s.project_id = ? ORDER BY s.removed_at DESC, s.rowid DESC`,
        )
        .all(projectId) as SessionWithProject[];
    return this.db
      .prepare(`${SELECT} WHERE s.removed_at IS NOT NULL ORDER BY s.removed_at DESC, s.rowid DESC`)
      .all() as SessionWithProject[];
  }

  nameTaken(projectId: string, name: string): boolean {
    return (
      this.db
        .prepare('SELECT 1 FROM sessions WHERE project_id = ? AND name = ? AND removed_at IS NULL')
        .get(projectId, name) !== undefined
    );
  }

  /** A project by its name or its root folder. */
  findProject(ref: string): ProjectRow | undefined {
    return this.db
      .prepare('SELECT * FROM projects WHERE name = ? OR root = ? ORDER BY root = ? DESC LIMIT 1')
      .get(ref, ref, ref) as ProjectRow | undefined;
  }

  findProjectByRoot(root: string): ProjectRow | undefined {
    return this.db.prepare('SELECT * FROM projects WHERE root = ?').get(root) as ProjectRow | undefined;
  }

  dangerousModeAccepted(root: string): boolean {
    return this.db.prepare('SELECT 1 FROM dangerous_mode_acceptances WHERE root = ?').get(root) !== undefined;
  }

  acceptDangerousMode(root: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO dangerous_mode_acceptances (root, accepted_at) VALUES (?, ?)')
      .run(root, new Date().toISOString());
  }

  setHostPid(id: string, pid: number | null): void {
    this.db
      .prepare('UPDATE sessions SET host_pid = ?, updated_at = ? WHERE id = ?')
      .run(pid, new Date().toISOString(), id);
  }

  /** A queued session moved onto a new base before it starts (a task's prerequisite landed). */
  setBaseCommit(id: string, commit: string): void {
    this.db
      .prepare('UPDATE sessions SET base_commit = ?, updated_at = ? WHERE id = ?')
      .run(commit, new Date().toISOString(), id);
  }

  /** Every session started from a task (of one project, or all), removed ones included, oldest first. */
  withTasks(projectId?: string): SessionRow[] {
    if (projectId !== undefined)
      return this.db
        .prepare('SELECT * FROM sessions WHERE task_id IS NOT NULL AND project_id = ? ORDER BY rowid')
        .all(projectId) as SessionRow[];
    return this.db
      .prepare('SELECT * FROM sessions WHERE task_id IS NOT NULL ORDER BY rowid')
      .all() as SessionRow[];
  }

  /** Sessions started from a task, removed ones included, oldest first. */
  ofTask(taskId: number): SessionWithProject[] {
    return this.db
      .prepare(`${SELECT} WHERE s.task_id = ? ORDER BY s.rowid`)
      .all(taskId) as SessionWithProject[];
  }

  setPinned(id: string, pinned: boolean): void {
    this.db
      .prepare('UPDATE sessions SET pinned = ?, updated_at = ? WHERE id = ?')
      .run(pinned ? 1 : 0, new Date().toISOString(), id);
  }

  markRemoved(id: string, snapshotRef: string | null): void {
    const now = new Date().toISOString();
    this.db
      .prepare(
        'UPDATE sessions SET removed_at = ?, snapshot_ref = ?, host_pid = NULL, updated_at = ? WHERE id = ?',
      )
      .run(now, snapshotRef, now, id);
  }

  /** Applies the projection of a batch of ingested events. */
  applyProjection(id: string, p: SessionProjection): void {
    this.projectionStatement ??= this.db.prepare(
      `UPDATE sessions SET state = @state, state_reason_json = @reason, activity = @activity, last_seq = @lastSeq,
         ingested_offset = @offset, input_tokens = @inputTokens, output_tokens = @outputTokens, cost_usd = @costUsd,
         agent_session_id = @agentSessionId, last_event_at = @lastEventAt, updated_at = @now
       WHERE id = @id`,
    );
    this.projectionStatement.run({
      id,
      state: p.state,
      reason: p.reason === undefined ? null : JSON.stringify(p.reason),
      activity: p.activity,
      lastSeq: p.lastSeq,
      offset: p.offset,
      inputTokens: p.inputTokens,
      outputTokens: p.outputTokens,
      costUsd: p.costUsd,
      agentSessionId: p.agentSessionId,
      lastEventAt: p.lastEventAt,
      now: new Date().toISOString(),
    });
  }
}

export interface SessionProjection {
  state: SessionState;
  reason: StateReason | undefined;
  activity: string | null;
  lastSeq: number;
  offset: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  agentSessionId: string | null;
  lastEventAt: string | null;
}

export function projectionOf(row: SessionRow): SessionProjection {
  return {
    state: row.state,
    reason: row.state_reason_json === null ? undefined : (JSON.parse(row.state_reason_json) as StateReason),
    activity: row.activity,
    lastSeq: row.last_seq,
    offset: row.ingested_offset,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
    agentSessionId: row.agent_session_id,
    lastEventAt: row.last_event_at,
  };
}
