/**
 * The watchdog: watches every session's ingested events (usage priced, budgets held, the
 * event-driven triggers) and, on a timer it is given, the time-driven triggers (no progress, an
 * approval waiting) and the idle rule (an unused agent let go, quietly). What it finds is an alert
 * with its evidence; the rule's action may also pause the session (needs input, with the reason: a
 * reply resumes it) or stop it.
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
import { sqliteSettings, type SettingsStore } from '../settings/index.js';
import { formatDuration, type Grouping, type UsageTracker } from '../usage/index.js';
import { Alerts } from './alerts.js';
import { BudgetGuard, type Elsewhere } from './enforce.js';
import { IdleHosts, type IdleCheck } from './idle.js';
import { resolveRules, SessionRules, type Finding, type RuleSettings } from './rules.js';
import type { SessionWithProject } from '../store/sessions.js';
import { sessionRef, type SessionIdentity, type WatchdogSessions } from './sessions.js';
import type { CheckCommand } from './test-runs.js';
import { WindowGate } from './window-gate.js';

const log = createLogger('watchdog');
const CONFIG_RECHECK_MS = 1000;
/** The turn that resumes a session paused at a usage limit once the window has reset (decision 262). */
export const CONTINUE_AFTER_LIMIT =
  'The usage limit has reset. Continue where you left off; do not redo what is already done.';
/** Events after which the repository's settings are read again (a turn begins or ends, a person answered). */
const FRESH_CONFIG = new Set(['turn.started', 'turn.completed', 'question.answered']);

export interface WatchdogOptions {
  db: Db;
  bus: WorkspaceBus;
  sessions: WatchdogSessions;
  usage: UsageTracker;
  clock?: () => Date;
  /** Milliseconds by a clock that never jumps (default `performance.now`), which the idle rule times by. */
  monotonic?: () => number;
  /** How long a session ready for review keeps its agent unless its repository says otherwise; undefined: kept. */
  idleMs?: number | undefined;
  /** The task a session works on, once tasks exist (the coordinator wires it). */
  taskOf?: (sessionId: string) => string | undefined;
  /** The globs a session's task may touch, or undefined for no scope. */
  scopeOf?: (sessionId: string) => string[] | undefined;
  /** What a session resumed at its usage limit's reset is told besides "continue" (a fan-out batch's ledger, decision 301). */
  continueNote?: (sessionId: string) => string | undefined;
  /** Where budgets are kept (default: this machine's SQLite); a shared store holds every machine to them. */
  settings?: SettingsStore;
  /** What other machines sharing the budgets spent (a shared store); none: this machine alone. */
  elsewhere?: Elsewhere | undefined;
}

export class Watchdog {
  readonly alerts: Alerts;
  readonly budgets: BudgetGuard;
  /** Admission by subscription window (decision 300). */
  readonly windowGate: WindowGate;
  private readonly clock: () => Date;
  private readonly perSession = new Map<string, SessionRules>();
  private readonly identities = new Map<string, SessionIdentity>();
  /** Pauses at a usage limit already resumed: session and reset time. */
  private readonly resumed = new Set<string>();
  private readonly configs = new Map<string, { mtimeMs: number; checkedAt: number; rules: RuleSettings }>();
  private readonly closers: (() => void)[] = [];
  private readonly idle: IdleHosts;
  private readonly settings: SettingsStore;

  constructor(private readonly o: WatchdogOptions) {
    this.clock = o.clock ?? (() => new Date());
    this.windowGate = new WindowGate(o.sessions, o.usage, () => this.clock().getTime());
    this.idle = new IdleHosts(o.monotonic ?? (() => performance.now()), (id, message) =>
      o.sessions.release(id, message),
    );
    this.settings = o.settings ?? sqliteSettings(o.db);
    this.alerts = new Alerts(this.settings.alerts, o.bus, this.clock);
    this.budgets = new BudgetGuard({
      table: this.settings.budgets,
      bus: o.bus,
      usage: o.usage,
      alerts: this.alerts,
      sessions: o.sessions,
      clock: this.clock,
      elsewhere: o.elsewhere,
    });
  }

  /**
   * Listens to the sessions, the usage and the bus; holds queued work while a budget is spent.
   * Resolves once the budgets are read.
   */
  start(): Promise<void> {
    if (this.settings.shared) {
      const off = this.settings.onChange((table) => {
        if (table !== 'budgets') return;
        this.budgets
          .changedElsewhere()
          .catch((error: unknown) =>
            log.warn('could not read the budgets again', { error: errorMessage(error) }),
          );
      });
      this.closers.push(off);
    }
    const onEvent = (sessionId: string, event: BatonEvent): void => this.observe(sessionId, event);
    this.o.sessions.on('event', onEvent);
    this.closers.push(() => this.o.sessions.off('event', onEvent));
    this.closers.push(
      this.o.usage.onEntry((entry) => {
        this.budgets.check(entry);
        // The loop rule weighs what a loop spends, priced alike for every agent.
        this.perSession.get(entry.sessionId)?.spend(entry.usd ?? 0);
      }),
    );
    this.closers.push(this.budgets.watchElsewhere());
    this.closers.push(this.o.sessions.addGate({ name: 'within budget', holds: () => this.budgets.holds() }));
    this.closers.push(this.windowGate.install(this.o.bus));
    this.closers.push(
      this.o.bus.subscribe((event) => {
        if (event.type !== 'session.dispatched') return;
        const session = this.o.sessions.get(event.data.sessionId);
        if (session !== undefined) this.budgets.warnDispatch(session);
      }),
    );
    return this.budgets.load();
  }

  /** Runs `tick` every `everyMs` (the supervisor's clock; tests call `tick` with their own time). */
  every(everyMs: number): void {
    const timer = setInterval(() => void this.tick(), everyMs);
    timer.unref();
    this.closers.push(() => clearInterval(timer));
  }

  /** Stops every listener and timer, and the budgets' reads: nothing runs on the store after this. */
  close(): void {
    for (const close of this.closers.splice(0)) close();
    this.budgets.close();
  }

  cost(by: Grouping): CostReport {
    return { ...this.o.usage.report(by, this.o.taskOf), budgets: this.budgets.list() };
  }

  /** One ingested event of a session. */
  observe(sessionId: string, event: BatonEvent): void {
    const session = this.identity(sessionId);
    if (session === undefined) return;
    this.idle.observe(sessionId, event);
    this.o.usage.observe(
      {
        id: session.id,
        name: session.name,
        project: session.project_name,
        agent: session.agent,
        model: session.model,
      },
      event,
    );
    if (event.type === 'session.ended') {
      this.perSession.delete(sessionId);
      this.identities.delete(sessionId);
      return;
    }
    let rules = this.perSession.get(sessionId);
    if (rules === undefined) {
      rules = new SessionRules(session.worktree, this.o.scopeOf?.(sessionId));
      this.perSession.set(sessionId, rules);
    }
    for (const finding of rules.observe(event, this.settingsFor(session, FRESH_CONFIG.has(event.type))))
      this.act(session, finding);
  }

  /**
   * The time-driven triggers, as of now: a working session gone quiet, an approval nobody answers,
   * an agent left unused. Resolves once the hosts asked to let go have answered.
   */
  tick(): Promise<void> {
    const now = this.clock().getTime();
    const resting: IdleCheck[] = [];
    for (const session of this.o.sessions.list()) {
      if (session.removed_at !== null) continue;
      const rules = this.settingsFor(session);
      resting.push({ session, limitMs: rules.idleMs });
      if (session.last_event_at === null) continue;
      const quietMs = now - Date.parse(session.last_event_at);
      const noProgress = rules.noProgressMs;
      if (session.state === 'working' && noProgress !== undefined && quietMs >= noProgress.limit) {
        this.act(session, {
          rule: 'no_progress',
          message: `no progress for ${formatDuration(quietMs)}`,
          evidence: [
            `last event at ${session.last_event_at}`,
            ...(session.activity === null ? [] : [`last activity: ${session.activity}`]),
          ],
          action: noProgress.action,
          key: `since:${session.last_event_at}`,
        });
      }
      const wait = rules.approvalWaitMs;
      const reason =
        session.state_reason_json === null
          ? undefined
          : (JSON.parse(session.state_reason_json) as StateReason);
      if (
        session.state === 'needs_input' &&
        reason?.kind === 'approval' &&
        wait !== undefined &&
        quietMs >= wait.limit
      ) {
        this.act(session, {
          rule: 'approval_wait',
          message: `an approval has waited ${formatDuration(quietMs)}: ${reason.tool} ${reason.input.slice(0, 80)}`,
          evidence: [`requested ${reason.requestId} at ${session.last_event_at}`],
          action: wait.action,
          key: `approval:${reason.requestId}`,
        });
      }
      if (session.state === 'needs_input' && reason?.kind === 'note' && reason.until !== undefined)
        this.resumeAtReset(session, reason.until, now);
    }
    this.windowGate.recheck();
    return this.idle.tick(resting);
  }

  /**
   * A session paused at its agent's usage limit goes on at the window's reset with a short turn,
   * in the same conversation (decision 262). Once per pause: a reply that fails (the limit not
   * yet lifted after all) pauses it again with a new reset time, and that one is resumed in turn.
   */
  private resumeAtReset(session: SessionWithProject, until: string, now: number): void {
    const at = Date.parse(until);
    const key = `${session.id}\u0000${until}`;
    if (!Number.isFinite(at) || at > now || this.resumed.has(key)) return;
    this.resumed.add(key);
    const note = this.o.continueNote?.(session.id);
    this.o.sessions
      .reply(session.id, note === undefined ? CONTINUE_AFTER_LIMIT : `${CONTINUE_AFTER_LIMIT}\n\n${note}`)
      .then(() => log.info('resumed a session at its usage limit’s reset', { session: session.id, until }))
      .catch((error: unknown) => {
        // Not resumable now (stopped meanwhile, its machine gone): the next pause says more.
        log.warn('could not resume a session at its usage limit’s reset', {
          session: session.id,
          error: errorMessage(error),
        });
      });
  }

  /** A session's unchanging facts, read once: a busy session's every event must not cost a query. */
  private identity(sessionId: string): SessionIdentity | undefined {
    let known = this.identities.get(sessionId);
    if (known === undefined) {
      const row = this.o.sessions.get(sessionId);
      if (row === undefined) return undefined;
      known = {
        id: row.id,
        name: row.name,
        project_name: row.project_name,
        project_root: row.project_root,
        agent: row.agent,
        model: row.model,
        worktree: row.worktree,
      };
      this.identities.set(sessionId, known);
    }
    return known;
  }

  private act(session: SessionIdentity, finding: Finding): void {
    const acted = async (): Promise<void> => {
      const raised = await this.alerts.raise({
        ...finding,
        session: sessionRef(session),
        key: `${finding.rule}:${session.id}:${finding.key}`,
      });
      if (raised === undefined || finding.action === 'alert') return;
      await (finding.action === 'pause'
        ? this.o.sessions.pause(session.id, `paused by the watchdog: ${finding.message}. Reply to continue.`)
        : this.o.sessions.stop(session.id));
    };
    acted().catch((error: unknown) =>
      log.warn(`could not ${finding.action} a session`, {
        session: session.id,
        rule: finding.rule,
        error: errorMessage(error),
      }),
    );
  }

  /** The repository's `watchdog` settings and merge check, read again when its config file changes. A bad file is an alert, and the defaults hold. */
  private settingsFor(session: Pick<SessionIdentity, 'project_root'>, fresh = false): RuleSettings {
    const root = session.project_root;
    const now = this.clock().getTime();
    const known = this.configs.get(root);
    // Looked at on turn boundaries and else once a second at most: a busy session's every event must not stat the file.
    if (!fresh && known !== undefined && now - known.checkedAt < CONFIG_RECHECK_MS && now >= known.checkedAt)
      return known.rules;
    let mtimeMs = 0;
    try {
      mtimeMs = statSync(join(root, REPO_CONFIG_FILE)).mtimeMs;
    } catch {
      mtimeMs = 0;
    }
    if (known !== undefined && known.mtimeMs === mtimeMs) {
      known.checkedAt = now;
      return known.rules;
    }
    let config: WatchdogConfig | undefined;
    let check: CheckCommand;
    try {
      const repo = loadRepoConfig(root);
      config = repo.watchdog;
      check = repo.merge?.check;
      // Valid (again): an alert that said it was not is resolved (decision 156), not left open.
      this.alerts
        .resolveKeyed(`config:${root}:`)
        .catch((error: unknown) =>
          log.warn('could not resolve a config alert', { root, error: errorMessage(error) }),
        );
    } catch (error) {
      this.alerts.note({
        rule: 'config',
        message: `the watchdog uses its defaults: ${errorMessage(error)}`,
        evidence: [join(root, REPO_CONFIG_FILE)],
        action: 'alert',
        key: `config:${root}:${mtimeMs}`,
      });
    }
    const rules = resolveRules(config, this.o.idleMs, check);
    this.configs.set(root, { mtimeMs, checkedAt: now, rules });
    return rules;
  }
}
