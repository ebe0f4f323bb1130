/**
 * The routines, routine_runs and routine_seen tables (decision 116, "A routine's run is an ordinary
 * session").
 */
import type { Db } from './db.js';

export interface RoutineRow {
  id: string;
  project_id: string;
  name: string;
  spec_json: string;
  source: 'cli' | 'config';
  paused: number;
  next_run_at: string | null;
  token: string;
  created_at: string;
  updated_at: string;
}

export interface RoutineWithProject extends RoutineRow {
  project_name: string;
  project_root: string;
}

export type RunOutcome = 'running' | 'findings' | 'nothing' | 'failed' | 'skipped' | 'missed';

export interface RoutineRunRow {
  id: number;
  routine_id: string;
  trigger: string;
  due_at: string | null;
  started_at: string;
  finished_at: string | null;
  outcome: RunOutcome;
  cause: string | null;
  session_id: string | null;
  session_name: string | null;
  cost_usd: number | null;
}

const SELECT =
  'SELECT r.*, p.name AS project_name, p.root AS project_root FROM routines r JOIN projects p ON p.id = r.project_id';

export class RoutineStore {
  constructor(private readonly db: Db) {}

  all(): RoutineWithProject[] {
    return this.db.prepare(`${SELECT} ORDER BY p.name, r.name`).all() as RoutineWithProject[];
  }

  get(id: string): RoutineWithProject | undefined {
    return this.db.prepare(`${SELECT} WHERE r.id = ?`).get(id) as RoutineWithProject | undefined;
  }

  byName(projectId: string, name: string): RoutineWithProject | undefined {
    return this.db.prepare(`${SELECT} WHERE r.project_id = ? AND r.name = ?`).get(projectId, name) as
      RoutineWithProject | undefined;
  }

  named(name: string): RoutineWithProject[] {
    return this.db.prepare(`${SELECT} WHERE r.name = ?`).all(name) as RoutineWithProject[];
  }

  insert(row: Omit<RoutineRow, 'updated_at'>): void {
    this.db
      .prepare(
        `INSERT INTO routines (id, project_id, name, spec_json, source, paused, next_run_at, token, created_at, updated_at)
         VALUES (@id, @project_id, @name, @spec_json, @source, @paused, @next_run_at, @token, @created_at, @created_at)`,
      )
      .run(row);
  }

  updateSpec(id: string, specJson: string, nextRunAt: string | null, now: Date): void {
    this.db
      .prepare('UPDATE routines SET spec_json = ?, next_run_at = ?, updated_at = ? WHERE id = ?')
      .run(specJson, nextRunAt, now.toISOString(), id);
  }

  /** Runs `work` in one transaction. */
  transact<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  setNextRun(id: string, nextRunAt: string | null): void {
    this.db.prepare('UPDATE routines SET next_run_at = ? WHERE id = ?').run(nextRunAt, id);
  }

  setPaused(id: string, paused: boolean, nextRunAt: string | null, now: Date): void {
    this.db
      .prepare('UPDATE routines SET paused = ?, next_run_at = ?, updated_at = ? WHERE id = ?')
      .run(paused ? 1 : 0, nextRunAt, now.toISOString(), id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM routines WHERE id = ?').run(id);
  }

  // ── runs ───────────────────────────────────────────────────────────────────

  addRun(
    run: Omit<RoutineRunRow, 'id' | 'finished_at' | 'cost_usd'> & { finished_at?: string | null },
  ): number {
    const info = this.db
      .prepare(
        `INSERT INTO routine_runs (routine_id, trigger, due_at, started_at, finished_at, outcome, cause, session_id, session_name)
         VALUES (@routine_id, @trigger, @due_at, @started_at, @finished_at, @outcome, @cause, @session_id, @session_name)`,
      )
      .run({ finished_at: null, ...run });
    return Number(info.lastInsertRowid);
  }

  attachSession(runId: number, sessionId: string, sessionName: string): void {
    this.db
      .prepare('UPDATE routine_runs SET session_id = ?, session_name = ? WHERE id = ?')
      .run(sessionId, sessionName, runId);
  }

  finishRun(
    runId: number,
    outcome: Exclude<RunOutcome, 'running'>,
    cause: string | null,
    costUsd: number | null,
    now: Date,
  ): void {
    this.db
      .prepare(
        "UPDATE routine_runs SET outcome = ?, cause = ?, cost_usd = ?, finished_at = ? WHERE id = ? AND outcome = 'running'",
      )
      .run(outcome, cause, costUsd, now.toISOString(), runId);
  }

  /** Adds a line to a finished run's record (what a person did with its findings). */
  noteRun(runId: number, line: string): void {
    this.db
      .prepare("UPDATE routine_runs SET cause = COALESCE(cause || char(10), '') || ? WHERE id = ?")
      .run(line, runId);
  }

  runs(routineId: string, limit = 50): RoutineRunRow[] {
    return this.db
      .prepare('SELECT * FROM routine_runs WHERE routine_id = ? ORDER BY id DESC LIMIT ?')
      .all(routineId, limit) as RoutineRunRow[];
  }

  run(id: number): RoutineRunRow | undefined {
    return this.db.prepare('SELECT * FROM routine_runs WHERE id = ?').get(id) as RoutineRunRow | undefined;
  }

  running(): RoutineRunRow[] {
    return this.db
      .prepare("SELECT * FROM routine_runs WHERE outcome = 'running' ORDER BY id")
      .all() as RoutineRunRow[];
  }

  runOfSession(sessionId: string): RoutineRunRow | undefined {
    return this.db.prepare('SELECT * FROM routine_runs WHERE session_id = ?').get(sessionId) as
      RoutineRunRow | undefined;
  }

  // ── what a template already reported ───────────────────────────────────────

  /** Marks `key` seen; true when it was new. */
  see(routineId: string, key: string, now: Date): boolean {
    return (
      this.db
        .prepare('INSERT OR IGNORE INTO routine_seen (routine_id, key, seen_at) VALUES (?, ?, ?)')
        .run(routineId, key, now.toISOString()).changes > 0
    );
  }

  seen(routineId: string, key: string): boolean {
    return (
      this.db.prepare('SELECT 1 FROM routine_seen WHERE routine_id = ? AND key = ?').get(routineId, key) !==
      undefined
    );
  }
}
