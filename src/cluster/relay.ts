/**
 * The workspace bus across machines (decision 135): each machine relays its own workspace events to
 * the shared log, tagged with its name, and stores the other machines' relayed events in its own
 * bus, where its streams serve them (decision 135).
 *
 * - **Out, from the local store, not from memory.** A local publish only wakes the relay; the
 *   relay reads this machine's events after its cursor (kept in SQLite beside them) and appends
 *   them in seq order (a batch per transaction), moving the cursor after each. A store outage therefore never
 *   touches the publish, and what was published meanwhile (or while the supervisor was down)
 *   goes out once the store is back. A failing store is tried again for ever (with backoff); an
 *   event whose data the store refuses is tried a few times, then skipped with a warning, so one
 *   bad event never stops the relay.
 * - **In, by the log's seq.** The other machines' relayed events are followed from the newest one
 *   stored here (or, the first time, from the log's head), each stored once (its log seq is unique).
 */
import type { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import { Coalesced } from '../shared/coalesce.js';
import { errorMessage, InvalidInputError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import type { Follow, LoggedEvent, PgWorkspaceLog } from './bus.js';
import { ClusterWorkspaceRelayed } from './events.js';
import type { RetryTiming } from './mirror-publish.js';

/** The bus the relay reads from and writes into (src/bus's `WorkspaceBus`). */
export interface RelayBus {
  list(after: number, limit: number): WorkspaceEvent[];
  lastSeq(): number;
  subscribe(listener: (event: WorkspaceEvent) => void): () => void;
  ingest(event: Omit<RelayedWorkspaceEvent, 'seq'>): RelayedWorkspaceEvent | undefined;
  lastIngested(): number;
  cursor(name: string): number | undefined;
  setCursor(name: string, seq: number): void;
}

export interface RelayOptions {
  log: PgWorkspaceLog;
  machine: string;
  bus: RelayBus;
  retry?: RetryTiming;
  /** How many times an event the store refuses (not a lost connection) is tried before it is skipped. */
  refusedTries?: number;
  logger?: Pick<Logger, 'warn'>;
}

/** How far this machine's own events went out (its local seq). */
export const OUT_CURSOR = 'relay.out';
/** Where this machine began reading the others' (the log's head when it first joined). */
export const IN_CURSOR = 'relay.in';
/** Events sent in one transaction: a backlog goes out at the log's batch rate, not one round trip each. */
const BATCH = 100;
/**
 * This machine's news of what came from the others, which they know already: a shared task's
 * change applied here (decision 147).
 */
const KEPT_HERE = new Set<string>(['task.synced']);

export class WorkspaceRelay {
  private out = 0;
  /** One drain at a time; an event published during it asks for one more. */
  private readonly draining = new Coalesced(() =>
    this.drain().catch((error: unknown) =>
      this.options.logger?.warn('the workspace relay stopped; the next event starts it again', {
        error: errorMessage(error),
      }),
    ),
  );
  private closed = false;
  private readonly waits = new Set<() => void>();
  private unsubscribe: () => void = () => {};
  private following: Follow | undefined;

  constructor(private readonly options: RelayOptions) {}

  get machine(): string {
    return this.options.machine;
  }

  /** Starts relaying this machine's events and storing the others'; resolves once both are under way. */
  async start(): Promise<void> {
    const { bus, log, machine } = this.options;
    this.out = await this.outCursor();
    this.unsubscribe = bus.subscribe(() => this.wake());
    this.wake();
    let from = bus.lastIngested();
    if (from === 0) {
      from = bus.cursor(IN_CURSOR) ?? (await log.head());
      bus.setCursor(IN_CURSOR, from);
    }
    this.following = await log.follow(from, (event) => this.store(event), {
      type: ClusterWorkspaceRelayed.type,
      notMachine: machine,
    });
  }

  /** Resolves once every event published here so far is in the shared log (or skipped). */
  async idle(): Promise<void> {
    while (!this.closed && (this.draining.busy() || this.options.bus.list(this.out, 1).length > 0)) {
      await this.draining.request();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    for (const stop of this.waits) stop();
    await this.following?.close();
    await this.draining.idle();
  }

  /**
   * Where the relay goes on from: its cursor, or this machine's newest event the first time (a
   * machine joining relays what happens from then on, not its history). A crash between an
   * append and the cursor's write left the log one ahead: the log's word is taken, unless it is
   * beyond this store's events (the store was started over, and its seqs with it).
   */
  private async outCursor(): Promise<number> {
    const { bus, log, machine } = this.options;
    const stored = bus.cursor(OUT_CURSOR);
    if (stored === undefined) {
      const now = bus.lastSeq();
      bus.setCursor(OUT_CURSOR, now);
      return now;
    }
    const { rows } = await log.pool.query<{ seq: string | null }>(
      `SELECT max((data->>'localSeq')::bigint) AS seq FROM workspace_events WHERE type = $1 AND data->>'machine' = $2`,
      [ClusterWorkspaceRelayed.type, machine],
    );
    const logged = Number(rows[0]?.seq ?? 0);
    if (logged > stored && logged <= bus.lastSeq()) {
      bus.setCursor(OUT_CURSOR, logged);
      return logged;
    }
    return stored;
  }

  private wake(): void {
    if (this.closed) return;
    void this.draining.request();
  }

  /**
   * Sends what was published here after the cursor, a batch at a time (one transaction each), in
   * order. A batch the store refuses is sent again one event at a time, to find the one to skip.
   */
  private async drain(): Promise<void> {
    const { bus } = this.options;
    for (
      let listed = bus.list(this.out, BATCH);
      listed.length > 0 && !this.closed;
      listed = bus.list(this.out, BATCH)
    ) {
      const batch = listed.filter((event) => !KEPT_HERE.has(event.type));
      if (batch.length === 0) {
        this.moveTo(listed.at(-1)!.seq);
        continue;
      }
      if (!(await this.attempt(batch, 1))) {
        for (const event of batch) {
          if (this.closed) return;
          await this.attempt([event], this.options.refusedTries ?? 5);
          this.moveTo(event.seq);
        }
        continue;
      }
      this.moveTo(listed.at(-1)!.seq);
    }
  }

  private moveTo(seq: number): void {
    this.out = seq;
    this.options.bus.setCursor(OUT_CURSOR, seq);
  }

  /**
   * Appends `events`, tried again with backoff for as long as the store fails (they wait in
   * SQLite, not here); false once the store has refused their data `refusedTries` times.
   */
  private async attempt(events: WorkspaceEvent[], refusedTries: number): Promise<boolean> {
    const { log, machine, retry = { firstMs: 500, maxMs: 30_000 } } = this.options;
    const entries = events.map((event) => ({
      type: ClusterWorkspaceRelayed.type,
      data: { machine, localSeq: event.seq, event: { type: event.type, ts: event.ts, data: event.data } },
    }));
    const what = { seq: events[0]!.seq, events: events.length, type: events[0]!.type };
    for (let failures = 0, refused = 0; ; failures++) {
      try {
        await log.appendMany(entries);
        return true;
      } catch (error) {
        if (this.closed) throw error;
        if (refusedForItself(error) && ++refused >= refusedTries) {
          if (events.length === 1)
            this.options.logger?.warn('a workspace event was refused by the shared store; skipped', {
              ...what,
              error: errorMessage(error),
            });
          return false;
        }
        this.options.logger?.warn('workspace events did not reach the shared store; trying again', {
          ...what,
          error: errorMessage(error),
          tries: failures + 1,
        });
        await this.pause(Math.min(retry.maxMs, retry.firstMs * 2 ** failures));
      }
    }
  }

  private store(event: LoggedEvent): void {
    const parsed = ClusterWorkspaceRelayed.schema.safeParse(event.data);
    if (!parsed.success) {
      this.options.logger?.warn('a relayed workspace event could not be read; skipped', { seq: event.seq });
      return;
    }
    const { machine, event: relayed } = parsed.data;
    this.options.bus.ingest({
      ts: relayed.ts,
      type: relayed.type,
      data: relayed.data,
      machine,
      logSeq: event.seq,
    });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const stop = (): void => {
        clearTimeout(timer);
        this.waits.delete(stop);
        resolve();
      };
      const timer = setTimeout(stop, ms);
      this.waits.add(stop);
    });
  }
}

/**
 * An error that is the event's own (its data), which no retry mends: our validation, or a data
 * exception, integrity or size error (SQLSTATE classes 22, 23, 54: jsonb refusing a `\u0000`).
 * Anything else — a lost connection, a database not letting us in, too many connections, a
 * table being migrated — is the store's, and the events wait for it.
 */
function refusedForItself(error: unknown): boolean {
  if (error instanceof InvalidInputError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}
