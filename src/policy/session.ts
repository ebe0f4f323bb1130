/**
 * A session's policy, fixed when it is dispatched: the repository's `policy` section and where
 * the session works, written beside the session's other files (`policy.json`). The session host
 * reads it and hands its agent the gate; the agent never reads its own worktree's config, which
 * it could edit.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PolicySection } from '../projects/index.js';
import { compilePolicy, evaluate } from './gate.js';
import { realDisk, userPlaces } from './context.js';
import type { GateContext, ToolCall, Verdict } from './types.js';

const FILE = 'policy.json';

export const SessionPolicy = z.object({
  section: PolicySection,
  worktree: z.string(),
  baseBranch: z.string().optional(),
  branch: z.string().optional(),
  /** The commit the session began from: a script unchanged since it is the user's, not read. */
  baseCommit: z.string().optional(),
  /** The repository the session belongs to: whose allow rules its host applies (src/approvals/answered.ts). */
  project: z.string().optional(),
});
export type SessionPolicy = z.infer<typeof SessionPolicy>;

export function writeSessionPolicy(sessionDir: string, policy: SessionPolicy): void {
  writeFileSync(join(sessionDir, FILE), JSON.stringify(policy));
}

/** The session's policy; a session dispatched before the gate existed gets the built-in rules. */
export function readSessionPolicy(sessionDir: string, worktree: string): SessionPolicy {
  const path = join(sessionDir, FILE);
  if (!existsSync(path)) return { section: {}, worktree };
  return SessionPolicy.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/**
 * The gate for one session's agent: every call judged against the session's worktree, branch and
 * base, the repository around it and Baton's state folder (`state`), with the disk to look at.
 */
export function sessionGate(
  policy: SessionPolicy,
  home: string,
  state?: string,
): (call: ToolCall) => Verdict {
  const compiled = compilePolicy(policy.section, tmpdir());
  const surroundings = { worktree: policy.worktree, state, baseCommit: policy.baseCommit };
  const places = userPlaces(surroundings);
  const context: GateContext = {
    cwd: policy.worktree,
    worktree: policy.worktree,
    home,
    writable: compiled.writable,
    baseBranch: policy.baseBranch,
    branch: policy.branch,
    disk: realDisk(surroundings),
  };
  return (call) => evaluate(call, { ...context, userPlaces: places() }, compiled);
}
