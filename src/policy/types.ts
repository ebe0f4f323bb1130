/** The gate's words: a tool call as it sees it, what a rule finds, and the verdict. */
import type { RuleAction } from '../projects/index.js';
import type { Place } from './paths.js';
import type { Command } from './unwrap.js';

export const GATE_ACTIONS = ['allow', 'ask', 'block'] as const;
export type GateAction = (typeof GATE_ACTIONS)[number];
/** What a rule does when it matches; `off` turns it off (defined with the config section that sets it). */
export { RULE_ACTIONS, type RuleAction } from '../projects/index.js';

/** One tool call, whatever the agent: a command to run, or files to write. */
export interface ToolCall {
  tool: string;
  kind: 'edit' | 'read' | 'run' | 'search' | 'web' | 'other';
  command?: string | undefined;
  /** Files an edit writes (absolute, or relative to `cwd`). */
  paths?: readonly string[] | undefined;
}

/** Where a call runs: its directory, the session's worktree, and the branches it must not rewrite. */
export interface GateContext extends Place {
  cwd: string;
  /** The branch the session's work lands on (`main`): never reset or deleted by an agent. */
  baseBranch?: string | undefined;
  /** The session's own branch. */
  branch?: string | undefined;
}

export interface RuleContext extends GateContext {
  /** Branches a `git checkout`/`switch` earlier in the same call moved to (`git checkout main && git reset --hard`). */
  switchedTo?: string | undefined;
}

/** What a rule saw in one command. `uncertain`: it might match, but the command is only known at run time. */
export interface Finding {
  rule: string;
  why: string;
  uncertain?: boolean | undefined;
}

export interface CommandRule {
  id: string;
  title: string;
  action: Exclude<RuleAction, 'off'>;
  /** What to do instead; the gate allows it. */
  suggest?: string | undefined;
  check(command: Command, context: RuleContext): Finding | undefined;
}

/** The gate's answer, with its reasons. */
export interface Verdict {
  action: GateAction;
  /** The rule that decided (the strongest finding), unset when nothing matched. */
  rule?: string | undefined;
  why?: string | undefined;
  suggest?: string | undefined;
  uncertain?: boolean | undefined;
  /** Every finding, strongest first. */
  findings: (Finding & { action: Exclude<GateAction, 'allow'> })[];
  /** The programs the call would run, as parsed: `sudo > rm -rf /`. */
  parsed: string[];
}
