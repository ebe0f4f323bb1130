/**
 * Budgets held to: each usage report is checked as it is ingested. The soft limit (a share of the
 * limit) raises an alert; the hard limit pauses the session at once (needs input, with the reason)
 * and, for a day or window budget, every session at work, and holds queued work back. A reply
 * resumes a paused session; so does a budget raised (or removed) above what was spent.
 */
import type { BudgetView } from '../api/watchdog.js';
import type { WorkspaceBus } from '../bus/index.js';
import { BudgetRemoved, BudgetResumed, BudgetSet } from '../events/workspace.js';
import { createLogger } from '../shared/log.js';
import { errorMessage, InternalError } from '../shared/errors.js';
import type { Budgets, BudgetRow } from '../settings/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import {
  combineSpends,
  formatDuration,
  type SpendSeries,
  type UsageEntry,
  type UsageTracker,
} from '../usage/index.js';
import type { Alerts } from './alerts.js';
import { budgetLabel, normalizeScope, parseBudgets, standing, type BudgetInput } from './budgets.js';
import { BudgetNotFoundError } from './errors.js';
import { sessionRef, type WatchdogSessions } from './sessions.js';

const log = createLogger('watchdog');

type Named = Pick<SessionWithProject, 'id' | 'name' | 'project_name'>;

/** A dispatch warns when a workspace budget runs out within this long at the current rate. */
const DISPATCH_HORIZON_MS = 60 * 60_000;
const AT_WORK = new Set(['starting', 'working']);
const DAY_MS = 24 * 3_600_000;
export const PAUSED_FOR_BUDGET = 'paused for its budget';

export interface GuardOptions {
  /** Where the budgets are kept: this machine's store, or the workspace's shared one. */
  table: Budgets;
  bus: WorkspaceBus;
  usage: UsageTracker;
  alerts: Alerts;
  sessions: WatchdogSessions;
  clock: () => Date;
  /** What the other machines sharing the budgets spent (decision 131); none: this machine alone. */
  elsewhere?: Elsewhere | undefined;
}

export interface Elsewhere {
  spends(): SpendSeries;
  onChange(listener: () => void): () => void;
}

export class BudgetGuard {
  /**
   * The rows, read by `load` and again after each change (here, or on another machine sharing
   * the store): every usage report reads them, and must not wait for a store.
   */
  private rows: BudgetRow[] = [];
  /** The reload running, and whether another was asked for meanwhile. */
  private loading: Promise<void> | undefined;
  private again = false;
  /** Closed with the watchdog: a read or write still under way stops at its next step, before the store closes. */
  private closed = false;

  constructor(private readonly o: GuardOptions) {}

  close(): void {
    this.closed = true;
  }

  private stillOpen(): void {
    if (this.closed)
      throw new InternalError('The watchdog has closed; the budgets are no longer read or changed.');
  }

  private get table(): Budgets {
    return this.o.table;
  }

  private get store(): { list(): BudgetRow[] } {
    return { list: () => this.rows };
  }

  /** This machine's spends, and the other machines' when they share the budgets. */
  private series(): SpendSeries {
    const mine = this.o.usage.ledger.series();
    return this.o.elsewhere === undefined ? mine : combineSpends(mine, this.o.elsewhere.spends());
  }

  /** How far back a budget looks: the longest window, and a day at least (a day budget counts from midnight). */
  horizonMs(): number {
    return Math.max(DAY_MS + 3_600_000, ...this.rows.map((row) => row.window_ms ?? 0));
  }

  /**
   * The other machines spent more: the day and window budgets are checked as for a spend here,
   * pausing this machine's sessions at work when one is reached. Returns the unsubscribe.
   */
  watchElsewhere(): () => void {
    return this.o.elsewhere?.onChange(() => this.checkWorkspace()) ?? (() => {});
  }

  private checkWorkspace(): void {
    for (const row of this.store.list()) {
      if (row.scope === 'session') continue;
      const over = this.over(row, undefined);
      if (over === undefined) continue;
      if (over.hard) this.reached(row, undefined, over.message);
      else
        this.o.alerts.note({
          rule: 'budget_warning',
          message: over.message,
          evidence: over.evidence,
          action: 'alert',
          key: `budget_warning:${row.scope}:${this.period(row)}`,
        });
    }
  }

  /** Reads the budgets; resolves once the rows read after the latest call are in. */
  load(): Promise<void> {
    if (this.loading !== undefined) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.again = false;
          // A reload asked for before the watchdog closed, run after it: the store may be closed by now.
          if (this.closed) return;
          this.rows = await this.table.list();
        } while (this.again);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /**
   * Budgets changed by another machine: read again, and the sessions paused here for a budget
   * raised (or removed) there carry on.
   */
  async changedElsewhere(): Promise<string[]> {
    await this.load();
    return this.resumeWithinBudget();
  }

  list(): BudgetView[] {
    const now = this.o.clock();
    const series = this.series();
    return this.store.list().map((row) => {
      if (row.scope === 'session') {
        const live = this.o.sessions.list().map((s) => this.o.usage.ledger.session(s.id).usd);
        const used = Math.max(0, ...live);
        return view(
          row,
          used,
          null,
          null,
          `each session: up to $${row.limit_usd.toFixed(2)} (the most spent now: $${used.toFixed(2)})`,
        );
      }
      const s = standing(row, series, now);
      return view(row, s.used, s.perHour, s.exhaustsInMs, s.summary);
    });
  }

  async set(input: BudgetInput): Promise<{ budgets: BudgetView[]; resumed: string[] }> {
    const rows = parseBudgets(input, this.o.clock());
    for (const row of rows) {
      this.stillOpen();
      await this.table.put(row);
      await this.load();
      this.stillOpen();
      this.o.bus.publish(BudgetSet, {
        scope: row.scope,
        windowMs: row.window_ms,
        limitUsd: row.limit_usd,
        warnRatio: row.warn_ratio,
      });
    }
    return { budgets: this.list(), resumed: await this.resumeWithinBudget() };
  }

  async remove(scopeText: string): Promise<{ budgets: BudgetView[]; resumed: string[] }> {
    const scope = normalizeScope(scopeText);
    this.stillOpen();
    const removed = await this.table.remove(scope);
    await this.load();
    if (!removed)
      throw new BudgetNotFoundError(
        scope,
        this.store.list().map((row) => row.scope),
      );
    this.o.bus.publish(BudgetRemoved, { scope });
    return { budgets: this.list(), resumed: await this.resumeWithinBudget() };
  }

  /** One usage report, just ingested: the budgets it reaches. */
  check(entry: UsageEntry): void {
    // Named from the report itself: a usage report must not cost a query.
    const session = { id: entry.sessionId, name: entry.name, project_name: entry.project };
    for (const row of this.store.list()) {
      const over = this.over(row, session);
      if (over === undefined) continue;
      if (over.hard) this.reached(row, session, over.message);
      else
        this.o.alerts.note({
          rule: 'budget_warning',
          session: row.scope === 'session' ? sessionRef(session) : undefined,
          message: over.message,
          evidence: over.evidence,
          action: 'alert',
          key: `budget_warning:${row.scope}:${row.scope === 'session' ? session.id : this.period(row)}`,
        });
    }
  }

  /** The scheduler gate: queued work waits while a day or window budget is spent. */
  holds(): string | undefined {
    for (const row of this.store.list()) {
      if (row.scope === 'session') continue;
      const s = standing(row, this.series(), this.o.clock());
      if (reaches(s.used, row.limit_usd))
        return `the ${budgetLabel(row)} budget is spent ($${s.used.toFixed(2)} of $${row.limit_usd.toFixed(2)}); raise it with baton budget set`;
    }
    return undefined;
  }

  /** A dispatch when a budget runs out soon at this rate: an alert before the work starts. */
  warnDispatch(session: SessionWithProject): void {
    for (const warning of this.dispatchWarnings(session)) {
      this.o.alerts.note({
        rule: 'window',
        session: sessionRef(session),
        message: `dispatched while ${warning.text}`,
        evidence: [warning.evidence],
        action: 'alert',
        key: `window:${warning.key}:${session.id}`,
      });
    }
  }

  /**
   * What a dispatch of this agent should be warned of now: each workspace budget and each of the
   * agent's subscription windows that runs out within the hour at the current burn rate. The
   * dispatch still goes ahead; the answer and the CLI say it, and `warnDispatch` records it.
   */
  dispatchWarnings(
    session: Pick<SessionWithProject, 'agent'>,
  ): { key: string; text: string; evidence: string }[] {
    const now = this.o.clock();
    const warnings: { key: string; text: string; evidence: string }[] = [];
    for (const row of this.store.list()) {
      if (row.scope === 'session') continue;
      const s = standing(row, this.series(), now);
      if (s.exhaustsInMs === null || s.exhaustsInMs > DISPATCH_HORIZON_MS) continue;
      const when =
        s.exhaustsInMs === 0
          ? 'is already spent'
          : `runs out in ${formatDuration(s.exhaustsInMs)} at this rate`;
      warnings.push({ key: row.scope, text: `the ${budgetLabel(row)} budget ${when}`, evidence: s.summary });
    }
    for (const window of this.o.usage.windows.list(now.getTime())) {
      if (
        window.agent !== session.agent ||
        window.exhaustsInMs === null ||
        window.exhaustsInMs > DISPATCH_HORIZON_MS
      )
        continue;
      warnings.push({
        key: `${window.agent}:${window.name}`,
        text: window.summary,
        evidence: window.summary,
      });
    }
    return warnings;
  }

  private over(
    row: BudgetRow,
    session: Named | undefined,
  ): { hard: boolean; message: string; evidence: string[] } | undefined {
    if (row.scope === 'session') {
      if (session === undefined) return undefined;
      const spent = this.o.usage.ledger.session(session.id).usd;
      if (!reaches(spent, row.limit_usd * row.warn_ratio)) return undefined;
      const hard = reaches(spent, row.limit_usd);
      return {
        hard,
        message: `${hard ? 'budget reached' : 'budget nearly spent'}: ${session.name} spent $${spent.toFixed(2)} of its $${row.limit_usd.toFixed(2)}`,
        evidence: [
          `session ${session.name}: $${spent.toFixed(4)}`,
          `limit $${row.limit_usd} (warn at ${Math.round(row.warn_ratio * 100)}%)`,
        ],
      };
    }
    const s = standing(row, this.series(), this.o.clock());
    if (!reaches(s.used, row.limit_usd * row.warn_ratio)) return undefined;
    const hard = reaches(s.used, row.limit_usd);
    return {
      hard,
      message: `${hard ? 'budget reached' : 'budget nearly spent'}: ${s.summary}`,
      evidence: [s.summary],
    };
  }

  /** A budget reached by `crossing`'s spend (undefined: another machine's): the sessions it pauses. */
  private reached(row: BudgetRow, crossing: Named | undefined, message: string): void {
    const targets: Named[] =
      row.scope === 'session'
        ? crossing === undefined
          ? []
          : [crossing]
        : this.o.sessions.list().filter((s) => s.id === crossing?.id || AT_WORK.has(s.state));
    for (const session of targets)
      this.pauseOnce(row, session, message).catch((error: unknown) =>
        log.warn('could not pause a session for its budget', {
          session: session.id,
          error: errorMessage(error),
        }),
      );
  }

  private async pauseOnce(row: BudgetRow, session: Named, message: string): Promise<void> {
    const raised = await this.o.alerts.raise({
      rule: 'budget',
      session: sessionRef(session),
      message,
      evidence: [`${budgetLabel(row)} limit $${row.limit_usd.toFixed(2)}`],
      action: 'pause',
      key: `budget:${row.scope}:${this.period(row)}:${session.id}`,
    });
    // Paused once per alert: a reply carries on past the limit until the alert is acknowledged.
    if (raised === undefined) return;
    await this.o.sessions.pause(
      session.id,
      `${PAUSED_FOR_BUDGET}: ${message}. Raise it (baton budget set) or reply to continue.`,
    );
  }

  /** Day budgets renew each day; one alert per day. */
  private period(row: BudgetRow): string {
    return row.scope === 'day' ? this.o.clock().toISOString().slice(0, 10) : 'current';
  }

  /** Sessions paused for a budget that they are now within: told to carry on. */
  private async resumeWithinBudget(): Promise<string[]> {
    const resumed: string[] = [];
    // This machine's sessions' open budget alerts, however many other machines' alerts are open.
    const open = await Promise.all(
      this.o.sessions
        .list()
        .map(async (s) => (await this.o.alerts.openFor(s.id, 'budget')).map((alert) => ({ alert, s }))),
    );
    for (const { alert, s } of open.flat()) {
      const session = this.o.sessions.get(s.id) ?? s;
      if (session.removed_at !== null) continue;
      if (this.store.list().some((row) => this.over(row, session)?.hard === true)) continue;
      // Acknowledged by this pass alone: two passes at once (a raise here, one on another machine) resume it once.
      if (!(await this.o.alerts.settle(alert.id))) continue;
      const paused =
        session.state === 'needs_input' && (session.state_reason_json ?? '').includes(PAUSED_FOR_BUDGET);
      if (!paused) continue;
      await this.o.sessions.reply(session.id, 'The budget was raised: carry on where you stopped.');
      const spent = this.o.usage.ledger.session(session.id).usd;
      const limit = this.store.list().find((row) => row.scope === 'session')?.limit_usd ?? 0;
      this.o.bus.publish(BudgetResumed, {
        ...{ sessionId: session.id, name: session.name, project: session.project_name },
        spentUsd: spent,
        limitUsd: limit,
      });
      resumed.push(session.name);
    }
    await this.o.sessions.schedule();
    return resumed;
  }
}

/** Sums of float dollars (0.02 + 0.02) land a hair below the limit they equal: a nano-dollar of slack. */
function reaches(spent: number, limit: number): boolean {
  return spent + 1e-9 >= limit;
}

function view(
  row: BudgetRow,
  used: number,
  perHour: number | null,
  exhaustsInMs: number | null,
  summary: string,
): BudgetView {
  return {
    scope: row.scope,
    label: budgetLabel(row),
    limitUsd: row.limit_usd,
    warnRatio: row.warn_ratio,
    windowMs: row.window_ms,
    usedUsd: Math.round(used * 1e6) / 1e6,
    perHourUsd: perHour,
    exhaustsInMs,
    summary,
  };
}
