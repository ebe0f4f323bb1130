/**
 * Environments: worktrees that are ready to work in (decision 59, "Setup runs in the session's host").
 * A session's plan is made at dispatch from `.baton/config.json` and kept with the session: whose agent
 * setup its agent loads, what is copied and shared from the main checkout, setup commands run while it
 * is `preparing`, its leased ports and templated variables, and its teardown.
 */
export {
  agentInstructions,
  checkEnvironment,
  completePlan,
  templateValues,
  type CheckedEnvironment,
  type SessionFacts,
} from './build.js';
export { EnvironmentPlan, needsPreparing, PLAN_FILE, readPlan, writePlan, type Command } from './plan.js';
export { bindable, DEFAULT_PORT_RANGE, leasePorts, portNames, type PortRequest } from './ports.js';
export { fillTemplates, identifierOf } from './template.js';
export { prepareWorktree, type PrepareReporter, type PrepareResult } from './prepare.js';
export { commandLabel, runCommand, type CommandResult } from './run.js';
export { detectShareMode, shareFolder, type ShareMode } from './share.js';
export { runTeardown } from './teardown.js';
export { diskUse } from './disk.js';
export { pickForArchive, type GcCandidate, type GcDecision, type GcPolicy } from './gc.js';
