/**
 * The destructive-action gate: one verdict (allow, ask, block) for a tool call of any agent in
 * any permission mode, from rules that are data (`policy` in `.baton/config.json`, built-in
 * defaults), explained by rule, reason and the command as parsed. The agents call it through
 * `AgentStartOptions.gate`. Allow rules (approvals the user said always to give) are the
 * approvals domain's (src/approvals), which reads commands with `commandsOf` from here.
 */
export { BUILT_IN_RULE_IDS, CustomRule, PolicySection } from '../projects/index.js';
export {
  compilePolicy,
  DEFAULT_WRITABLE,
  describeRules,
  evaluate,
  render,
  UNPARSEABLE,
  type Policy,
} from './gate.js';
export {
  GATE_ACTIONS,
  RULE_ACTIONS,
  type Finding,
  type GateAction,
  type GateContext,
  type RuleAction,
  type ToolCall,
  type Verdict,
} from './types.js';
export { readSessionPolicy, sessionGate, SessionPolicy, writeSessionPolicy } from './session.js';
export { realDisk, userPlaces, type Surroundings } from './context.js';
export type { Disk, ScriptFile, UserPlace } from './paths.js';
export { commandsOf, type Command } from './unwrap.js';
export {
  PolicyService,
  type AllowRulesPort,
  type PendingCall,
  type PolicyServiceOptions,
} from './service.js';
export { parseCommands, ShellSyntaxError, type SimpleCommand, type Word } from './shell.js';
export { discardsWork } from './discards.js';
