/**
 * Ingestion: reads new lines of a session's `events.jsonl` into SQLite (idempotent by the seq
 * each line claims: a repeat is dropped, a gap waited on, nothing renumbered — sequence.ts) and
 * announces them; and the supervisor's own writes to a log while no host runs (queued, a crash
 * it noticed, `done` on an ended session), whose state changes come from the state machine.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import type { BatonEvent, EventBody, SessionState } from '../events/index.js';
import { SessionStateChanged } from '../events/workspace.js';
import type { WorkspaceBus } from '../bus/index.js';
import { SearchIndex } from '../context/index.js';
import { errorMessage, isDiskFull } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import type { Db } from '../store/db.js';
import { EventStore } from '../store/events.js';
import { projectionOf, type SessionStore, type SessionWithProject } from '../store/sessions.js';
import { EventLogWriter, readLog, type LogReadResult } from './event-log.js';
import { followSequence, type Followed } from './sequence.js';
import { StateMachine, type Trigger } from './state.js';

const log = createLogger('ingest');

/** A long backlog (a host that ran while the supervisor was down) is read in batches of this size. */
const INGEST_BATCH_BYTES = 4 * 1024 * 1024;
/** How soon ingestion is tried again while the disk is full. */
const DISK_FULL_RETRY_MS = 1000;

/** The stored text of each event taken: its line as written when it may be (`LogReadResult.texts`). */
function textsOf(read: LogReadResult, taken: readonly BatonEvent[]): (string | undefined)[] {
  const texts: (string | undefined)[] = [];
  let at = 0;
  // `taken` is a subsequence of what was read, in order; an event not found is written again.
  for (const event of taken) {
    while (at < read.events.length && read.events[at] !== event) at++;
    texts.push(read.texts[at]);
    at++;
  }
  return texts;
}

/** What a hold keeps to say: a saying, or a batch of one session's stored events. */
type Held = (() => void) | { sessionId: string; events: readonly BatonEvent[] };

function listenerFailed(error: unknown): void {
  log.error('a listener failed on an ingested event', { error: errorMessage(error) });
}

export interface IngestEvents {
  /** A new event of a session, once stored. */
  event: [sessionId: string, event: BatonEvent];
  /** Something about a session changed (state, activity, usage, pin, host). */
  session: [sessionId: string];
  /** A session's state changed in this batch of ingestion. */
  state: [sessionId: string, before: SessionState, after: SessionState | undefined];
}

export class Ingestor extends EventEmitter<IngestEvents> {
  readonly events: EventStore;
  /** Full-text search over every session's events, fed just after the transaction that stores them (decision 312). */
  readonly search: SearchIndex;

  constructor(
    private readonly home: string,
    db: Db,
    private readonly store: SessionStore,
    private readonly bus: WorkspaceBus,
    search?: SearchIndex,
  ) {
    super();
    this.setMaxListeners(0);
    this.search = search ?? new SearchIndex(db);
    this.events = new EventStore(
      db,
      (id, projection) => store.applyProjection(id, projection),
      (row, event) => {
        if (event.type !== 'state.changed') return;
        // The row read at the batch's start names the project: not read again for each event.
        const session = this.ingesting?.id === row.id ? this.ingesting : store.get(row.id);
        bus.publish(SessionStateChanged, {
          sessionId: row.id,
          name: row.name,
          project: session?.project_name ?? '',
          ...(event.from === undefined ? {} : { from: event.from }),
          to: event.to,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        });
      },
    );
  }

  /** The session whose batch is being stored, as read before it. */
  private ingesting: SessionWithProject | undefined;

  /** Reads new lines of a session's log into the store and announces them; returns how many were new. */
  ingest(sessionId: string): number {
    const first = this.store.get(sessionId);
    if (first === undefined) return 0;
    let inserted = 0;
    let after: SessionWithProject | undefined = first;
    for (let session: SessionWithProject = first; ;) {
      const path = sessionPaths(this.home, sessionId).events;
      let read = readLog(path, session.ingested_offset, INGEST_BATCH_BYTES);
      let followed = followSequence(read.events, session.last_seq);
      // A gap whose way on may lie past this batch: read on to the end before waiting on it.
      if (followed.waitAt !== undefined && read.offset < read.size) {
        read = readLog(path, session.ingested_offset);
        followed = followSequence(read.events, session.last_seq);
      }
      const { malformed, torn } = read;
      const events = followed.taken;
      // Waiting on a gap: the offset stays at its line, which is read again with what comes next.
      const offset = followed.waitAt === undefined ? read.offset : read.starts[followed.waitAt]!;
      this.reportSequence(sessionId, read.starts, read.events, followed);
      for (const bad of malformed) log.warn('malformed event line skipped', { session: sessionId, ...bad });
      for (const cut of torn)
        log.warn('torn write in the event log: kept the whole event after the fragment', {
          session: sessionId,
          ...cut,
        });
      if (events.length === 0 && offset === session.ingested_offset) break;
      let result: ReturnType<EventStore['ingest']>;
      this.ingesting = session;
      try {
        result = this.events.ingest(session, events, offset, textsOf(read, events));
      } catch (error) {
        this.bus.discard();
        throw error;
      } finally {
        this.ingesting = undefined;
      }
      this.bus.release();
      const { stored } = result;
      inserted += stored.length;
      // Indexed for search after this transaction, batched, off the ingestion path (decision 312).
      if (stored.length > 0) this.search.eventsStored(sessionId);
      this.announceStored(sessionId, stored);
      after = this.store.get(sessionId);
      // Read to the end of the file as it was: lines appended since come with their own call,
      // and are not looked for again here (decision 410).
      if (after === undefined || followed.waitAt !== undefined || read.offset >= read.size) break;
      session = after;
    }
    if (inserted === 0 && after?.ingested_offset === first.ingested_offset) return 0;
    this.announce('session', sessionId);
    if (after?.state !== first.state) this.announce('state', sessionId, first.state, after?.state);
    return inserted;
  }

  /**
   * What was ingested while held (`hold`): said to the listeners in order once the hold ends. A
   * batch's events are one entry, not one each: a restart holds every session's backlog.
   */
  private held: Held[] | undefined;

  /**
   * Holds the listeners' share of what is ingested until the returned release is called: a
   * restart ingests every session's backlog first and reports it done, then the watchdog,
   * provenance and the rest hear each event, in the order it was stored (decision 448). A hold
   * inside another is part of it: the outer release says everything.
   */
  hold(): () => void {
    if (this.held !== undefined) return () => undefined;
    const held: Held[] = [];
    this.held = held;
    return () => {
      if (this.held !== held) return;
      this.held = undefined;
      // One listener's failure must not keep the rest from hearing what was stored.
      for (const entry of held) {
        if (typeof entry === 'function') {
          try {
            entry();
          } catch (error) {
            listenerFailed(error);
          }
          continue;
        }
        for (const event of entry.events)
          try {
            this.emit('event', entry.sessionId, event);
          } catch (error) {
            listenerFailed(error);
          }
      }
    };
  }

  private announce<K extends keyof IngestEvents>(name: K, ...args: IngestEvents[K]): void {
    const say = (): void => void (this.emit as (name: K, ...args: IngestEvents[K]) => boolean)(name, ...args);
    if (this.held === undefined) say();
    else this.held.push(say);
  }

  /** A batch's stored events, each said in order (decision 466: held as the batch). */
  private announceStored(sessionId: string, events: readonly BatonEvent[]): void {
    if (this.held !== undefined) {
      if (events.length > 0) this.held.push({ sessionId, events });
      return;
    }
    for (const event of events) this.emit('event', sessionId, event);
  }

  /** The gap each session waits on, said once rather than at every read. */
  private readonly waiting = new Map<string, number>();

  /** Says what ingestion skipped, and the gap it waits on (once per gap). */
  private reportSequence(
    sessionId: string,
    starts: readonly number[],
    read: readonly BatonEvent[],
    followed: Followed,
  ): void {
    for (const skip of followed.skipped)
      log.warn(
        skip.why === 'duplicate'
          ? 'event log line skipped: its seq was already taken (a repeated line)'
          : 'event log line skipped: its seq is out of place (the log goes on from the expected seq after it)',
        { session: sessionId, seq: skip.seq, expected: skip.expected, offset: starts[skip.index] },
      );
    for (const hole of followed.holes)
      log.warn('event log has a hole: the writer went on past seqs never written', {
        session: sessionId,
        ...hole,
      });
    if (followed.waitAt === undefined) {
      this.waiting.delete(sessionId);
      return;
    }
    const offset = starts[followed.waitAt]!;
    if (this.waiting.get(sessionId) === offset) return;
    this.waiting.set(sessionId, offset);
    log.warn('event log gap: waiting for the next seq before taking the lines after it', {
      session: sessionId,
      expected: followed.lastSeq + 1,
      seq: read[followed.waitAt]?.seq,
      offset,
    });
  }

  /**
   * Writes events to the log of a session that has no host, then ingests them: `before`, the
   * state change `trigger` makes (if any), then `after`.
   */
  record(
    sessionId: string,
    trigger: Trigger | undefined,
    extra: { before?: EventBody[]; after?: EventBody[] } = {},
  ): void {
    // Everything the log holds is in the store first, so the store knows its last seq and state.
    this.ingest(sessionId);
    const row = this.store.get(sessionId);
    const bodies: EventBody[] = [...(extra.before ?? [])];
    if (trigger !== undefined) {
      const projection = row === undefined ? undefined : projectionOf(row);
      const known = row !== undefined && row.last_seq > 0;
      const machine = new StateMachine(
        known && projection !== undefined
          ? { state: projection.state, reason: projection.reason }
          : undefined,
      );
      const change = machine.apply(trigger);
      if (change !== undefined) bodies.push(change);
    }
    bodies.push(...(extra.after ?? []));
    if (bodies.length === 0) return;
    const paths = sessionPaths(this.home, sessionId);
    // A session folder deleted by hand (or a row made without one) is made again, not a crash.
    mkdirSync(paths.dir, { recursive: true });
    const writer = new EventLogWriter(paths.events, row?.last_seq);
    try {
      writer.appendAll(bodies);
    } finally {
      writer.close();
    }
    // Written, so done: the store catches up as soon as SQLite has room.
    this.ingestSoon(sessionId);
  }

  /**
   * Ingests now, or, while the disk is full (SQLite cannot grow), says so once and tries again
   * every second until it can: what is in the log has happened, and a command that made it
   * happen has succeeded, whether or not the store has caught up yet. One retry per session at
   * a time, however often this is called meanwhile.
   */
  ingestSoon(sessionId: string): void {
    if (!this.retries.has(sessionId)) this.tryIngest(sessionId, false);
  }

  private readonly retries = new Map<string, NodeJS.Timeout>();

  private tryIngest(sessionId: string, retrying: boolean): void {
    try {
      this.ingest(sessionId);
      if (retrying) log.info('the disk has room again: events ingested', { session: sessionId });
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      if (!retrying)
        log.warn('the disk is full: events wait in the session log', {
          session: sessionId,
          error: errorMessage(error),
        });
      const retry = setTimeout(() => {
        this.retries.delete(sessionId);
        this.tryIngest(sessionId, true);
      }, DISK_FULL_RETRY_MS);
      this.retries.set(sessionId, retry.unref());
    }
  }
}
