/**
 * The workspace scheduler: slots, a first-come-first-served queue, and gates. Dispatch uses it for
 * the concurrency cap; the merge queue, task dependencies, routines and budgets add gates that
 * hold an item until their condition holds ("after task 3 merges", "within today's budget").
 *
 * The queue itself lives with its owner (for sessions: the `queued` rows in SQLite, so it
 * survives a restart); the scheduler asks for it on every pass and starts what fits.
 */

export interface Gate<T> {
  readonly name: string;
  /** Why `item` must wait, or undefined to let it through. */
  holds(item: T): string | undefined;
}

export interface SchedulerOptions<T> {
  /** How many items may run at once. */
  slots(): number;
  /** How many slots are taken by items running now (not counting those being started). */
  busy(isStarting: (id: string) => boolean): number;
  /** Items waiting, oldest first. */
  waiting(): T[];
  id(item: T): string;
  /** Starts one item; the slot counts as taken until it settles, then `busy` answers for it. */
  start(item: T): Promise<void>;
}

export interface HeldItem {
  id: string;
  gate: string;
  reason: string;
}

export class Scheduler<T> {
  private readonly gates: Gate<T>[] = [];
  private readonly starting = new Set<string>();
  private pass: Promise<void> | undefined;
  private rerun = false;
  private closed = false;
  private lastHeld: HeldItem[] = [];

  constructor(private readonly options: SchedulerOptions<T>) {}

  /** Adds a gate; returns its removal. */
  addGate(gate: Gate<T>): () => void {
    this.gates.push(gate);
    return () => {
      const index = this.gates.indexOf(gate);
      if (index !== -1) this.gates.splice(index, 1);
    };
  }

  isStarting(id: string): boolean {
    return this.starting.has(id);
  }

  /** Slots in use: running items plus those being started. */
  used(): number {
    return this.options.busy((id) => this.starting.has(id)) + this.starting.size;
  }

  /** Items a gate held back on the last pass, with the gate's reason. */
  held(): readonly HeldItem[] {
    return this.lastHeld;
  }

  /**
   * Starts waiting items while there are free slots. A call during a pass starts what fits at
   * once — an item queued while another is being started is not held behind that start, which
   * may take seconds (decision 310) — and asks for one more pass; it resolves when that is done,
   * so whoever queued an item sees it started (or held).
   */
  run(): Promise<void> {
    if (this.pass !== undefined) {
      const starts = this.closed ? [] : this.startWhatFits();
      this.rerun = true;
      return Promise.all([this.pass, ...starts]).then(() => undefined);
    }
    this.pass = (async () => {
      try {
        do {
          this.rerun = false;
          await Promise.all(this.startWhatFits());
        } while (this.rerun && !this.closed);
      } finally {
        this.pass = undefined;
      }
    })();
    return this.pass;
  }

  close(): void {
    this.closed = true;
  }

  private startWhatFits(): Promise<void>[] {
    let room = this.options.slots() - this.used();
    const held: HeldItem[] = [];
    const starts: Promise<void>[] = [];
    for (const item of this.options.waiting()) {
      if (room <= 0) break;
      const id = this.options.id(item);
      if (this.starting.has(id)) continue;
      const hold = this.firstHold(item);
      if (hold !== undefined) {
        held.push({ id, ...hold });
        continue;
      }
      room--;
      this.starting.add(id);
      starts.push(this.options.start(item).finally(() => this.starting.delete(id)));
    }
    this.lastHeld = held;
    return starts;
  }

  private firstHold(item: T): { gate: string; reason: string } | undefined {
    for (const gate of this.gates) {
      const reason = gate.holds(item);
      if (reason !== undefined) return { gate: gate.name, reason };
    }
    return undefined;
  }
}
