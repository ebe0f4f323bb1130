/**
 * Allow rules where a session host can read them (decision 152, "An approval an allow rule
 * covers is answered by the host before anyone is asked"). The supervisor keeps a copy of every
 * rule in one file of the state folder, written whole and renamed into place whenever a rule is
 * added or revoked (here or, with a shared store, on another machine); the host reads it when its
 * agent asks for an approval and, when a rule covers the call, answers it at once — the request
 * never becomes a `needs_input`, so nothing tells the user about a call nobody had to answer.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { matchAllowRule, type AllowRule, type PendingCall } from './allow.js';

const FILE = 'allow-rules.json';

const Mirror = z.object({
  rules: z.array(
    z.object({
      id: z.number().int(),
      project_root: z.string().nullable(),
      tool: z.string().nullable(),
      pattern: z.string().nullable(),
    }),
  ),
});

export function allowRulesFile(stateHome: string): string {
  return join(stateHome, FILE);
}

/** Replaces the copy in one rename, so a host never reads half a file. */
export function writeAllowRules(
  stateHome: string,
  rules: readonly (AllowRule & { project_root: string | null })[],
): void {
  const path = allowRulesFile(stateHome);
  const temporary = `${path}.${process.pid}.tmp`;
  const body = {
    rules: rules.map(({ id, project_root, tool, pattern }) => ({ id, project_root, tool, pattern })),
  };
  writeFileSync(temporary, JSON.stringify(body), { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * The allow rule that answers `call` in the repository at `projectRoot`, or undefined. No copy
 * (a supervisor that never wrote one) or an unreadable one answers nothing: the request goes to
 * the user, and the supervisor's own check (service.ts) still applies the rules.
 */
export function allowRuleFor(
  stateHome: string,
  projectRoot: string,
  call: PendingCall,
  cwd: string,
  userHome: string,
): AllowRule | undefined {
  if (call.gate !== undefined) return undefined;
  let rules: z.infer<typeof Mirror>['rules'];
  try {
    rules = Mirror.parse(JSON.parse(readFileSync(allowRulesFile(stateHome), 'utf8'))).rules;
  } catch {
    return undefined;
  }
  const here = rules.filter((r) => r.project_root === null || r.project_root === projectRoot);
  return matchAllowRule(here, call, cwd, userHome);
}
