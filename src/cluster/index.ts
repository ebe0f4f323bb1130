/**
 * The cluster layer (issue 20): one workspace served by several machines through a shared
 * PostgreSQL. The supervisor joins it when a store is configured (`joinCluster`, loaded lazily
 * by src/server/cluster.ts); sessions are not placed through it yet — that needs the store to
 * become asynchronous (decision 120).
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
 */
export { openClient, openPool, parseStoreUrl, type PoolOptions, type StoreTarget } from './connect.js';
export { StoreUnreachableError, StoreUrlError, WorkerNameError, WorkerNotRegisteredError } from './errors.js';
export { Listener, type Backoff } from './listener.js';
export { LOCKS, migrate, MIGRATIONS, type Migration } from './schema.js';
export { BUS_CHANNEL, PgWorkspaceLog, type Follow, type LoggedEvent } from './bus.js';
export { checkWorkerName, WorkerRegistry, type Heartbeat, type WorkerRow, type WorkerTiming } from './workers.js';
export { Claimer, DISPATCH_CHANNEL, DISPATCH_QUEUE, Placement, queueFor, type ClaimerOptions, type Dispatched, type Reaped, type Target } from './placement.js';
export { joinCluster, type ClusterMember, type JoinOptions } from './runtime.js';
