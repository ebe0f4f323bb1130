/**
 * Memory pressure (decision 309): free memory fell below the reserve while sessions run. Baton
 * never stops a working agent for it — that would be a silent kill of someone's work. It holds
 * queued work (the memory gate already does: the free figure is below every footprint), lets go
 * of resting sessions' agents one at a time, idlest first (their state is kept and a reply
 * resumes them in the same conversation, as the idle rule's release does), and says so: one
 * `memory.pressure_began` naming the working sessions and what each holds, one
 * `memory.host_released` per agent let go, `memory.pressure_ended` when memory is back.
 */
import type { MemoryAdmission } from '../capacity/index.js';
import type { WorkspaceBus } from '../bus/index.js';
import { MemoryHostReleased, MemoryPressureBegan, MemoryPressureEnded } from '../events/workspace.js';
import { formatMb } from '../events/format.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { SessionWithProject } from '../store/sessions.js';
import { ACTIVE_STATES } from './state.js';

const log = createLogger('memory');

export interface MemoryReliefOptions {
  memory: MemoryAdmission;
  bus: WorkspaceBus;
  sessions(): SessionWithProject[];
  isRunning(session: SessionWithProject): boolean;
  /** Lets a resting session's agent go, keeping its state; false when it was not resting after all. */
  release(sessionId: string, message: string): Promise<boolean>;
}

export class MemoryRelief {
  private underPressure = false;
  private releasing = false;

  constructor(private readonly o: MemoryReliefOptions) {}

  /** Looked at on the memory beat, after a measurement. */
  check(): void {
    const pressure = this.o.memory.pressure();
    if (pressure === undefined) {
      if (this.underPressure) {
        this.underPressure = false;
        const available = this.o.memory.headroom().availableMb ?? 0;
        this.o.bus.publish(MemoryPressureEnded, {
          availableMb: available,
          reserveMb: this.o.memory.headroom().reserveMb,
        });
      }
      return;
    }
    const running = this.o.sessions().filter((s) => this.o.isRunning(s));
    // Nothing of Baton's runs: not Baton's memory to give back.
    if (running.length === 0) return;
    const ref = (s: SessionWithProject) => ({ sessionId: s.id, name: s.name, project: s.project_name });
    const held = (s: SessionWithProject) => {
      const mb = this.o.memory.footprints.current(s.id);
      return mb === undefined ? null : Math.round(mb);
    };
    if (!this.underPressure) {
      this.underPressure = true;
      const atWork = running.filter((s) => ACTIVE_STATES.includes(s.state));
      const names = atWork.map((s) => `${s.name} ${held(s) === null ? '' : formatMb(held(s)!)}`.trim());
      const message =
        `memory low: ${formatMb(pressure.availableMb)} available, below the ${formatMb(pressure.reserveMb)} reserve; ` +
        `queued sessions wait, resting agents are let go idlest first` +
        (names.length === 0
          ? ''
          : `; working agents are not stopped (${names.join(', ')}): stop one to free memory`);
      log.warn(message);
      this.o.bus.publish(MemoryPressureBegan, {
        ...pressure,
        atWork: atWork.map((s) => ({ ...ref(s), memoryMb: held(s) })),
        message,
      });
    }
    if (this.releasing) return;
    // One at a time: memory is read again before the next one goes.
    const idlest = running
      .filter((s) => s.state === 'ready_for_review' && s.pinned === 0)
      .sort((a, b) => (a.last_event_at ?? a.created_at).localeCompare(b.last_event_at ?? b.created_at))[0];
    if (idlest === undefined) return;
    this.releasing = true;
    const memoryMb = held(idlest);
    this.o
      .release(
        idlest.id,
        `let go under memory pressure (${formatMb(pressure.availableMb)} available, reserve ${formatMb(pressure.reserveMb)}); a reply resumes it`,
      )
      .then((released) => {
        if (released) this.o.bus.publish(MemoryHostReleased, { ...ref(idlest), ...pressure, memoryMb });
      })
      .catch((error: unknown) =>
        log.warn('could not let a resting agent go', { session: idlest.id, error: errorMessage(error) }),
      )
      .finally(() => (this.releasing = false));
  }
}
