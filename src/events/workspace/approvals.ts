/** Approvals (src/approvals): allow rules added and revoked, and approvals an allow rule answered. */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

/** An allow rule: calls of `tool` (or any command-running tool) whose command starts with `pattern`, in `project` (or everywhere). */
const allowRule = {
  ruleId: z.number().int().positive(),
  project: z.string().nullable(),
  tool: z.string().nullable(),
  pattern: z.string().nullable(),
};
export const PolicyAllowAdded = defineWorkspaceEvent(
  'policy.allow_added',
  z.object({ ...allowRule, source: z.enum(['cli', 'approval', 'page']) }),
);
export const PolicyAllowRevoked = defineWorkspaceEvent('policy.allow_revoked', z.object(allowRule));
/** An approval answered by an allow rule, without reaching the user. */
export const PolicyAutoApproved = defineWorkspaceEvent(
  'policy.auto_approved',
  z.object({
    ...sessionRef,
    ruleId: z.number().int().positive(),
    requestId: z.string(),
    tool: z.string(),
    input: z.string(),
  }),
);
