/** The attempt_groups and attempt_members tables (best-of groups and fan-outs, src/attempts). */
import type { Db } from './db.js';

export type AttemptKind = 'best_of' | 'fanout';

export interface AttemptGroupRow {
  id: string;
  kind: AttemptKind;
  project_id: string;
  prompt: string;
  instructions: string | null;
  task_id: string | null;
  batch_size: number | null;
  /** best_of: open, picking, landed, pick_failed; fanout: running, finished. */
  state: string;
  picked_session_id: string | null;
  merge_id: string | null;
  message: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptGroupWithProject extends AttemptGroupRow {
  project_name: string;
  project_root: string;
}

export interface AttemptMemberRow {
  group_id: string;
  slot: number;
  try: number;
  session_id: string;
  agent: string;
  items_json: string | null;
  archived_snapshot: string | null;
  archived_at: string | null;
  summary_json: string | null;
}

export type NewGroup = Pick<
  AttemptGroupRow,
  'id' | 'kind' | 'project_id' | 'prompt' | 'instructions' | 'task_id' | 'batch_size' | 'state'
>;
export type NewMember = Pick<
  AttemptMemberRow,
  'group_id' | 'slot' | 'try' | 'session_id' | 'agent' | 'items_json'
>;

const SELECT =
  'SELECT g.*, p.name AS project_name, p.root AS project_root FROM attempt_groups g JOIN projects p ON p.id = g.project_id';

export class AttemptStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A group and its first members, in one transaction: a group is never seen half made. */
  create(group: NewGroup, members: NewMember[]): void {
    const now = this.clock().toISOString();
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO attempt_groups (id, kind, project_id, prompt, instructions, task_id, batch_size, state, created_at, updated_at)
           VALUES (@id, @kind, @project_id, @prompt, @instructions, @task_id, @batch_size, @state, @now, @now)`,
        )
        .run({ ...group, now });
      for (const member of members) this.addMember(member);
    })();
  }

  addMember(member: NewMember): void {
    this.db
      .prepare(
        'INSERT INTO attempt_members (group_id, slot, try, session_id, agent, items_json) VALUES (@group_id, @slot, @try, @session_id, @agent, @items_json)',
      )
      .run(member);
  }

  get(id: string): AttemptGroupWithProject | undefined {
    return this.db.prepare(`${SELECT} WHERE g.id = ?`).get(id) as AttemptGroupWithProject | undefined;
  }

  /** Groups whose id starts with `prefix` (an id is 8 characters; a prefix is enough when unique). */
  byPrefix(prefix: string): AttemptGroupWithProject[] {
    return this.db
      .prepare(`${SELECT} WHERE g.id >= ? AND g.id < ? ORDER BY g.created_at`)
      .all(prefix, `${prefix}\uffff`) as AttemptGroupWithProject[];
  }

  list(
    filter: { kind?: AttemptKind | undefined; projectId?: string | undefined } = {},
  ): AttemptGroupWithProject[] {
    const rows = this.db
      .prepare(`${SELECT} ORDER BY g.created_at, g.rowid`)
      .all() as AttemptGroupWithProject[];
    return rows.filter(
      (g) =>
        (filter.kind === undefined || g.kind === filter.kind) &&
        (filter.projectId === undefined || g.project_id === filter.projectId),
    );
  }

  /** Groups in one of `states` (what a restarted supervisor picks up again). */
  inStates(states: readonly string[]): AttemptGroupWithProject[] {
    return this.list().filter((g) => states.includes(g.state));
  }

  members(groupId: string): AttemptMemberRow[] {
    return this.db
      .prepare('SELECT * FROM attempt_members WHERE group_id = ? ORDER BY slot, try')
      .all(groupId) as AttemptMemberRow[];
  }

  /** The group rows that hold a session (a session belongs to at most one group). */
  memberOf(sessionId: string): AttemptMemberRow | undefined {
    return this.db.prepare('SELECT * FROM attempt_members WHERE session_id = ?').get(sessionId) as
      AttemptMemberRow | undefined;
  }

  setState(
    id: string,
    state: string,
    fields: { picked_session_id?: string | null; merge_id?: string | null; message?: string | null } = {},
  ): void {
    const current = this.get(id);
    if (current === undefined) return;
    this.db
      .prepare(
        'UPDATE attempt_groups SET state = ?, picked_session_id = ?, merge_id = ?, message = ?, updated_at = ? WHERE id = ?',
      )
      .run(
        state,
        fields.picked_session_id === undefined ? current.picked_session_id : fields.picked_session_id,
        fields.merge_id === undefined ? current.merge_id : fields.merge_id,
        fields.message === undefined ? current.message : fields.message,
        this.clock().toISOString(),
        id,
      );
  }

  /** Keeps what the comparison last found for a member, so an archived attempt still shows it. */
  saveSummary(sessionId: string, summary: unknown): void {
    this.db
      .prepare('UPDATE attempt_members SET summary_json = ? WHERE session_id = ?')
      .run(JSON.stringify(summary), sessionId);
  }

  markArchived(sessionId: string, snapshotRef: string | null): void {
    this.db
      .prepare('UPDATE attempt_members SET archived_snapshot = ?, archived_at = ? WHERE session_id = ?')
      .run(snapshotRef, this.clock().toISOString(), sessionId);
  }
}
