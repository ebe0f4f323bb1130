/**
 * A supervisor's membership of a shared workspace: the pool opened and the schema migrated, this
 * machine registered as a worker, a heartbeat on a timer carrying how many sessions it runs, and
 * on close the worker deregistered. Only this runs on the timer; everything else here is a call.
 */
import type pg from 'pg';
import { parseStoreUrl, redact } from '../shared/cluster-settings.js';
import { isConnectionLoss, openPool, unreachable } from './connect.js';
import { StoreUnreachableError, WorkerNotRegisteredError } from './errors.js';
import { migrate } from './schema.js';
import { WorkerRegistry, type WorkerRow, type WorkerTiming } from './workers.js';

export interface JoinOptions {
  /** The store's URL, checked before anything dials. */
  url: string;
  /** Where the URL came from (`--store`, BATON_STORE, config.json's "store"), named in errors. */
  source?: string;
  /** This machine's worker name. */
  machine: string;
  /** Session slots this machine offers (the supervisor's maxConcurrent). */
  capacity: number;
  /** Sessions mid-turn on this machine now, reported in every heartbeat. */
  running: () => number;
  version: string;
  timing?: Partial<WorkerTiming>;
  /** Calls `beat` every `ms` until the answer is called; a timer by default, driven by hand in tests. */
  every?: (ms: number, beat: () => void) => () => void;
  /** A heartbeat that failed (the store unreachable for a while); the next one tries again. */
  onBeatError?: (error: unknown) => void;
  /** The worker was registered again, as a new incarnation, after the store forgot this one. */
  onRejoin?: (incarnation: number) => void;
}

/**
 * What a machine holds in the store (its placements), read at every heartbeat: the heartbeat
 * sends them and answers with those no longer this incarnation's (the fence, decision 122).
 */
export interface Holdings {
  /** The placements whose sessions this machine runs now. */
  held(): string[];
  /** Registered again (the store forgot this incarnation): takes back what is still placed here, before the fence is read. */
  rejoined(incarnation: number): Promise<void>;
  /** Placements no longer this machine's (reaped, maybe respawned elsewhere): their sessions must stop here. */
  fenced(placementIds: string[]): void;
}

export interface ClusterMember {
  readonly machine: string;
  /** The store's connections, shared with the session mirror and the commands. */
  readonly pool: pg.Pool;
  /** The store's URL with its password removed. */
  readonly store: string;
  readonly timing: WorkerTiming;
  incarnation(): number;
  /** Heartbeats now (the timer does it every `timing.heartbeatMs`); resolves when stored. */
  beat(): Promise<void>;
  /** Every worker serving the workspace, by name, with staleness judged on the database's clock. */
  workers(): Promise<WorkerRow[]>;
  /** From now on each heartbeat sends `holdings.held()` and hands its fence to `holdings.fenced`. */
  hold(holdings: Holdings): void;
  /** Stops the heartbeat and deregisters this worker; safe to call twice. */
  close(): Promise<void>;
}

/** Joins the workspace on the store at `options.url`; throws (leaving nothing open) when it cannot. */
export async function joinCluster(options: JoinOptions): Promise<ClusterMember> {
  const pool = await openNamed(options);
  try {
    await migrate(pool);
    const registry = new WorkerRegistry(pool, options.timing);
    const registered = await registry.register({
      name: options.machine,
      capacity: options.capacity,
      version: options.version,
    });
    const member = new Member(pool, registry, options, registered.incarnation);
    await member.beat();
    member.start();
    return member;
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}

async function openNamed(options: JoinOptions): Promise<pg.Pool> {
  try {
    // The heartbeat, a `baton workers` read, the session mirror's appends and the commands' claims never wait long on each other.
    return await openPool(
      options.url,
      { max: 6, applicationName: `baton ${options.machine}` },
      options.source,
    );
  } catch (error) {
    if (error instanceof StoreUnreachableError && options.source !== undefined)
      throw new StoreUnreachableError(error.target, error.reason, options.source);
    throw error;
  }
}

class Member implements ClusterMember {
  readonly machine: string;
  readonly store: string;
  private stop: (() => void) | undefined;
  private beating: Promise<void> | undefined;
  private closed: Promise<void> | undefined;
  private holdings: Holdings | undefined;

  constructor(
    readonly pool: pg.Pool,
    private readonly registry: WorkerRegistry,
    private readonly options: JoinOptions,
    private current: number,
  ) {
    this.machine = options.machine;
    this.store = redact(options.url);
  }

  get timing(): WorkerTiming {
    return this.registry.timing;
  }

  incarnation(): number {
    return this.current;
  }

  start(): void {
    const every = this.options.every ?? interval;
    this.stop = every(this.timing.heartbeatMs, () => {
      this.beat().catch((error: unknown) => this.options.onBeatError?.(error));
    });
  }

  /** One heartbeat at a time: a slow store makes the timer's next beat join the one under way. */
  beat(): Promise<void> {
    this.beating ??= this.heartbeat().finally(() => (this.beating = undefined));
    return this.beating;
  }

  hold(holdings: Holdings): void {
    this.holdings = holdings;
  }

  private async heartbeat(): Promise<void> {
    if (this.closed !== undefined) return;
    const running = this.options.running();
    const beat = () => {
      const sessions = this.holdings?.held() ?? [];
      return this.registry.heartbeat({
        name: this.machine,
        incarnation: this.current,
        sessions,
        running: Math.max(running, sessions.length),
      });
    };
    let fenced: string[];
    try {
      ({ fenced } = await beat());
    } catch (error) {
      if (!(error instanceof WorkerNotRegisteredError)) throw error;
      // Removed (or registered again by a machine using the same name): serve as a new incarnation.
      const again = await this.registry.register({
        name: this.machine,
        capacity: this.options.capacity,
        version: this.options.version,
      });
      this.current = again.incarnation;
      this.options.onRejoin?.(again.incarnation);
      await this.holdings?.rejoined(again.incarnation);
      ({ fenced } = await beat());
    }
    if (fenced.length > 0) this.holdings?.fenced(fenced);
  }

  /** A store gone away is `store_unreachable`, naming it, rather than the driver's bare error. */
  async workers(): Promise<WorkerRow[]> {
    try {
      return await this.registry.list();
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      throw unreachable(parseStoreUrl(this.options.url).target, error, this.options.source);
    }
  }

  close(): Promise<void> {
    this.closed ??= this.leave();
    return this.closed;
  }

  private async leave(): Promise<void> {
    this.stop?.();
    await this.beating?.catch(() => {});
    try {
      // Only this incarnation: a supervisor started meanwhile under the name keeps its row.
      await this.registry.deregister(this.machine, this.current);
    } finally {
      await this.pool.end();
    }
  }
}

function interval(ms: number, beat: () => void): () => void {
  const timer = setInterval(beat, ms);
  // The heartbeat alone must not keep a process alive that has nothing else to do.
  timer.unref();
  return () => clearInterval(timer);
}
