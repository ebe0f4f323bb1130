/**
 * Test support for routines: a real repository, a real SQLite store and bus, a clock the test
 * moves, and sessions as real rows whose state the test sets (what the session manager would do
 * when an agent finishes) — no agents: what routines do with a session does not depend on who runs it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import type { DispatchRequest } from '../api/index.js';
import { WorkspaceBus } from '../bus/index.js';
import type { SessionState } from '../events/index.js';
import { SessionRemoved, SessionStateChanged, type WorkspaceEvent } from '../events/workspace.js';
import { newId } from '../shared/ids.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore, type SessionWithProject } from '../store/sessions.js';
import type { RoutineClock, RoutineSessions, RoutineTasks, TaskSummary } from './ports.js';
import { RoutineService } from './service.js';

export class TestClock implements RoutineClock {
  timers: { fn: () => void; ms: number }[] = [];
  constructor(public current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  setTimer(fn: () => void, ms: number): unknown {
    const timer = { fn, ms };
    this.timers.push(timer);
    return timer;
  }
  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
}

export class RoutineFixture {
  readonly dir = mkdtempSync(join(tmpdir(), 'baton-routines-'));
  readonly repo = join(this.dir, 'repo');
  readonly db: Db;
  readonly store: SessionStore;
  readonly bus: WorkspaceBus;
  readonly events: WorkspaceEvent[] = [];
  readonly dispatched: z.output<typeof DispatchRequest>[] = [];
  readonly removed: string[] = [];
  readonly lastMessages = new Map<string, string>();
  readonly changed = new Map<string, number>();
  readonly tasks: TaskSummary[] = [];
  readonly service: RoutineService;
  /** What the watchdog would say holds new work back (a spent budget), if anything. */
  budgetReason: string | undefined;
  /** The fires claimed in the (shared) store, and the machine that holds each (undefined: this one). */
  readonly claims: { root: string; routine: string; key: string }[] = [];
  holder: string | undefined;

  constructor(
    readonly clock: TestClock,
    withTasks = true,
  ) {
    execFileSync('git', ['init', '-q', '-b', 'main', this.repo]);
    this.git('config', 'user.email', 't@example.com');
    this.git('config', 'user.name', 'T');
    this.commit({ 'README.md': 'hello\n' }, 'first');
    this.db = openDb(join(this.dir, 'baton.db'));
    this.store = new SessionStore(this.db);
    this.bus = new WorkspaceBus(this.db);
    this.bus.subscribe((event) => this.events.push(event));
    this.service = new RoutineService({
      db: this.db,
      bus: this.bus,
      sessions: this.sessions(),
      clock,
      tasks: withTasks ? this.taskPort() : undefined,
      budgetHolds: () => this.budgetReason,
      claimFire: async (root, routine, key) => {
        this.claims.push({ root, routine, key });
        return this.holder;
      },
    });
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.repo, encoding: 'utf8' }).trim();
  }

  /** A commit of these files, dated `date` (author and committer) when given. */
  commit(files: Record<string, string>, message: string, date?: string): void {
    for (const [path, text] of Object.entries(files)) writeFileSync(join(this.repo, path), text);
    this.git('add', '.');
    execFileSync('git', ['commit', '-qm', message], {
      cwd: this.repo,
      env: {
        ...process.env,
        ...(date === undefined ? {} : { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }),
      },
    });
  }

  /** What the session manager does when a session's agent stops: the row's state, then the bus event. */
  settle(session: SessionWithProject, to: SessionState, lastMessage?: string, changedFiles = 0): void {
    if (lastMessage !== undefined) this.lastMessages.set(session.id, lastMessage);
    this.changed.set(session.id, changedFiles);
    this.db.prepare('UPDATE sessions SET state = ? WHERE id = ?').run(to, session.id);
    this.bus.publish(SessionStateChanged, {
      sessionId: session.id,
      name: session.name,
      project: session.project_name,
      from: session.state,
      to,
    });
  }

  sessionNamed(name: string): SessionWithProject {
    const found = this.store.listLive().find((s) => s.name === name);
    if (found === undefined) throw new Error(`no session ${name}`);
    return found;
  }

  of<T extends WorkspaceEvent['type']>(type: T): Extract<WorkspaceEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<WorkspaceEvent, { type: T }> => e.type === type);
  }

  cleanup(): void {
    this.service.close();
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private sessions(): RoutineSessions {
    return {
      list: () => this.store.listLive(),
      get: (id) => this.store.get(id),
      dispatch: (request) => {
        this.dispatched.push(request);
        const project = this.store.ensureProject(this.repo);
        const id = newId();
        const name = request.name ?? `s${this.dispatched.length}`;
        this.store.insert(
          {
            id,
            project_id: project.id,
            name,
            agent: request.agent,
            prompt: request.prompt,
            model: null,
            permission_mode: 'default',
            options_json: '{}',
            branch: `baton/${name}`,
            base_ref: 'main',
            base_commit: this.git('rev-parse', 'HEAD'),
            worktree: this.repo,
          },
          'working',
        );
        return Promise.resolve(this.store.get(id)!);
      },
      remove: (id) => {
        this.removed.push(id);
        const session = this.store.get(id)!;
        this.store.markRemoved(id, null);
        this.bus.publish(SessionRemoved, {
          sessionId: id,
          name: session.name,
          project: session.project_name,
          snapshotRef: null,
          branchDeleted: false,
        });
        return Promise.resolve();
      },
      lastMessage: (id) => this.lastMessages.get(id),
      changedFiles: (id) => Promise.resolve(this.changed.get(id) ?? 0),
    };
  }

  private taskPort(): RoutineTasks {
    return {
      list: () => Promise.resolve(this.tasks),
      create: (_root, task) => {
        const made = { id: String(this.tasks.length + 1), title: task.title, column: 'backlog' };
        this.tasks.push(made);
        return Promise.resolve(made);
      },
    };
  }
}
