/** The destructive-action gate and allow rules: the rules in force, explained verdicts, allow rules. Operations are in `src/policy`. */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

const action = z.enum(['allow', 'ask', 'block']);

export const PolicyRuleView = z.object({
  id: z.string(),
  title: z.string(),
  action: z.enum(['block', 'ask', 'off']),
  suggest: z.string().nullable(),
  custom: z.boolean().describe("The repository's own rule (policy.custom)"),
});

export const AllowRuleView = z.object({
  id: z.number().int().positive(),
  project: z.string().nullable().describe('The repository root it applies in; null: every repository'),
  tool: z.string().nullable().describe('The tool it allows; null: any tool that runs commands'),
  pattern: z.string().nullable().describe('Commands starting with these words; null: every call of the tool'),
  source: z.enum(['cli', 'approval', 'page']),
  createdAt: z.string(),
});
export type AllowRuleView = z.infer<typeof AllowRuleView>;

export const PolicyView = z.object({
  project: z.string().nullable().describe('The repository whose .baton/config.json was read'),
  rules: z.array(PolicyRuleView),
  allow: z.array(AllowRuleView),
});
export type PolicyView = z.infer<typeof PolicyView>;

export const PolicyTestRequest = z
  .object({
    command: z
      .string()
      .min(1)
      .max(100_000)
      .optional()
      .describe('A command line, judged as an agent running it in the worktree'),
    path: z.string().min(1).max(4096).optional().describe('A file an edit tool would write'),
    worktree: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('The checkout the command runs in, as a session’s worktree (default: the caller’s)'),
    branch: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('The session’s branch (default: the branch checked out in the worktree)'),
    base: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('The base branch sessions land on (default: the main checkout’s branch)'),
  })
  .strict()
  .refine((b) => (b.command === undefined) !== (b.path === undefined), {
    message: 'give either command or path',
  });

export const VerdictView = z.object({
  action,
  rule: z.string().nullable(),
  why: z.string().nullable(),
  suggest: z.string().nullable(),
  uncertain: z.boolean(),
  findings: z.array(
    z.object({ rule: z.string(), action: z.enum(['ask', 'block']), why: z.string(), uncertain: z.boolean() }),
  ),
  parsed: z.array(z.string()).describe('The programs the call would run, wrappers shown with ›'),
  /** The allow rule that would answer an approval of it (never when the gate asks or blocks). */
  allowRule: z.number().int().nullable(),
  worktree: z.string().describe('Where the call was judged as running'),
});
export type VerdictView = z.infer<typeof VerdictView>;

export const AllowRequest = z
  .object({
    pattern: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe('Allow commands starting with these words (`npm test`)'),
    tool: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Allow every call of this tool (`Edit`), or with pattern: only its commands'),
    here: z.boolean().default(false).describe('Only in the repository of the caller’s folder'),
  })
  .strict()
  .refine((b) => b.pattern !== undefined || b.tool !== undefined, {
    message: 'give a pattern, a tool, or both',
  });

export const POLICY = {
  'GET /api/policy': endpoint({
    summary: 'The gate’s rules for the caller’s repository and the allow rules that apply there',
    response: PolicyView,
  }),
  'POST /api/policy/test': endpoint({
    summary: 'The gate’s verdict on a command or a file write, explained',
    body: PolicyTestRequest,
    response: VerdictView,
  }),
  'POST /api/policy/allow': endpoint({
    summary: 'Add an allow rule: approvals it matches are given without asking (the gate still wins)',
    body: AllowRequest,
    response: AllowRuleView,
    status: 201,
    tokenOnly: true,
  }),
  'DELETE /api/policy/allow/:id': endpoint({ summary: 'Revoke an allow rule', response: AllowRuleView }),
} satisfies Table;
