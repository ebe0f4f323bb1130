/**
 * Memory-aware admission (decision 260): a queued session starts only when the memory the
 * machine has free, less a reserve and less what the sessions already at work are still expected
 * to grow into, covers the typical footprint of its agent. Count caps are blind to RAM: fifteen
 * sessions of 1.5 GB exhaust a 24 GB machine however many slots it has.
 */
import { formatMb } from '../events/format.js';
import type { MemorySource } from './memory.js';
import { Footprints, type FootprintHistory } from './footprints.js';

export const MEMORY_GATE = 'memory';
/** Measurements this recent serve a scheduling pass: one pass asks for every queued session. */
const SAMPLE_REUSE_MS = 2000;

export interface AdmissionSession {
  id: string;
  agent: string;
  /** The host's pid, null before it is up. */
  hostPid: number | null;
}

export interface MemoryAdmissionOptions {
  source: MemorySource;
  /** Off: only the count cap (`maxConcurrent`) admits. */
  enabled: boolean;
  reserveMb: number;
  footprintMb?: Readonly<Record<string, number>>;
  /** Finished sessions' peaks kept across restarts (decision 308); unset: learnt in memory only. */
  history?: FootprintHistory;
  /** Sessions at work (mid-turn, waiting on the user, or being started): they may still grow. */
  atWork(): AdmissionSession[];
  /** Every session whose host runs, at work or idle: measured for the figures `peek` shows. */
  live(): AdmissionSession[];
  clock?: () => number;
}

export interface Headroom {
  enabled: boolean;
  /** What the kernel says is available; null where it is not known (not Linux). */
  availableMb: number | null;
  reserveMb: number;
  /** What sessions at work are expected to take beyond what they hold now. */
  expectedGrowthMb: number;
  /** Available less the reserve and the expected growth: what a new session may take. */
  freeMb: number | null;
  /** The typical footprint per agent kind, and where the figure comes from. */
  footprints: { agent: string; mb: number; source: 'setting' | 'measured' | 'default' }[];
}

export class MemoryAdmission {
  readonly footprints: Footprints;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private readonly clock: () => number;

  constructor(private readonly o: MemoryAdmissionOptions) {
    this.footprints = new Footprints(o.footprintMb, o.history);
    this.clock = o.clock ?? Date.now;
  }

  /** Measures every live session's process tree now; a host gone since ends its record. */
  sample(): void {
    const live = this.o.live().filter((s) => s.hostPid !== null);
    const trees = this.o.source.treesMb(live.map((s) => s.hostPid!));
    const seen = new Set<string>();
    for (const session of live) {
      const mb = trees.get(session.hostPid!);
      if (mb === undefined) continue;
      seen.add(session.id);
      this.footprints.record(session.id, session.agent, mb);
    }
    for (const id of this.footprints.tracked()) if (!seen.has(id)) this.footprints.ended(id);
    this.sampledAt = this.clock();
  }

  /** A session's process-tree memory as last measured (measured now when stale), for `peek`. */
  sessionMb(sessionId: string): number | undefined {
    this.fresh();
    // A session whose host started after the last sample is measured now, not shown as unknown.
    if (this.footprints.current(sessionId) === undefined) this.sample();
    return this.footprints.current(sessionId);
  }

  headroom(): Headroom {
    this.fresh();
    const available = this.o.source.availableMb();
    const growth = this.expectedGrowth();
    const agents = new Set([...Object.keys(this.o.footprintMb ?? {}), 'claude', 'codex', 'scripted']);
    return {
      enabled: this.o.enabled,
      availableMb: available ?? null,
      reserveMb: this.o.reserveMb,
      expectedGrowthMb: growth,
      freeMb: available === undefined ? null : available - this.o.reserveMb - growth,
      footprints: [...agents].sort().map((agent) => ({ agent, ...this.footprints.typical(agent) })),
    };
  }

  /**
   * Free memory below the reserve (decision 309), measured now; undefined when there is room, the
   * gate is off, or the kernel does not say.
   */
  pressure(): { availableMb: number; reserveMb: number } | undefined {
    if (!this.o.enabled) return undefined;
    const available = this.o.source.availableMb();
    if (available === undefined || available >= this.o.reserveMb) return undefined;
    return { availableMb: available, reserveMb: this.o.reserveMb };
  }

  /** Why `session` must wait for memory, or undefined to let it start. */
  holds(session: Pick<AdmissionSession, 'agent'>): string | undefined {
    if (!this.o.enabled) return undefined;
    const available = this.o.source.availableMb();
    // Where the kernel does not say (not Linux), the count cap alone admits.
    if (available === undefined) return undefined;
    const atWork = this.o.atWork();
    // Nothing at work can free memory for it: the first session always starts (decision 260).
    // Nothing to measure then either: every process tree is read only when an answer needs it.
    if (atWork.length === 0) return undefined;
    this.fresh();
    const free = available - this.o.reserveMb - this.expectedGrowth(atWork);
    const need = this.footprints.typical(session.agent).mb;
    if (free >= need) return undefined;
    return `waiting for memory: ${formatMb(Math.max(0, free))} free, needs ~${formatMb(need)}`;
  }

  /**
   * What sessions at work are expected to take beyond their last measurement: a session just
   * started (not yet measured) reserves its whole footprint, so one pass cannot admit more than fits.
   */
  private expectedGrowth(atWork = this.o.atWork()): number {
    let total = 0;
    for (const session of atWork) {
      const now = this.footprints.current(session.id) ?? 0;
      total += Math.max(0, this.footprints.typical(session.agent).mb - now);
    }
    return total;
  }

  private fresh(): void {
    if (this.clock() - this.sampledAt >= SAMPLE_REUSE_MS) this.sample();
  }
}
