/** Usage and cost, budgets and the watchdog's alerts (src/usage, src/watchdog). */
import { z } from 'zod';
import { AlertAction, AlertRule } from '../events/workspace.js';
import { endpoint, type Table } from './endpoint.js';
import { flagQuery } from './query.js';

export const CostGrouping = z.enum(['session', 'task', 'agent', 'day']);

export const CostRowView = z.object({
  key: z.string().describe('The session (project/name), task, agent or day'),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  usd: z.number().describe('Dollars of the priced reports'),
  unpricedTokens: z
    .number()
    .int()
    .describe('Tokens no price is known for (an unknown model): counted, never priced at $0'),
  unpricedModels: z.array(z.string()),
  sessions: z.number().int(),
});

export const BudgetView = z.object({
  scope: z
    .string()
    .describe('session (each session), day (all sessions today), window:<duration> (all sessions, rolling)'),
  label: z.string().describe('"each session", "today", "5h window"'),
  limitUsd: z.number(),
  warnRatio: z.number(),
  windowMs: z.number().int().nullable(),
  /** Spent against it now (the largest session's for `session`). */
  usedUsd: z.number(),
  perHourUsd: z.number().nullable(),
  exhaustsInMs: z.number().int().nullable(),
  summary: z.string(),
});
export type BudgetView = z.infer<typeof BudgetView>;

export const WindowView = z.object({
  agent: z.string(),
  name: z.string(),
  usedPercent: z.number(),
  /** 100 less the used share, never below 0. */
  remainingPercent: z.number(),
  resetsAt: z.string().nullable(),
  perHour: z.number().nullable(),
  exhaustsInMs: z.number().int().nullable(),
  summary: z.string(),
  reportedAt: z.string(),
});

export const CostReport = z.object({
  by: CostGrouping,
  rows: z.array(CostRowView),
  total: CostRowView,
  /** Spend per hour across all sessions over the last 30 minutes. */
  perHourUsd: z.number(),
  todayUsd: z.number(),
  priceTable: z.object({ date: z.string(), models: z.array(z.string()) }),
  budgets: z.array(BudgetView),
  windows: z
    .array(WindowView)
    .describe(
      'Subscription windows as the agents report them (Codex, and Claude for a claude.ai login: 5-hour and weekly used-%)',
    ),
  /** Spend per hour of the last 24 hours, oldest first, for the chart. */
  hourly: z.array(z.object({ hour: z.string(), usd: z.number() })),
});
export type CostReport = z.infer<typeof CostReport>;
export const CostQuery = z.object({
  by: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value !== undefined && !CostGrouping.options.includes(value as never))
        ctx.addIssue({
          code: 'custom',
          message: `"by" must be one of ${CostGrouping.options.join(', ')}, got "${value}"`,
        });
    })
    .transform((value) => (value ?? 'session') as z.infer<typeof CostGrouping>),
});

/**
 * Amounts as people write them (`2usd`, `$2`, `40`); a window as `<duration>:<amount>` (`5h:200usd`).
 * The supervisor parses them, and an error names the key that was wrong.
 */
export const BudgetRequest = z
  .object({
    session: z.string().min(1).max(64).optional().describe('Each session’s limit, e.g. 2usd'),
    day: z.string().min(1).max(64).optional().describe('All sessions today, e.g. 40usd'),
    window: z.array(z.string().min(1).max(64)).max(10).optional().describe('Rolling windows, e.g. 5h:200usd'),
    warnAt: z
      .string()
      .min(1)
      .max(16)
      .optional()
      .describe('The soft limit, a share of each limit set here: 80% (default)'),
  })
  .strict();
export const BudgetList = z.object({
  budgets: z.array(BudgetView),
  resumed: z
    .array(z.string())
    .describe('Sessions the watchdog had paused for a budget, resumed now that they are within it'),
});
export type BudgetList = z.infer<typeof BudgetList>;

export const AlertView = z.object({
  id: z.string(),
  raisedAt: z.string(),
  rule: AlertRule,
  sessionId: z.string().nullable(),
  name: z.string().nullable(),
  project: z.string().nullable(),
  message: z.string(),
  evidence: z.array(z.string()),
  action: AlertAction,
  acknowledgedAt: z.string().nullable(),
  machine: z
    .string()
    .optional()
    .describe('The machine whose watchdog raised it (a workspace shared by several machines)'),
});
export type AlertView = z.infer<typeof AlertView>;
export const AlertsQuery = z.object({ all: flagQuery.describe('Acknowledged alerts too') });
export const AlertList = z.object({ alerts: z.array(AlertView) });
export type AlertList = z.infer<typeof AlertList>;

export const WATCHDOG = {
  'GET /api/cost': endpoint({
    summary:
      'Tokens and cost by session, task, agent or day; burn rate, budgets and the agents’ subscription windows',
    query: CostQuery,
    response: CostReport,
  }),
  'GET /api/budgets': endpoint({ summary: 'The budgets and where each stands', response: BudgetList }),
  'POST /api/budgets': endpoint({
    summary: 'Set budgets (a raised budget resumes the sessions it paused)',
    body: BudgetRequest,
    response: BudgetList,
  }),
  'DELETE /api/budgets/:scope': endpoint({
    summary: 'Remove a budget (session, day, window:5h)',
    response: BudgetList,
  }),
  'GET /api/alerts': endpoint({
    summary: 'The watchdog’s alerts, newest first (open ones unless all)',
    query: AlertsQuery,
    response: AlertList,
  }),
  'POST /api/alerts/:id/ack': endpoint({ summary: 'Acknowledge an alert', response: AlertView }),
} satisfies Table;
