/** Sync: each session's branch and uncommitted work pushed to the shared remote at turn ends, and brought back on another clone. */
export {
  pushSessionWork,
  remoteBranchRef,
  remoteSnapshotRef,
  SyncPushError,
  type PushInput,
  type PushOutcome,
  type SyncFailureKind,
} from './push.js';
export {
  fetchedBranchRef,
  fetchedSnapshotRef,
  fetchPushedWork,
  fetchRemoteBranch,
  pushedWork,
  syncRemoteOf,
  type PushedWork,
} from './fetch.js';
export { restoreSession } from './restore.js';
export { SyncService, type SyncServiceOptions, type SyncSessions } from './service.js';
