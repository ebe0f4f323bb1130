/**
 * The workspace bus: every domain publishes its events here (defined once in
 * `src/events/workspace.ts`). Events are validated, stored in SQLite with one global sequence
 * number, and delivered to subscribers; `follow` replays from any sequence number and then goes
 * live without a gap or a duplicate, which is what `/api/stream` serves to the CLI and the page.
 * In a shared workspace, other machines' events are `ingest`ed into the same sequence: followers
 * get them, subscribers (the domains) never do, since they are not this machine's to act on.
 */
import { EventEmitter } from 'node:events';
import type { z } from 'zod';
import type { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import type { WorkspaceEvent, WorkspaceEventDefinition } from '../events/workspace.js';
import type { Db } from '../store/db.js';
import { InternalError } from '../shared/errors.js';
import { WorkspaceEventStore } from '../store/workspace-events.js';

/** What a follower gets: this machine's events and, in a shared workspace, the others' (with `machine`). */
export type FollowedEvent = WorkspaceEvent | RelayedWorkspaceEvent;

export function isRelayed(event: FollowedEvent): event is RelayedWorkspaceEvent {
  return 'machine' in event;
}

const PAGE = 1_000;

export type Clock = () => Date;

export class WorkspaceBus {
  private readonly store: WorkspaceEventStore;
  /** `event`: this machine's, for subscribers; `followed`: every event, in seq order, for followers. */
  private readonly emitter = new EventEmitter<{ event: [WorkspaceEvent]; followed: [FollowedEvent] }>();
  /** Published inside a transaction not yet committed: delivered by `release`, dropped by `discard`. */
  private held: WorkspaceEvent[] = [];
  /** Events waiting for the one being delivered: a subscriber that publishes must not be heard before it. */
  private readonly outbox: FollowedEvent[] = [];
  private delivering = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock = () => new Date(),
  ) {
    this.store = new WorkspaceEventStore(db);
    this.emitter.setMaxListeners(0);
  }

  /** Validates, stores and delivers one event; returns it with its sequence number. */
  publish<T extends string, S extends z.ZodType>(
    definition: WorkspaceEventDefinition<T, S>,
    data: z.input<S>,
  ): WorkspaceEvent {
    const parsed = definition.schema.parse(data);
    const stored = this.store.append(this.clock().toISOString(), definition.type, parsed);
    const event = stored as WorkspaceEvent;
    // Inside a transaction the event may yet be rolled back: nobody may see it before the commit.
    if (this.db.inTransaction) this.held.push(event);
    else this.deliver(event);
    return event;
  }

  /** After the transaction that published them has committed: delivers the held events. */
  release(): void {
    const held = this.held;
    this.held = [];
    // All of them queue before the first is heard: an event its subscribers publish in answer
    // (a task moved on a state change) comes after the whole committed batch, never inside it.
    this.deliver(...held);
  }

  /**
   * Delivers events in sequence order to every subscriber. An event published by a subscriber
   * while another is being delivered waits until that one has reached everyone; otherwise later
   * subscribers would see it first, and a follower (which drops what is older than the last it
   * saw) would lose the earlier one.
   */
  private deliver(...events: FollowedEvent[]): void {
    this.outbox.push(...events);
    if (this.delivering || this.outbox.length === 0) return;
    this.delivering = true;
    try {
      for (let next = this.outbox.shift(); next !== undefined; next = this.outbox.shift()) {
        if (!isRelayed(next)) this.emitter.emit('event', next);
        this.emitter.emit('followed', next);
      }
    } finally {
      this.delivering = false;
    }
  }

  /** After the transaction that published them was rolled back: forgets the held events. */
  discard(): void {
    this.held = [];
  }

  /**
   * Stores another machine's event (from the shared log) under a local seq and delivers it to
   * followers only; undefined when that log seq was stored already, so reading one twice is harmless.
   */
  ingest(event: Omit<RelayedWorkspaceEvent, 'seq'>): RelayedWorkspaceEvent | undefined {
    // Nothing here could discard it if a transaction around it rolled back (held events are this machine's).
    if (this.db.inTransaction)
      throw new InternalError('a relayed event must be stored outside any transaction');
    const stored = this.store.appendRelayed(event);
    if (stored !== undefined) this.deliver(stored);
    return stored;
  }

  /** The newest shared-log seq of the other machines' events stored here (0: none). */
  lastIngested(): number {
    return this.store.lastLogSeq();
  }

  /** A named position kept with the events (the relay's: how far this machine's events went out). */
  cursor(name: string): number | undefined {
    return this.store.cursor(name);
  }

  setCursor(name: string, seq: number): void {
    this.store.setCursor(name, seq);
  }

  /** The newest events of one type published here, newest first. */
  latestOfType<T extends WorkspaceEvent['type']>(
    type: T,
    limit: number,
  ): Extract<WorkspaceEvent, { type: T }>[] {
    return this.store.latestOfType(type, limit) as Extract<WorkspaceEvent, { type: T }>[];
  }

  /** This machine's newest event of `type` about session `sessionId` (e.g. its dispatch), if one is stored. */
  latestAbout(type: WorkspaceEvent['type'], sessionId: string): unknown {
    return this.store.latestAbout(type, sessionId);
  }

  /** The data of another machine's newest event of `type` about session `sessionId` (e.g. its last push), if one reached here. */
  latestRelayedAbout(type: WorkspaceEvent['type'], sessionId: string): unknown {
    return this.store.latestRelayedAbout(type, sessionId);
  }

  /** Events published here after `after`, oldest first. */
  list(after = 0, limit = PAGE): WorkspaceEvent[] {
    return this.store.list(after, limit) as WorkspaceEvent[];
  }

  /** Every stored event after `after`, this machine's and the others', oldest first. */
  listAll(after = 0, limit = PAGE): FollowedEvent[] {
    return this.store.listAll(after, limit) as FollowedEvent[];
  }

  /** Forgets other machines' events older than `before` (ISO): a cluster's retention (decision 142). */
  pruneRelayed(before: string): number {
    return this.store.pruneRelayed(before);
  }

  lastSeq(): number {
    return this.store.lastSeq();
  }

  /** Calls `listener` for every event published from now on; returns the unsubscribe. */
  subscribe(listener: (event: WorkspaceEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /**
   * Replays events after `after`, then delivers live ones, each exactly once and in order,
   * until `closed` settles. `send` may be slow (a network write): live events wait for it.
   */
  async follow(
    after: number,
    send: (event: FollowedEvent) => Promise<void>,
    closed: Promise<void>,
    onLive?: () => Promise<void>,
  ): Promise<void> {
    let last = after;
    let live = false;
    const buffered: FollowedEvent[] = [];
    let chain = Promise.resolve();
    const deliver = (event: FollowedEvent): Promise<void> => {
      if (event.seq <= last) return Promise.resolve();
      last = event.seq;
      return send(event);
    };
    // Subscribe before replaying so nothing published in between is missed; `last` drops repeats.
    const listener = (event: FollowedEvent): void => {
      if (!live) buffered.push(event);
      else chain = chain.then(() => deliver(event)).catch(() => undefined); // `send` handles its own failures (an SSE write aborts the stream)
    };
    this.emitter.on('followed', listener);
    const unsubscribe = (): void => void this.emitter.off('followed', listener);
    // A follower that goes away during a long replay stops costing pages.
    let gone = false;
    void closed.then(() => (gone = true));
    try {
      for (let page = this.listAll(last); page.length > 0 && !gone; page = this.listAll(last)) {
        for (const event of page) if (!gone) await deliver(event);
      }
      for (const event of buffered) await deliver(event);
      live = true;
      await onLive?.();
      await closed;
    } finally {
      unsubscribe();
    }
  }
}
