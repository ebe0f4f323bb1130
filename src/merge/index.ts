/**
 * Landing work: the merge queue (one merge at a time per repository, each in a scratch worktree,
 * checked, then the base advanced by compare-and-swap), groups bisected to the member that broke
 * them, the landing plan, and pull requests.
 */
export { describeCheck, runCheck, type CheckCommand, type CheckResult } from './check.js';
export { compareUrl, describePr } from './pr.js';
export { mergePlan } from './plan-view.js';
export { openPullRequest } from './pull-request.js';
export { MergeService, type LandedWork, type MergeServiceOptions } from './service.js';
export type { MergeSessions } from './sessions.js';
