/**
 * The watchdog (decision 89, "The watchdog sits beside the sessions"): budgets held as usage is
 * ingested, intervention triggers raised as alerts with their evidence (and a pause or stop when
 * configured), and desktop notifications. Usage and prices are src/usage; the destructive-action gate
 * is src/policy.
 */
export { Alerts, toView as alertView, type NewAlert } from './alerts.js';
export { BudgetGuard, PAUSED_FOR_BUDGET } from './enforce.js';
export {
  budgetLabel,
  DEFAULT_WARN_RATIO,
  normalizeScope,
  parseBudgets,
  parseDuration,
  parseUsd,
  type BudgetInput,
} from './budgets.js';
export { AlertNotFoundError, BudgetNotFoundError } from './errors.js';
export {
  DEFAULT_NOTIFY,
  DesktopNotifier,
  noticeFor,
  notifierCommand,
  type Notice,
  type NotifySettings,
} from './notify.js';
export {
  channelMessage,
  NotificationChannels,
  type ChannelMessage,
  type ChannelSettings,
} from './channels.js';
export { resolveRules, SessionRules, type Finding, type RuleSettings } from './rules.js';
export type { WatchdogSessions } from './sessions.js';
export { Watchdog, type WatchdogOptions } from './watchdog.js';
