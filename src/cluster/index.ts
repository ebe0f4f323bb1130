/**
 * The cluster layer (decision 120): one workspace served by several machines through a shared
 * PostgreSQL. The supervisor joins it when a store is configured (`joinCluster`, loaded lazily
 * by src/server/cluster.ts); `dispatch --on` places sessions through it (decision 128).
 *
 * - `openPool` / `parseStoreUrl`: the store URL checked, and an unreachable server named.
 * - `migrate`: the cluster's tables, applied once under an advisory lock.
 * - `PgWorkspaceLog`: the workspace events with one global seq; followers never see a gap or a
 *   duplicate, and catch up after a dropped connection.
 * - `WorkerRegistry`: machines, their capacity and heartbeats (on the database's clock); stale after
 *   missed beats; each registration a new incarnation, whose heartbeat fences what it lost.
 * - `joinCluster`: a supervisor's membership — registered, heartbeating with its load, deregistered on close.
 * - `Placement` / `Claimer`: dispatches as pg-boss jobs claimed by workers with free slots;
 *   `reap` fails the sessions of a stale worker once, for respawn.
 * - `SessionMirror`: every machine sees every session — each publishes its sessions' latest views
 *   (coalesced), their events (capped) and tombstones to the log, and keeps the others' (decision 126).
 * - `ClusterDispatches` / `localCloneOf`: a placed dispatch's request and repository (its remote
 *   URL and base), the clone the claiming machine runs it in, and its answer to the dispatcher.
 * - `reapEvery` / `Respawns`: every supervisor reaps stale workers' placements on a timer; a
 *   reaped placement's stored request is taken once to place it again from its pushed branch (decision 129).
 * - `PgSettings`: the workspace's allow rules and budgets, one set for every machine (decision 130).
 * - `SharedSpend`: each machine's spend per minute, so a shared day or window budget counts them all
 * (decision 131).
 * - `WorkspaceRelay`: each machine's workspace events relayed to the log in order (retried, from a
 *   cursor kept beside them), and the other machines' stored in its bus for its streams (decision 135).
 * - `PgTasks`: the tasks of repositories with a remote, one numbering for every machine (decision 147).
 * - `RemoteCommands`: a reply, approval or stop for a session on another machine, run there once,
 *   answered or refused, withdrawn if nobody takes it in time.
 */
export {
  isConnectionLoss,
  openClient,
  openPool,
  parseStoreUrl,
  unreachable,
  type PoolOptions,
  type StoreTarget,
} from './connect.js';
export {
  DispatchQueuedError,
  MachineNotFoundError,
  RemoteCommandFailedError,
  RemoteCommandTimeoutError,
  StoreUnreachableError,
  StoreUrlError,
  WorkerNameError,
  WorkerNotRegisteredError,
} from './errors.js';
export { Listener, type Backoff } from './listener.js';
export { LOCKS, migrate, MIGRATIONS, type Migration } from './schema.js';
export { BUS_CHANNEL, PgWorkspaceLog, type Follow, type LogFilter, type LoggedEvent } from './bus.js';
export { IN_CURSOR, OUT_CURSOR, WorkspaceRelay, type RelayBus, type RelayOptions } from './relay.js';
export {
  checkWorkerName,
  WorkerRegistry,
  type Heartbeat,
  type WorkerRow,
  type WorkerTiming,
} from './workers.js';
export {
  Claimer,
  DISPATCH_CHANNEL,
  DISPATCH_QUEUE,
  Placement,
  queueFor,
  type ClaimerOptions,
  type Dispatched,
  type Reaped,
  type Target,
} from './placement.js';
export { joinCluster, type ClusterMember, type Holdings, type JoinOptions } from './runtime.js';
export {
  CLUSTER_EVENTS,
  ClusterEventPublished,
  ClusterWorkspaceRelayed,
  ClusterSessionPublished,
  ClusterSessionRemoved,
  MirroredEvent,
  SessionView,
} from './events.js';
export { capEvent, CUT_MARK } from './cut.js';
export { EVENT_CAP_BYTES, type RetryTiming } from './mirror-publish.js';
export {
  MIRROR_EVENTS_PAGE_MAX,
  SessionMirror,
  type MirrorChange,
  type RemoteEvent,
  type RemoteSession,
  type SessionMirrorOptions,
} from './mirror.js';
export {
  COMMAND_CHANNEL,
  COMMAND_CHANNELS,
  COMMAND_DONE_CHANNEL,
  RemoteCommand,
  RemoteCommands,
  type CommandHandler,
  type CommandTiming,
  type Serving,
} from './commands.js';
export {
  ClusterDispatches,
  DISPATCH_ANSWER_CHANNEL,
  type DispatchOutcome,
  type PlacedDispatch,
} from './dispatches.js';
export { fetchBase, localCloneOf, repositoryIdentity, type RepositoryIdentity } from './clones.js';
export {
  fetchBranch,
  fetchSnapshot,
  pushedWork,
  reapEvery,
  remoteHasBranch,
  RESPAWN_SNAPSHOT,
  Respawns,
  type PushedWork,
  type Takeover,
} from './respawn.js';
export { PgSettings, SETTINGS_CHANNEL } from './settings.js';
export { remoteKey } from './clones.js';
export { RoutineFireClaims } from './routine-fires.js';
export { SharedSpend, SPEND_CHANNEL, type SharedSpendOptions, type SpendTiming } from './spend.js';
export { KEEP_MS, pruneSharedLog } from './retention.js';
export { PgTasks, TASK_CHANNEL } from './tasks.js';
export type { TaskLedger } from '../tasks/index.js';
// The other machines as this machine's domains see them, and the supervisor's glue that serves them
// (decision 210, "Other machines behind one port"); loaded only when the workspace is shared.
export { joinPeers, type Peers } from './peers/port.js';
export { RepoKeys } from './peers/repo-keys.js';
export { PLACEMENT_CHANNELS, startPlacement, type Placed, type Placer } from './peers/placement.js';
export { SESSION_CHANNELS, shareSessions, type RemoteChange, type RemoteSessions } from './peers/sessions.js';
export { ElsewhereSnapshots, type ElsewhereMember, type ElsewhereSource } from './peers/snapshots.js';
export { SharedTasks, type SharedTasksOptions } from './peers/tasks.js';
export {
  peerSessions,
  type PeerCommand,
  type PeerRead,
  type PeerSession,
  type PeerSessionChange,
  type PeerSessions,
} from './peers/peer-sessions.js';
