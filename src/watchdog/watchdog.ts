/**
 * The watchdog: watches every session's ingested events (usage priced, budgets held, the
 * event-driven triggers) and, on a timer it is given, the time-driven triggers (no progress, an
 * approval waiting). What it finds is an alert with its evidence; the rule's action may also pause
 * the session (needs input, with the reason: a reply resumes it) or stop it.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CostReport } from '../api/watchdog.js';
import type { WorkspaceBus } from '../bus/index.js';
import type { BatonEvent, StateReason } from '../events/index.js';
import { loadRepoConfig, REPO_CONFIG_FILE, type WatchdogConfig } from '../projects/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import type { SessionWithProject } from '../store/sessions.js';
import { formatDuration, type Grouping, type UsageTracker } from '../usage/index.js';
import { Alerts } from './alerts.js';
import { BudgetGuard } from './enforce.js';
import { resolveRules, SessionRules, type Finding, type RuleSettings } from './rules.js';
import { sessionRef, type WatchdogSessions } from './sessions.js';

const log = createLogger('watchdog');

export interface WatchdogOptions {
  db: Db;
  bus: WorkspaceBus;
  sessions: WatchdogSessions;
  usage: UsageTracker;
  clock?: () => Date;
  /** The task a session works on, once tasks exist (the coordinator wires it). */
  taskOf?: (sessionId: string) => string | undefined;
  /** The globs a session's task may touch, or undefined for no scope. */
  scopeOf?: (sessionId: string) => string[] | undefined;
}

export class Watchdog {
  readonly alerts: Alerts;
  readonly budgets: BudgetGuard;
  private readonly clock: () => Date;
  private readonly perSession = new Map<string, SessionRules>();
  private readonly configs = new Map<string, { mtimeMs: number; rules: RuleSettings }>();
  private readonly closers: (() => void)[] = [];

  constructor(private readonly o: WatchdogOptions) {
    this.clock = o.clock ?? (() => new Date());
    this.alerts = new Alerts(o.db, o.bus, this.clock);
    this.budgets = new BudgetGuard({ db: o.db, bus: o.bus, usage: o.usage, alerts: this.alerts, sessions: o.sessions, clock: this.clock });
  }

  /** Listens to the sessions, the usage and the bus; holds queued work while a budget is spent. */
  start(): void {
    const onEvent = (sessionId: string, event: BatonEvent): void => this.observe(sessionId, event);
    this.o.sessions.on('event', onEvent);
    this.closers.push(() => this.o.sessions.off('event', onEvent));
    this.o.usage.onEntry((entry) => this.budgets.check(entry));
    this.closers.push(this.o.sessions.addGate({ name: 'within budget', holds: () => this.budgets.holds() }));
    this.closers.push(
      this.o.bus.subscribe((event) => {
        if (event.type !== 'session.dispatched') return;
        const session = this.o.sessions.get(event.data.sessionId);
        if (session !== undefined) this.budgets.warnDispatch(session);
      }),
    );
  }

  /** Runs `tick` every `everyMs` (the supervisor's clock; tests call `tick` with their own time). */
  every(everyMs: number): void {
    const timer = setInterval(() => this.tick(), everyMs);
    timer.unref();
    this.closers.push(() => clearInterval(timer));
  }

  close(): void {
    for (const close of this.closers.splice(0)) close();
  }

  cost(by: Grouping): CostReport {
    return { ...this.o.usage.report(by, this.o.taskOf), budgets: this.budgets.list() };
  }

  /** One ingested event of a session. */
  observe(sessionId: string, event: BatonEvent): void {
    const session = this.o.sessions.get(sessionId);
    if (session === undefined) return;
    this.o.usage.observe({ id: session.id, name: session.name, project: session.project_name, agent: session.agent, model: session.model }, event);
    if (event.type === 'session.ended') {
      this.perSession.delete(sessionId);
      return;
    }
    let rules = this.perSession.get(sessionId);
    if (rules === undefined) {
      rules = new SessionRules(session.worktree, this.o.scopeOf?.(sessionId));
      this.perSession.set(sessionId, rules);
    }
    for (const finding of rules.observe(event, this.settingsFor(session))) this.act(session, finding);
  }

  /** The time-driven triggers, as of now: a working session gone quiet, an approval nobody answers. */
  tick(): void {
    const now = this.clock().getTime();
    for (const session of this.o.sessions.list()) {
      if (session.removed_at !== null || session.last_event_at === null) continue;
      const quietMs = now - Date.parse(session.last_event_at);
      const rules = this.settingsFor(session);
      const noProgress = rules.noProgressMs;
      if (session.state === 'working' && noProgress !== undefined && quietMs >= noProgress.limit) {
        this.act(session, {
          rule: 'no_progress',
          message: `no progress for ${formatDuration(quietMs)}`,
          evidence: [`last event at ${session.last_event_at}`, ...(session.activity === null ? [] : [`last activity: ${session.activity}`])],
          action: noProgress.action,
          key: `since:${session.last_event_at}`,
        });
      }
      const wait = rules.approvalWaitMs;
      const reason = session.state_reason_json === null ? undefined : (JSON.parse(session.state_reason_json) as StateReason);
      if (session.state === 'needs_input' && reason?.kind === 'approval' && wait !== undefined && quietMs >= wait.limit) {
        this.act(session, {
          rule: 'approval_wait',
          message: `an approval has waited ${formatDuration(quietMs)}: ${reason.tool} ${reason.input.slice(0, 80)}`,
          evidence: [`requested ${reason.requestId} at ${session.last_event_at}`],
          action: wait.action,
          key: `approval:${reason.requestId}`,
        });
      }
    }
  }

  private act(session: SessionWithProject, finding: Finding): void {
    const raised = this.alerts.raise({ ...finding, session: sessionRef(session), key: `${finding.rule}:${session.id}:${finding.key}` });
    if (raised === undefined || finding.action === 'alert') return;
    const done =
      finding.action === 'pause'
        ? this.o.sessions.pause(session.id, `paused by the watchdog: ${finding.message}. Reply to continue.`)
        : this.o.sessions.stop(session.id);
    done.catch((error: unknown) => log.warn(`could not ${finding.action} a session`, { session: session.id, rule: finding.rule, error: errorMessage(error) }));
  }

  /** The repository's `watchdog` settings, read again when its config file changes. A bad file is an alert, and the defaults hold. */
  private settingsFor(session: SessionWithProject): RuleSettings {
    const root = session.project_root;
    let mtimeMs = 0;
    try {
      mtimeMs = statSync(join(root, REPO_CONFIG_FILE)).mtimeMs;
    } catch {
      mtimeMs = 0;
    }
    const cached = this.configs.get(root);
    if (cached !== undefined && cached.mtimeMs === mtimeMs) return cached.rules;
    let config: WatchdogConfig | undefined;
    try {
      config = loadRepoConfig(root).watchdog;
    } catch (error) {
      this.alerts.raise({ rule: 'config', message: `the watchdog uses its defaults: ${errorMessage(error)}`, evidence: [join(root, REPO_CONFIG_FILE)], action: 'alert', key: `config:${root}:${mtimeMs}` });
    }
    const rules = resolveRules(config);
    this.configs.set(root, { mtimeMs, rules });
    return rules;
  }
}
