/**
 * Alerts: stored (one open alert per dedupe key, so a rule that keeps seeing the same thing does
 * not repeat itself) and published as `watchdog.alert_raised` for the CLI, the inbox and the page.
 */
import type { z } from 'zod';
import type { AlertView } from '../api/watchdog.js';
import type { WorkspaceBus } from '../bus/index.js';
import {
  WatchdogAlertAcknowledged,
  WatchdogAlertRaised,
  type AlertAction,
  type AlertRule,
} from '../events/workspace.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { AlertNotFoundError } from './errors.js';
import { newId } from '../shared/ids.js';
import type { AlertRow, AlertsTable } from '../settings/index.js';

const log = createLogger('watchdog');

export interface AlertSession {
  id: string;
  name: string;
  project: string;
}

export interface NewAlert {
  rule: z.infer<typeof AlertRule>;
  session?: AlertSession | undefined;
  message: string;
  evidence: string[];
  action: z.infer<typeof AlertAction>;
  /** What makes two alerts the same one (default: rule and session). */
  key?: string;
}

export class Alerts {
  /**
   * Keys of alerts raised while their store refused them (a shared store away): each acted on
   * once here, and not again when the store takes the same alert later.
   */
  private readonly unrecorded = new Set<string>();

  constructor(
    /** This machine's table, or the one every machine of a shared workspace shows. */
    private readonly store: AlertsTable,
    private readonly bus: WorkspaceBus,
    private readonly clock: () => Date,
  ) {}

  /** Raises `alert` unless the same one is still open; resolves with the stored alert when it was new. */
  async raise(alert: NewAlert): Promise<AlertView | undefined> {
    const row: AlertRow = {
      id: newId().slice(0, 12),
      raised_at: this.clock().toISOString(),
      rule: alert.rule,
      session_id: alert.session?.id ?? null,
      session_name: alert.session?.name ?? null,
      project: alert.session?.project ?? null,
      message: alert.message,
      evidence_json: JSON.stringify(alert.evidence.slice(0, 20)),
      action: alert.action,
      dedupe_key: alert.key ?? `${alert.rule}:${alert.session?.id ?? '-'}`,
      acknowledged_at: null,
    };
    let stored: boolean;
    try {
      stored = await this.store.insert(row);
    } catch (error) {
      // The pause or stop it calls for must not wait for the store: acted on once, logged.
      if (this.unrecorded.has(row.dedupe_key)) return undefined;
      this.unrecorded.add(row.dedupe_key);
      log.warn('an alert could not be stored; acting on it anyway', {
        rule: row.rule,
        key: row.dedupe_key,
        error: errorMessage(error),
      });
      this.published(row, alert);
      return toView(row);
    }
    if (!stored) return undefined;
    // Raised and acted on while the store was away: stored now, neither told nor acted on twice.
    if (this.unrecorded.delete(row.dedupe_key)) return undefined;
    this.published(row, alert);
    return toView(row);
  }

  private published(row: AlertRow, alert: NewAlert): void {
    this.bus.publish(WatchdogAlertRaised, {
      alertId: row.id,
      rule: alert.rule,
      sessionId: row.session_id,
      name: row.session_name,
      project: row.project,
      message: row.message,
      evidence: alert.evidence.slice(0, 20),
      action: alert.action,
    });
  }

  /** Raises `alert` without waiting; a store that refuses it is logged, never thrown. */
  note(alert: NewAlert): void {
    this.raise(alert).catch((error: unknown) =>
      log.warn('could not store an alert', { rule: alert.rule, key: alert.key, error: errorMessage(error) }),
    );
  }

  async acknowledge(id: string): Promise<AlertView> {
    const row =
      (await this.store.get(id)) ??
      (await this.store.list({ limit: 10_000 })).find((alert) => alert.id.startsWith(id));
    if (row === undefined) throw new AlertNotFoundError(id);
    if (await this.store.acknowledge(row.id, this.clock().toISOString()))
      this.bus.publish(WatchdogAlertAcknowledged, { alertId: row.id });
    return toView((await this.store.get(row.id)) ?? row);
  }

  /** Acknowledges the open alert `id`; resolves whether this call did (false: it was not open). */
  async settle(id: string): Promise<boolean> {
    const done = await this.store.acknowledge(id, this.clock().toISOString());
    if (done) this.bus.publish(WatchdogAlertAcknowledged, { alertId: id });
    return done;
  }

  /** Settles every open alert whose key starts with `prefix` (what it said is no longer so); resolves how many. */
  async resolveKeyed(prefix: string): Promise<number> {
    let settled = 0;
    for (const row of await this.store.list({ open: true, limit: 10_000 }))
      if (row.dedupe_key.startsWith(prefix) && (await this.settle(row.id))) settled++;
    return settled;
  }

  async list(all: boolean): Promise<AlertView[]> {
    return (await this.store.list({ open: !all })).map(toView);
  }

  /** Open alerts of a session raised by `rule`. */
  async openFor(sessionId: string, rule: string): Promise<AlertView[]> {
    return (await this.store.openFor(sessionId)).filter((row) => row.rule === rule).map(toView);
  }
}

export function toView(row: AlertRow): AlertView {
  return {
    id: row.id,
    raisedAt: row.raised_at,
    rule: row.rule as AlertView['rule'],
    sessionId: row.session_id,
    name: row.session_name,
    project: row.project,
    message: row.message,
    evidence: JSON.parse(row.evidence_json) as string[],
    action: row.action as AlertView['action'],
    acknowledgedAt: row.acknowledged_at,
    ...(typeof row.machine === 'string' ? { machine: row.machine } : {}),
  };
}
