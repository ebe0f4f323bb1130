/** Projects: a repository Baton works in, and its own settings (`.baton/config.json`). */
export { DEFAULT_CHECK_SECONDS, loadRepoConfig, REPO_CONFIG_FILE, RepoConfig } from './config.js';
export {
  CLAUDE_SETTING_SOURCES,
  CODEX_SETTING_SOURCES,
  DEFAULT_SETUP_SECONDS,
  SHARE_MODES,
} from './environment-config.js';
export { ROUTINE_TRIGGERS, RoutineSpec, RoutinesSection, type RoutineTrigger } from './routine-config.js';
export { TasksSection } from './task-config.js';
export type { WatchdogAction, WatchdogConfig } from './watchdog-config.js';
export { DEFAULT_SYNC_REMOTE, SYNC_PUSH_MODES, SyncSection, type SyncConfig } from './sync-config.js';
export { VerifySection, type VerifyConfig } from './verify-config.js';
export {
  commandDigest,
  commandLines,
  isTrusted,
  requireTrusted,
  trustDigest,
  trustState,
  type CommandLine,
  type TrustState,
} from './trust.js';
export {
  BUILT_IN_RULE_IDS,
  CustomRule,
  PolicySection,
  RULE_ACTIONS,
  type RuleAction,
} from './policy-config.js';
