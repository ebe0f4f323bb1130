/** The watchdog and budgets (src/watchdog, src/usage). */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

export const ALERT_RULES = [
  'budget',
  'budget_warning',
  'window',
  'no_progress',
  'loop',
  'repeated_errors',
  'out_of_scope',
  'approval_wait',
  'no_change',
  'config',
] as const;
export const AlertRule = z.enum(ALERT_RULES);
export const AlertAction = z.enum(['alert', 'pause', 'stop']);

/** Something a person should look at, with what was seen; `action` is what the watchdog did about it. */
export const WatchdogAlertRaised = defineWorkspaceEvent(
  'watchdog.alert_raised',
  z.object({
    alertId: z.string(),
    rule: AlertRule,
    sessionId: z.string().nullable(),
    name: z.string().nullable(),
    project: z.string().nullable(),
    message: z.string(),
    evidence: z.array(z.string()),
    action: AlertAction,
  }),
);
export const WatchdogAlertAcknowledged = defineWorkspaceEvent(
  'watchdog.alert_acknowledged',
  z.object({ alertId: z.string() }),
);
const budgetScope = { scope: z.string(), windowMs: z.number().int().positive().nullable() };
export const BudgetSet = defineWorkspaceEvent(
  'budget.set',
  z.object({ ...budgetScope, limitUsd: z.number().positive(), warnRatio: z.number() }),
);
export const BudgetRemoved = defineWorkspaceEvent('budget.removed', z.object({ scope: z.string() }));
/** A session the watchdog paused for its budget was let go on again (the budget was raised). */
export const BudgetResumed = defineWorkspaceEvent(
  'budget.resumed',
  z.object({ ...sessionRef, spentUsd: z.number(), limitUsd: z.number() }),
);
