/** The gate and allow rules: thin calls to the policy domain (src/policy) and approvals' allow rules (src/approvals). */
import type { AllowRuleView, POLICY } from '../../api/policy.js';
import type { ApprovalService } from '../../approvals/index.js';
import type { PolicyService } from '../../policy/index.js';
import { InvalidInputError } from '../../shared/errors.js';
import type { AllowRuleRow } from '../../settings/index.js';
import type { Handlers } from './mount.js';

function needCwd(cwd: string | undefined): string {
  if (cwd === undefined)
    throw new InvalidInputError(
      'Say which repository: send the x-baton-cwd header (or ?cwd=) with a folder inside it.',
    );
  return cwd;
}

export function allowRuleView(row: AllowRuleRow): AllowRuleView {
  return {
    id: row.id,
    project: row.project_root,
    tool: row.tool,
    pattern: row.pattern,
    source: row.source,
    createdAt: row.created_at,
  };
}

export function policyHandlers(
  policy: PolicyService<AllowRuleRow>,
  approvals: ApprovalService,
): Handlers<typeof POLICY> {
  return {
    'GET /api/policy': async ({ cwd }) => {
      const view = await policy.view(needCwd(cwd));
      return {
        project: view.project,
        rules: view.rules.map((r) => ({ ...r, suggest: r.suggest ?? null })),
        allow: view.allow.map(allowRuleView),
      };
    },
    'POST /api/policy/test': async ({ body, cwd }) => {
      const { verdict, allowRule, worktree } = await policy.test(body, needCwd(cwd));
      return {
        action: verdict.action,
        rule: verdict.rule ?? null,
        why: verdict.why ?? null,
        suggest: verdict.suggest ?? null,
        uncertain: verdict.uncertain === true,
        findings: verdict.findings.map((f) => ({
          rule: f.rule,
          action: f.action,
          why: f.why,
          uncertain: f.uncertain === true,
        })),
        parsed: verdict.parsed,
        allowRule,
        worktree,
      };
    },
    'POST /api/policy/allow': async ({ body, cwd }) =>
      allowRuleView(await approvals.allow(body, needCwd(cwd))),
    'DELETE /api/policy/allow/:id': async ({ params }) => allowRuleView(await approvals.revoke(params.id)),
  };
}
