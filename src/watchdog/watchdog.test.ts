/**
 * The watchdog on a real store and bus, fed events as ingestion would feed them. The sessions
 * domain is the interface the watchdog is given (WatchdogSessions), here a recording stand-in,
 * and time is the test's clock: the time-driven triggers run on `tick()`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import type { BatonEvent, EventBody } from '../events/index.js';
import { SessionDispatched, type WorkspaceEvent } from '../events/workspace.js';
import type { Gate } from '../scheduler/index.js';
import { openDb, type Db } from '../store/db.js';
import type { SessionWithProject } from '../store/sessions.js';
import { UsageTracker } from '../usage/index.js';
import type { WatchdogSessions } from './sessions.js';
import { CONTINUE_AFTER_LIMIT, Watchdog } from './watchdog.js';

const MIN = 60_000;
/**
 * Alerts are stored through the asynchronous settings interface: on SQLite every step is done
 * within one turn of the event loop, so one turn lets a raise and the pause after it finish.
 */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
let dir: string;
let db: Db;
let bus: WorkspaceBus;
let now: number;
let published: WorkspaceEvent[];

class StandInSessions implements WatchdogSessions {
  readonly rows = new Map<string, SessionWithProject>();
  readonly actions: string[] = [];
  readonly gates: Gate<SessionWithProject>[] = [];
  /** What a host asked to let its agent go answers. */
  releases = true;
  private listener: ((id: string, event: BatonEvent) => void) | undefined;
  get(id: string) {
    return this.rows.get(id);
  }
  list() {
    return [...this.rows.values()];
  }
  on(_: 'event', listener: (id: string, event: BatonEvent) => void) {
    this.listener = listener;
  }
  off() {
    this.listener = undefined;
  }
  emit(id: string, event: BatonEvent) {
    this.listener?.(id, event);
  }
  async pause(id: string, reason: string) {
    this.actions.push(`pause ${id}: ${reason}`);
  }
  async stop(id: string) {
    this.actions.push(`stop ${id}`);
  }
  async release(id: string, message: string) {
    this.actions.push(`release ${id}: ${message}`);
    return this.releases;
  }
  async reply(id: string, text: string) {
    this.actions.push(`reply ${id}: ${text}`);
  }
  addGate(gate: Gate<SessionWithProject>) {
    this.gates.push(gate);
    return () => undefined;
  }
  async schedule() {}
}

function writeRepoConfig(root: string, config: unknown): void {
  mkdirSync(join(root, '.baton'), { recursive: true });
  writeFileSync(join(root, '.baton', 'config.json'), JSON.stringify(config));
}

function session(id: string, extra: Partial<SessionWithProject> = {}): SessionWithProject {
  return {
    id,
    name: id,
    project_name: 'p',
    project_root: join(dir, 'repo'),
    agent: 'codex',
    model: 'gpt-5.5',
    worktree: join(dir, 'wt', id),
    state: 'working',
    state_reason_json: null,
    removed_at: null,
    last_event_at: new Date(now).toISOString(),
    activity: null,
    ...extra,
  } as SessionWithProject;
}

let seq = 0;
const event = (body: EventBody): BatonEvent =>
  ({ ...body, seq: ++seq, ts: new Date(now).toISOString() }) as BatonEvent;

function start(options: { scope?: Record<string, string[]>; idleMs?: number } = {}): {
  dog: Watchdog;
  sessions: StandInSessions;
} {
  const sessions = new StandInSessions();
  const clock = () => new Date(now);
  const dog = new Watchdog({
    db,
    bus,
    sessions,
    usage: new UsageTracker(db, clock),
    clock,
    monotonic: () => now,
    idleMs: options.idleMs,
    scopeOf: (id) => options.scope?.[id],
    taskOf: (id) => (id === 'a' ? 'task-7' : undefined),
  });
  void dog.start(); // a fresh database has no budgets to wait for
  return { dog, sessions };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-watchdog-'));
  db = openDb(join(dir, 'baton.db'));
  now = Date.parse('2026-11-23T10:00:00Z');
  bus = new WorkspaceBus(db, () => new Date(now));
  published = [];
  bus.subscribe((e) => published.push(e));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the watchdog', () => {
  it('resumes a session paused at a usage limit once the window has reset, once', async () => {
    const { dog, sessions } = start();
    const until = new Date(now + 30 * MIN).toISOString();
    sessions.rows.set(
      'a',
      session('a', {
        state: 'needs_input',
        state_reason_json: JSON.stringify({ kind: 'note', message: 'paused at the usage limit', until }),
      }),
    );
    // A budget pause (no reset time) is left for the user.
    sessions.rows.set(
      'b',
      session('b', {
        state: 'needs_input',
        state_reason_json: JSON.stringify({ kind: 'note', message: 'paused for its budget' }),
      }),
    );
    await dog.tick();
    now += 29 * MIN;
    await dog.tick();
    expect(sessions.actions).toEqual([]);
    now += MIN;
    await dog.tick();
    await dog.tick();
    expect(sessions.actions).toEqual([`reply a: ${CONTINUE_AFTER_LIMIT}`]);
  });

  it('catches an edit outside the scope it is given for the session, with the file as evidence', async () => {
    const { sessions } = start({ scope: { a: ['src/watcher/**'] } });
    sessions.rows.set('a', session('a'));
    sessions.emit(
      'a',
      event({
        type: 'tool.started',
        toolId: 't1',
        tool: 'Edit',
        kind: 'edit',
        input: 'src/ipc/handlers.ts',
        files: [join(dir, 'wt', 'a', 'src/ipc/handlers.ts')],
      }),
    );
    sessions.emit(
      'a',
      event({
        type: 'tool.started',
        toolId: 't2',
        tool: 'Edit',
        kind: 'edit',
        input: 'src/watcher/x.ts',
        files: ['src/watcher/x.ts'],
      }),
    );
    await settled();
    const raised = published.filter((e) => e.type === 'watchdog.alert_raised');
    expect(raised.map((e) => e.data)).toEqual([
      expect.objectContaining({
        rule: 'out_of_scope',
        name: 'a',
        action: 'alert',
        evidence: [`edited ${join(dir, 'wt', 'a', 'src/ipc/handlers.ts')}`, 'scope: src/watcher/**'],
      }),
    ]);
    expect(sessions.actions).toEqual([]);
  });

  it('raises no progress after ten quiet minutes of work and a long approval wait, once each, as the clock moves', async () => {
    const { dog, sessions } = start();
    sessions.rows.set('w', session('w'));
    sessions.rows.set(
      'q',
      session('q', {
        state: 'needs_input',
        state_reason_json: JSON.stringify({
          kind: 'approval',
          requestId: 'r1',
          tool: 'Bash',
          input: 'rm -rf build',
        }),
      }),
    );
    now += 9 * MIN;
    await dog.tick();
    expect(published).toEqual([]);
    now += MIN;
    await dog.tick();
    await dog.tick();
    expect(
      published.map((e) => e.type === 'watchdog.alert_raised' && [e.data.rule, e.data.name, e.data.message]),
    ).toEqual([['no_progress', 'w', 'no progress for 10 min']]);
    now += 5 * MIN;
    await dog.tick();
    expect(published.map((e) => e.type === 'watchdog.alert_raised' && e.data.rule)).toEqual([
      'no_progress',
      'approval_wait',
    ]);
    expect((await dog.alerts.list(false)).find((a) => a.rule === 'approval_wait')?.message).toBe(
      'an approval has waited 15 min: Bash rm -rf build',
    );
  });

  it('lets the host of a session resting ready for review go after the user’s default, quietly; a repository may change the time or keep its agents', async () => {
    const { dog, sessions } = start({ idleMs: 30 * MIN });
    const other = join(dir, 'other');
    writeRepoConfig(join(dir, 'repo'), { watchdog: { idle: { minutes: 5 } } });
    writeRepoConfig(other, { watchdog: { idle: false } });
    sessions.rows.set('soon', session('soon', { state: 'ready_for_review', host_pid: 11 }));
    sessions.rows.set(
      'kept',
      session('kept', { state: 'ready_for_review', host_pid: 12, project_root: other }),
    );
    await dog.tick();
    now += 5 * MIN;
    await dog.tick();
    now += 60 * MIN;
    await dog.tick();
    expect(sessions.actions).toEqual([
      'release soon: unused for 5 min after the turn; a reply resumes the conversation',
    ]);
    expect(published).toEqual([]);
    expect(await dog.alerts.list(false)).toEqual([]);

    // Without a repository setting, the user's default holds.
    const third = join(dir, 'third');
    sessions.rows.clear();
    sessions.rows.set(
      'late',
      session('late', { state: 'ready_for_review', host_pid: 13, project_root: third }),
    );
    await dog.tick();
    now += 30 * MIN - 1;
    await dog.tick();
    expect(sessions.actions).toHaveLength(1);
    now += 1;
    await dog.tick();
    expect(sessions.actions.at(-1)).toBe(
      'release late: unused for 30 min after the turn; a reply resumes the conversation',
    );
  });

  it('keeps every agent when the user set no idle time and the repository none either', async () => {
    const { dog, sessions } = start();
    sessions.rows.set('r', session('r', { state: 'ready_for_review', host_pid: 11 }));
    await dog.tick();
    now += 7 * 24 * 60 * MIN;
    await dog.tick();
    expect(sessions.actions).toEqual([]);
  });

  it('pauses every session at work when the day budget is spent, holds queued work, and resumes them when it is raised', async () => {
    const { dog, sessions } = start();
    sessions.rows.set('a', session('a'));
    sessions.rows.set('b', session('b'));
    sessions.rows.set('idle', session('idle', { state: 'ready_for_review' }));
    await dog.budgets.set({ day: '3usd' });
    // A million gpt-5.5 input tokens is $1.25 by the table (codex reports no cost).
    sessions.emit(
      'a',
      event({ type: 'usage.reported', inputTokens: 1_000_000, outputTokens: 0, model: 'gpt-5.5' }),
    );
    expect(sessions.actions).toEqual([]);
    expect(sessions.gates[0]?.holds(session('queued'))).toBeUndefined();
    sessions.emit('b', event({ type: 'usage.reported', inputTokens: 1_000_000, outputTokens: 0 }));
    await settled();
    expect((await dog.alerts.list(false)).map((a) => a.rule)).toEqual(['budget_warning']);
    sessions.emit(
      'b',
      event({ type: 'usage.reported', inputTokens: 0, outputTokens: 100_000, model: 'gpt-5.5' }),
    );
    await settled();
    expect(sessions.actions.map((a) => a.split(':')[0]).sort()).toEqual(['pause a', 'pause b']);
    expect(sessions.actions[0]).toContain('paused for its budget: budget reached: today: $3.50 of $3.00');
    expect(sessions.gates[0]?.holds(session('queued'))).toMatch(/the today budget is spent/);

    sessions.rows.set(
      'a',
      session('a', {
        state: 'needs_input',
        state_reason_json: JSON.stringify({ kind: 'note', message: 'paused for its budget: …' }),
      }),
    );
    const { resumed } = await dog.budgets.set({ day: '10usd' });
    expect(resumed).toEqual(['a']);
    expect(sessions.actions).toContain('reply a: The budget was raised: carry on where you stopped.');
    expect(sessions.gates[0]?.holds(session('queued'))).toBeUndefined();
    expect(dog.cost('task').rows.map((r) => [r.key, r.usd])).toEqual([
      ['(no task)', 2.25],
      ['task-7', 1.25],
    ]);
  });

  it('warns a dispatch when the 5h window runs out within the hour at the current rate', async () => {
    const { dog, sessions } = start();
    sessions.rows.set('a', session('a'));
    await dog.budgets.set({ window: ['5h:10usd'] });
    sessions.emit(
      'a',
      event({ type: 'usage.reported', inputTokens: 4_000_000, outputTokens: 0, model: 'gpt-5.5' }),
    );
    now += 20 * MIN;
    sessions.rows.set('n', session('n', { state: 'queued' }));
    bus.publish(SessionDispatched, { sessionId: 'n', name: 'n', project: 'p', agent: 'codex', branch: 'b' });
    // $5 in 20 min is $15/h: the $5 left lasts 20 min.
    await settled();
    const warned = (await dog.alerts.list(false)).find((a) => a.rule === 'window');
    expect(warned?.message).toBe('dispatched while the 5h window budget runs out in 20 min at this rate');
    expect(dog.budgets.dispatchWarnings({ agent: 'claude' }).map((w) => w.text)).toEqual([
      'the 5h window budget runs out in 20 min at this rate',
    ]);
  });

  it('takes the windows codex reports and projects them', () => {
    const { dog, sessions } = start();
    sessions.rows.set('a', session('a'));
    sessions.emit(
      'a',
      event({ type: 'limits.reported', windows: [{ name: '5h', usedPercent: 40, windowMinutes: 300 }] }),
    );
    now += 10 * MIN;
    sessions.emit(
      'a',
      event({ type: 'limits.reported', windows: [{ name: '5h', usedPercent: 50, windowMinutes: 300 }] }),
    );
    expect(dog.cost('agent').windows.map((w) => w.summary)).toEqual([
      'codex 5h window 50% used, 50% left; the 5h window runs out in 50 min at this rate',
    ]);
  });
});
