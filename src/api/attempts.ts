/**
 * Attempts: best-of-N (one prompt, N sessions of any mix of agents, compared side by side, one
 * picked to land) and fan-out (items in batches, one session per batch, one report). Operations
 * are in `src/attempts`.
 */
import { z } from 'zod';
import { AGENT_NAME, PERMISSION_MODES, DEFAULT_PERMISSION_MODE } from '../events/vocabulary.js';
import { SessionState } from '../events/index.js';
import { endpoint, type Table } from './endpoint.js';

/** The bad value as a user would recognise it: a string quoted (cut short), anything else by its kind. Never serialised whole: a body can nest deeper than the stack. */
const shown = (input: unknown): string =>
  typeof input === 'string'
    ? JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input)
    : input === null
      ? 'null'
      : Array.isArray(input)
        ? 'a list'
        : `a ${typeof input}`;
/** An agent's name (decision 280); a name no agent has is refused at dispatch, naming the agents there are. */
export const AttemptAgent = z
  .string({ error: (issue) => `an agent is named by a string, not ${shown(issue.input)}` })
  .regex(AGENT_NAME, {
    error: (issue) =>
      `${shown(issue.input)} is not an agent name: lowercase letters, digits and dashes, starting with a letter`,
  });

/** What every session of a group shares. */
const common = {
  prompt: z.string().min(1, 'the prompt is empty').max(100_000),
  /** Any folder inside the repository. */
  cwd: z.string().min(1),
  /** The sessions' names start with this (default: from the prompt). */
  name: z.string().min(1).max(60).optional(),
  model: z.string().min(1).max(200).optional(),
  base: z.string().min(1).max(500).optional(),
  permissionMode: z.enum(PERMISSION_MODES).default(DEFAULT_PERMISSION_MODE),
  /** Agent-specific options by agent (`{"scripted": {"script": {…}}}`): each session gets its own agent's. */
  options: z.partialRecord(AttemptAgent, z.record(z.string(), z.unknown())).default({}),
  /** Told to every session besides the prompt (a task's context, say). */
  instructions: z.string().max(100_000).optional(),
  /** The task this work is for (its number): each session records it and is told the task's context. */
  taskId: z.string().min(1).max(200).optional(),
};

export const BestOfRequest = z
  .object({
    ...common,
    /** The agents, one per attempt; a single agent is repeated `n` times. */
    agents: z.array(AttemptAgent).min(1).max(1000),
    n: z.number().int().min(1).max(1000).optional(),
  })
  .strict();
export type BestOfRequest = z.input<typeof BestOfRequest>;

export const FanoutRequest = z
  .object({
    ...common,
    agent: AttemptAgent,
    items: z.array(z.string().min(1).max(10_000)).min(1, 'there are no items').max(100_000),
    batch: z.number().int().min(1).max(10_000),
  })
  .strict();
export type FanoutRequest = z.input<typeof FanoutRequest>;

export const CheckSummary = z.object({
  /** `pending`: the session is still at work, so its work is not checked yet; `none`: no check configured. */
  outcome: z.enum(['none', 'pending', 'passed', 'failed', 'timed_out', 'error']),
  command: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  outputTail: z.string().nullable(),
});

export const DiffSummary = z.object({
  files: z.array(z.string()),
  additions: z.number().int(),
  deletions: z.number().int(),
});

export const AttemptView = z.object({
  slot: z.number().int(),
  sessionId: z.string(),
  name: z.string(),
  agent: z.string(),
  state: SessionState,
  branch: z.string(),
  /** Archived when another attempt landed: its uncommitted work is in `snapshotRef`, its commits on `branch`. */
  archived: z.boolean(),
  snapshotRef: z.string().nullable(),
  winner: z.boolean(),
  check: CheckSummary,
  diff: DiffSummary,
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  /** From dispatch to its last event (or now, while it works). */
  seconds: z.number().int(),
  /** Live work of other sessions (not this group's) it will collide with, from the conflict radar. */
  conflicts: z.array(
    z.object({ with: z.string(), level: z.enum(['hot', 'soft']), files: z.array(z.string()) }),
  ),
});
export type AttemptView = z.infer<typeof AttemptView>;

export const GroupSummary = z.object({
  id: z.string(),
  kind: z.enum(['best_of', 'fanout']),
  project: z.string(),
  prompt: z.string(),
  taskId: z.string().nullable(),
  /** best_of: open, picking, landed, pick_failed; fanout: running, finished. */
  state: z.string(),
  sessions: z.number().int(),
  pickedSessionId: z.string().nullable(),
  mergeId: z.string().nullable(),
  message: z.string().nullable(),
  createdAt: z.string(),
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const AttemptGroupView = GroupSummary.extend({ attempts: z.array(AttemptView) });
export type AttemptGroupView = z.infer<typeof AttemptGroupView>;
export const GroupList = z.object({ groups: z.array(GroupSummary) });
export type GroupList = z.infer<typeof GroupList>;
export const GroupListQuery = z.object({
  kind: z.enum(['best_of', 'fanout']).optional().describe('Only best-of groups or only fan-outs'),
  project: z.string().optional().describe('Project root or name'),
});
export const CompareQuery = z.object({
  check: z
    .enum(['true', 'false'])
    .optional()
    .describe('`false`: do not run the check (default: run it on attempts not checked yet)'),
});

export const PickRequest = z
  .object({ session: z.string().min(1), group: z.string().min(1).optional() })
  .strict();
export const PickView = z.object({
  group: GroupSummary,
  mergeId: z.string(),
  seq: z
    .number()
    .int()
    .describe('The attempt.picked event: follow /api/stream after seq − 1 for merge.* and attempt.settled'),
});
export type PickView = z.infer<typeof PickView>;

export const BatchTry = z.object({ sessionId: z.string(), name: z.string(), state: SessionState });
export const BatchView = z.object({
  batch: z.number().int(),
  items: z.array(z.string()),
  /** The items the agent said it finished (`done: <item>`), over every try: the ledger (decision 301). */
  finished: z.array(z.string()),
  /** done: ready for review or completed; failed: failed twice (or stopped); running otherwise. */
  state: z.enum(['running', 'needs_input', 'done', 'failed']),
  tries: z.array(BatchTry),
  diff: DiffSummary,
  /** The agent's last message in its latest try. */
  finalMessage: z.string().nullable(),
});
export type BatchView = z.infer<typeof BatchView>;
export const FanoutView = GroupSummary.extend({
  agent: z.string(),
  batchSize: z.number().int(),
  items: z.number().int(),
  /** Items finished by the ledger, over all batches. */
  itemsFinished: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  running: z.number().int(),
  batches: z.array(BatchView),
});
export type FanoutView = z.infer<typeof FanoutView>;

/** Optional only for a supervisor started before it existed: this one always sends it. */
const Warnings = z
  .array(z.string())
  .optional()
  .describe(
    'Budgets and subscription windows that run out within the hour at the current burn rate, one line each (the sessions start all the same)',
  );
export const AttemptGroupStarted = AttemptGroupView.extend({ warnings: Warnings });
export const FanoutStarted = FanoutView.extend({ warnings: Warnings });

export const ATTEMPTS = {
  'POST /api/attempts': endpoint({
    summary: 'Start N attempts at one prompt (best-of), any mix of agents, as one group',
    body: BestOfRequest,
    response: AttemptGroupStarted,
    status: 201,
  }),
  'GET /api/attempts': endpoint({
    summary: 'Best-of groups and fan-outs',
    query: GroupListQuery,
    response: GroupList,
  }),
  'GET /api/attempts/:group': endpoint({
    summary: "A best-of group's comparison: check result, diff size, files, cost, time, conflicts",
    query: CompareQuery,
    response: AttemptGroupView,
  }),
  'POST /api/attempts/pick': endpoint({
    summary: 'Land the winner through the merge queue; the other attempts are archived once it lands',
    body: PickRequest,
    response: PickView,
  }),
  'POST /api/fanouts': endpoint({
    summary: 'Split items into batches, one session per batch',
    body: FanoutRequest,
    response: FanoutStarted,
    status: 201,
  }),
  'GET /api/fanouts/:group': endpoint({
    summary: "A fan-out's report: per batch its sessions, state, items, diff and final message",
    response: FanoutView,
  }),
} satisfies Table;
