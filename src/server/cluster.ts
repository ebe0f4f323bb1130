/**
 * The supervisor's side of a shared workspace (decision 127, "A shared workspace in the supervisor"):
 * with a store configured it joins the cluster — loading the PostgreSQL driver only then — and answers
 * `GET /api/workers` from the store; without one it answers from this machine's own figures and nothing
 * else changes.
 */
import type { WorkersView } from '../api/workers.js';
import type {
  ClusterMember,
  Listener,
  RoutineFireClaims,
  SharedSpend,
  SharedSpendOptions,
  TaskLedger,
  Placer,
  RemoteSessions,
  RepoKeys,
  SharedTasks,
  SharedTasksOptions,
} from '../cluster/index.js';
import type { SessionManager } from '../sessions/index.js';
import type { SettingsStore } from '../settings/index.js';
import type { ResolvedConfig } from '../shared/config.js';
import { errorMessage, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';

const log = createLogger('cluster');

/** How long a stopping supervisor waits to deregister before it exits regardless. */
const LEAVE_TIMEOUT_MS = 3_000;
/** How long a dispatch placed on another machine waits for it to start the session. */
const PLACE_TIMEOUT_MS = 30_000;

export interface Membership {
  /** This machine's name (its own, alone). */
  readonly machine: string;
  view(): Promise<WorkersView>;
  /** Dispatches placed on other machines; undefined when this machine is alone. */
  placer(): Placer | undefined;
  /** The other machines' sessions, and commands for them; undefined when this machine is alone. */
  remote(): RemoteSessions | undefined;
  /** The workspace's allow rules and budgets on the shared store; undefined when this machine is alone (its own SQLite holds them). */
  settings(): SettingsStore | undefined;
  /**
   * What the other machines spent, for the budgets they share, with this machine's spends
   * published (not started: `start` once the budgets are read); undefined when alone.
   */
  spend(options: SpendOptions): SharedSpend | undefined;
  /**
   * The tasks of repositories with a remote, shared through the store (decision 147; not started:
   * `start` before the sessions are scheduled); undefined when alone.
   */
  tasks(options: TasksOptions): SharedTasks | undefined;
  /** True for a session this machine no longer holds: another machine took its placement over. */
  lost(sessionId: string): boolean;
  /**
   * Claims a fire of the routine `routine` defined in the repository at `root` (decision 145):
   * undefined when this machine runs it, else the machine that does. Alone, always undefined.
   */
  routineFire(root: string, routine: string, fireKey: string): Promise<string | undefined>;
  /** Deregisters from the store (bounded by a timeout); nothing to do when alone. */
  leave(): Promise<void>;
}

export interface MembershipOptions {
  config: Pick<ResolvedConfig, 'store' | 'machine'> & Partial<Pick<ResolvedConfig, 'storeRetentionDays'>>;
  env: NodeJS.ProcessEnv;
  capacity: number;
  running: () => number;
  version: string;
  /** This machine's sessions, shared with the others (not given: membership only). */
  manager?: SessionManager;
  /** BATON_HOME, where clones of repositories placed here go; with `manager`, sessions are placed here too. */
  home?: string;
}

/** Joins the configured store's workspace, or stays alone; throws when the store cannot be joined. */
export async function joinWorkspace(options: MembershipOptions): Promise<Membership> {
  const { store, machine } = options.config;
  if (store === undefined) return alone(options);
  // Every setting checked before anything joins: a bad one leaves no worker registered.
  const heartbeatMs = heartbeatMsOf(options.env);
  const commandTimeout = commandTimeoutOf(options.env);
  const placeTimeoutMs = placeTimeoutOf(options.env);
  const { joinCluster } = await import('../cluster/index.js');
  const member = await joinCluster({
    url: store.url,
    source: store.source,
    machine: machine.name,
    capacity: options.capacity,
    running: options.running,
    version: options.version,
    ...(heartbeatMs === undefined ? {} : { timing: { heartbeatMs } }),
    onBeatError: (error) =>
      log.warn('heartbeat failed; the next one tries again', { error: errorMessage(error) }),
    onRejoin: (incarnation) =>
      log.warn('the store no longer knew this worker; registered again', {
        machine: machine.name,
        incarnation,
      }),
  });
  // One LISTEN connection for everything this machine waits on (settings, spend, sessions, commands, placement).
  const {
    Listener,
    SETTINGS_CHANNEL,
    SPEND_CHANNEL,
    TASK_CHANNEL,
    PgTasks,
    SharedTasks,
    remoteKey,
    SESSION_CHANNELS,
    PLACEMENT_CHANNELS,
  } = await import('../cluster/index.js');
  const listener = new Listener(store.url, [
    SETTINGS_CHANNEL,
    SPEND_CHANNEL,
    TASK_CHANNEL,
    ...SESSION_CHANNELS,
    ...PLACEMENT_CHANNELS,
  ]);
  try {
    await listener.start();
  } catch (error) {
    await listener.close().catch(() => {});
    await member.close().catch(() => {});
    throw error;
  }
  const settings = await shareSettings(member, listener);
  log.info('joined the shared workspace', {
    machine: machine.name,
    store: member.store,
    incarnation: member.incarnation(),
    heartbeatMs: member.timing.heartbeatMs,
  });
  let sessions: RemoteSessions | undefined;
  let placer: Placer | undefined;
  const manager = options.manager;
  if (manager !== undefined) {
    const { shareSessions } = await import('../cluster/index.js');
    const keepDays = options.config.storeRetentionDays;
    sessions = await shareSessions({
      member,
      url: store.url,
      listener,
      manager,
      ...commandTimeout,
      ...(keepDays === undefined ? {} : { keepMs: keepDays * 24 * 60 * 60_000 }),
    }).catch(async (error: unknown) => {
      await settings.close();
      await listener.close().catch(() => {});
      await member.close().catch(() => {});
      throw error;
    });
  }
  if (manager !== undefined && options.home !== undefined) {
    const { startPlacement } = await import('../cluster/index.js');
    const home = options.home;
    placer = await startPlacement({
      member,
      url: store.url,
      listener,
      manager,
      home,
      timeoutMs: placeTimeoutMs,
    }).catch(async (error: unknown) => {
      await sessions?.close().catch(() => {});
      await settings.close();
      await listener.close().catch(() => {});
      await member.close().catch(() => {});
      throw error;
    });
  }
  const ledger = new PgTasks(member.pool, listener, member.machine, member.store);
  return clustered(member, listener, settings, sessions, placer, { ledger, keyOf: remoteKey, SharedTasks });
}

export type SpendOptions = Pick<SharedSpendOptions, 'mine' | 'horizonMs'>;
export type TasksOptions = Pick<SharedTasksOptions, 'tasks' | 'sessions' | 'onApplied'>;

interface SharedSettings {
  store: SettingsStore;
  spend(options: SpendOptions): SharedSpend;
  close(): Promise<void>;
}

/** The workspace's settings on the store; other machines' changes heard on the process's listener. */
async function shareSettings(member: ClusterMember, listener: Listener): Promise<SharedSettings> {
  const { PgSettings, SharedSpend } = await import('../cluster/index.js');
  const store = new PgSettings(member.pool, listener, member.machine, member.store);
  let spend: SharedSpend | undefined;
  return {
    store,
    spend: (options) =>
      (spend ??= new SharedSpend({
        ...options,
        pool: member.pool,
        listener,
        machine: member.machine,
        logger: log,
      })),
    close: async () => {
      spend?.close();
      store.close();
    },
  };
}

/** A fire claimed in the store under the repository's identity; a repository without a remote, or a store that fails, runs it here. */
function routineFires(member: ClusterMember): Membership['routineFire'] {
  let keys: RepoKeys | undefined;
  let claims: RoutineFireClaims | undefined;
  return async (root, routine, fireKey) => {
    keys ??= new (await import('../cluster/index.js')).RepoKeys();
    const repo = await keys.of(root);
    if (repo === null) return undefined;
    claims ??= new (await import('../cluster/index.js')).RoutineFireClaims(member.pool, member.machine);
    const holder = await claims.claim(repo, routine, fireKey).catch((error: unknown) => {
      // Better twice than never: a routine whose fire cannot be claimed runs here.
      log.warn('could not claim a routine fire; running it here', {
        routine,
        fireKey,
        error: errorMessage(error),
      });
      return member.machine;
    });
    return holder === member.machine ? undefined : holder;
  };
}

function alone(options: MembershipOptions): Membership {
  return {
    machine: options.config.machine.name,
    placer: () => undefined,
    view: async () => {
      const running = options.running();
      const row = {
        name: options.config.machine.name,
        capacity: options.capacity,
        running,
        free: Math.max(0, options.capacity - running),
        heartbeatAt: new Date().toISOString(),
        ageSeconds: 0,
        stale: false,
        version: options.version,
        you: true,
      };
      return { clustered: false, machine: row.name, store: null, workers: [row] };
    },
    remote: () => undefined,
    settings: () => undefined,
    spend: () => undefined,
    tasks: () => undefined,
    lost: () => false,
    routineFire: async () => undefined,
    leave: async () => {},
  };
}

function clustered(
  member: ClusterMember,
  listener: Listener,
  settings: SharedSettings,
  sessions: RemoteSessions | undefined,
  placer: Placer | undefined,
  tasksLedger: {
    ledger: TaskLedger;
    keyOf: (root: string) => Promise<string | undefined>;
    /** Loaded with the rest of src/cluster, only when the workspace is shared. */
    SharedTasks: typeof SharedTasks;
  },
): Membership {
  let tasks: SharedTasks | undefined;
  return {
    tasks: (options) =>
      (tasks ??= new tasksLedger.SharedTasks({
        ...options,
        ledger: tasksLedger.ledger,
        keyOf: tasksLedger.keyOf,
        machine: member.machine,
        logger: log,
      })),
    machine: member.machine,
    settings: () => settings.store,
    spend: (options) => settings.spend(options),
    placer: () => placer,
    remote: () => sessions,
    lost: (sessionId) => placer?.lost(sessionId) ?? false,
    routineFire: routineFires(member),
    view: async () => {
      const rows = await member.workers();
      return {
        clustered: true,
        machine: member.machine,
        store: member.store,
        workers: rows.map((w) => ({
          name: w.name,
          capacity: w.capacity,
          running: w.running,
          free: Math.max(0, w.capacity - w.running),
          heartbeatAt: w.heartbeatAt,
          ageSeconds: w.ageSeconds,
          stale: w.stale,
          version: w.version,
          you: w.name === member.machine,
        })),
      };
    },
    leave: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, LEAVE_TIMEOUT_MS)));
      const closing = (placer?.close() ?? Promise.resolve())
        .catch(() => {})
        .then(() => sessions?.close())
        .catch(() => {})
        .then(() => tasks?.close())
        .then(() => settings.close())
        .then(() => listener.close())
        .catch(() => {})
        .then(() => member.close())
        .catch((error: unknown) =>
          log.warn('could not deregister; this worker will go stale instead', { error: errorMessage(error) }),
        );
      await Promise.race([closing, timeout]);
      clearTimeout(timer);
    },
  };
}

/** `BATON_CLUSTER_HEARTBEAT_MS` (tests, tuning): at least 50; unset, the registry's 5 s. */
export function heartbeatMsOf(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.BATON_CLUSTER_HEARTBEAT_MS;
  if (text === undefined || text === '') return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 50)
    throw new InvalidInputError(
      `BATON_CLUSTER_HEARTBEAT_MS must be a whole number of milliseconds, 50 or more; got "${text}"`,
      { key: 'BATON_CLUSTER_HEARTBEAT_MS', value: text },
    );
  return ms;
}

/** `BATON_CLUSTER_COMMAND_TIMEOUT_MS` (tests): how long a command for another machine waits; at least 100. */
function commandTimeoutOf(env: NodeJS.ProcessEnv): { commandTimeoutMs?: number } {
  const text = env.BATON_CLUSTER_COMMAND_TIMEOUT_MS;
  if (text === undefined || text === '') return {};
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 100)
    throw new InvalidInputError(
      `BATON_CLUSTER_COMMAND_TIMEOUT_MS must be a whole number of milliseconds, 100 or more; got "${text}"`,
      { key: 'BATON_CLUSTER_COMMAND_TIMEOUT_MS', value: text },
    );
  return { commandTimeoutMs: ms };
}

/** `BATON_CLUSTER_PLACE_TIMEOUT_MS` (tests): how long a dispatch placed elsewhere waits to start; at least 100. */
export function placeTimeoutOf(env: NodeJS.ProcessEnv): number {
  const text = env.BATON_CLUSTER_PLACE_TIMEOUT_MS;
  if (text === undefined || text === '') return PLACE_TIMEOUT_MS;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 100)
    throw new InvalidInputError(
      `BATON_CLUSTER_PLACE_TIMEOUT_MS must be a whole number of milliseconds, 100 or more; got "${text}"`,
      { key: 'BATON_CLUSTER_PLACE_TIMEOUT_MS', value: text },
    );
  return ms;
}
