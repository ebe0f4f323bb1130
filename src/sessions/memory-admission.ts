/**
 * Memory-aware admission wired to the sessions (decision 260): the capacity domain's
 * `MemoryAdmission` told which sessions are at work and which hosts live, its gate holding queued
 * sessions the machine has no memory for, and a beat that measures footprints between scheduling
 * passes, relieves memory pressure (memory-relief.ts) and lets a held session start once memory is
 * freed outside Baton.
 */
import type { WorkspaceBus } from '../bus/index.js';
import { MEMORY_GATE, MemoryAdmission, type MemorySource } from '../capacity/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { Db } from '../store/db.js';
import { MemoryFootprintStore } from '../store/memory-footprints.js';
import type { SessionStore, SessionWithProject } from '../store/sessions.js';
import { MemoryRelief } from './memory-relief.js';
import { ACTIVE_STATES } from './state.js';

const log = createLogger('sessions');

/** How the manager is asked to admit by memory (ManagerOptions.memory). */
export interface MemoryOptions {
  enabled: boolean;
  reserveMb: number;
  footprintMb: Readonly<Record<string, number>>;
  source: MemorySource;
  /** How often a session held for memory is looked at again (memory freed outside Baton); default 15 s. */
  recheckMs?: number;
}

/** A session held for memory is looked at again this often: memory freed outside Baton says nothing. */
const MEMORY_RECHECK_MS = 15_000;

/** The manager's parts the admission reads and acts through. */
export interface MemoryParts {
  db: Db;
  bus: WorkspaceBus;
  store: SessionStore;
  scheduler: Scheduler<SessionWithProject>;
  isRunning(session: SessionWithProject): boolean;
  /** Lets a resting session's agent go, keeping its state (the idle rule's release). */
  release(sessionId: string, message: string): Promise<boolean>;
  /** Runs a scheduling pass. */
  reschedule(): void;
}

/** The admission, its gate added to the scheduler, and the beat's timer (cleared when the manager closes). */
export function admitByMemory(
  options: MemoryOptions,
  parts: MemoryParts,
): { memory: MemoryAdmission; timer: NodeJS.Timeout } {
  const { store, scheduler } = parts;
  const memory = new MemoryAdmission({
    ...options,
    // Learnt footprints outlive the supervisor (decision 308).
    history: new MemoryFootprintStore(parts.db),
    // Mid-turn, waiting on the user, or being started by this pass: all may still grow.
    atWork: () =>
      store
        .listLive()
        .filter((s) => ACTIVE_STATES.includes(s.state) || scheduler.isStarting(s.id))
        .map(admissionOf),
    live: () =>
      store
        .listLive()
        .filter((s) => s.host_pid !== null)
        .map(admissionOf),
  });
  const relief = new MemoryRelief({
    memory,
    bus: parts.bus,
    sessions: () => store.listLive(),
    isRunning: (session) => parts.isRunning(session),
    release: (id, message) => parts.release(id, message),
  });
  scheduler.addGate({ name: MEMORY_GATE, holds: (session) => memory.holds(session) });
  // Measured on a beat too, so footprints are learnt between passes and memory freed
  // elsewhere lets a held session start.
  const timer = setInterval(() => {
    try {
      memory.sample();
    } catch (error) {
      log.warn('could not measure sessions’ memory', { error: errorMessage(error) });
    }
    relief.check();
    if (scheduler.held().some((h) => h.gate === MEMORY_GATE)) parts.reschedule();
  }, options.recheckMs ?? MEMORY_RECHECK_MS);
  timer.unref();
  return { memory, timer };
}

function admissionOf(session: SessionWithProject): { id: string; agent: string; hostPid: number | null } {
  return { id: session.id, agent: session.agent, hostPid: session.host_pid };
}
