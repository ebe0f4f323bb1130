/**
 * Approvals: a session's agent asks before a call (`approval.requested`), and someone answers it
 * (`approval.resolved`). Where each part lives:
 *
 * - requesting: each agent's adapter turns its vendor's permission request into an approval
 *   (src/agents/<agent>/approvals.ts); the gate (src/policy) may make a call one;
 * - answering: `baton approve|deny`, the page and the board reach `SessionManager.resolveApproval`
 *   (src/sessions/commands.ts), which checks with `PendingApprovals` that the session waits on it
 *   and hands the answer to the session's host;
 * - allow rules (approvals the user said always to give) and auto-approval: `ApprovalService`
 *   (service.ts) adds, lists and revokes them and answers what a rule covers; the hosts answer
 *   most such calls themselves from a copy of the rules (answered.ts); matching in allow.ts;
 * - the approvals table's read side: `PendingApprovals` (pending.ts);
 * - events: `policy.allow_added`, `policy.allow_revoked`, `policy.auto_approved`
 *   (src/events/workspace/approvals.ts).
 */
export { matchAllowRule, patternWords, type AllowRule, type PendingCall } from './allow.js';
export { allowRuleFor, allowRulesFile, writeAllowRules } from './answered.js';
export { PendingApprovals, type ApprovalRow } from './pending.js';
export { ApprovalService, type ApprovalServiceOptions, type ApprovalSessions } from './service.js';
