/**
 * Landing work: the merge queue (one merge at a time per repository, each in a scratch worktree,
 * checked, then the base advanced by compare-and-swap), groups bisected to the member that broke
 * them, the landing plan, and pull requests.
 */
export { describeCheck, runCheck, type CheckCommand, type CheckResult } from './check.js';
export { compareUrl, describePr } from './pr.js';
export { mergePlan } from './plan-view.js';
export { openPullRequest } from './pull-request.js';
export { MergeService, type MergeServiceOptions } from './service.js';
export type { LandedWork } from './landed-work.js';
export type { ReusedCheck } from './bisect.js';
export { onlyHere, type MergeSessions, type SessionsHere } from './sessions.js';
// The git steps other domains share: a scratch worktree (attempts compare in one), a branch's
// tip, a session's work committed (another machine's hand-over), the remote's URL (sync).
export { branchTip, commitSessionWork, removeStaleScratches, withScratchWorktree } from './git.js';
export { remoteUrl } from './pr.js';
export { requireMergeable } from './sessions.js';
