/**
 * What a routine needs from the rest of the workspace, as narrow ports: the supervisor wires the
 * session manager, the tasks domain and the radar in; tests give small real stand-ins.
 */
import type { z } from 'zod';
import type { DispatchRequest } from '../api/index.js';
import type { SessionWithProject } from '../store/sessions.js';

export interface RoutineSessions {
  list(): SessionWithProject[];
  /** A session by id, removed ones too. */
  get(id: string): SessionWithProject | undefined;
  dispatch(request: z.output<typeof DispatchRequest>): Promise<SessionWithProject>;
  /** Removes a session, keeping its uncommitted work recoverable (a run with nothing to report). */
  remove(sessionId: string): Promise<unknown>;
  /** The session's last message from its agent, if any. */
  lastMessage(sessionId: string): string | undefined;
  /** How many files the session's work changes against its base (0 when none). */
  changedFiles(sessionId: string): Promise<number>;
  /** The session's spend as the usage ledger prices it (absent: the row's own sum). */
  costOf?(session: SessionWithProject): number;
}

export interface TaskSummary {
  id: string;
  title: string;
  column: string;
  tracker?: string | null | undefined;
}

/** The tasks domain, when present: the brief lists tasks, the TODO sweep creates them. */
export interface RoutineTasks {
  list(projectRoot: string): Promise<TaskSummary[]>;
  create(
    projectRoot: string,
    task: { title: string; description: string; scope: string[] },
  ): Promise<TaskSummary>;
}

export interface ConflictSummary {
  a: string;
  b: string;
  level: string;
  files: string[];
}

/** Wall-clock time and timers, injectable so tests drive time instead of waiting for it. */
export interface RoutineClock {
  now(): Date;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: RoutineClock = {
  now: () => new Date(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
