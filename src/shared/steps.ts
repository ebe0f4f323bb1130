/**
 * A path's own timings, step by step, for its log line: the bench reads them back, so a slower
 * path names the step that got slower (decision 221, "The supervisor times a dispatch's steps").
 */
export interface StepTimer {
  /** Ends the current step under `name` (ms since the last mark). */
  mark(name: string): void;
  /** Each step's ms, and the total since the timer started. */
  done(): Record<string, number>;
}

export function stepTimer(now: () => number = () => performance.now()): StepTimer {
  const started = now();
  let last = started;
  const steps: Record<string, number> = {};
  return {
    mark(name) {
      const at = now();
      steps[name] = Math.round((steps[name] ?? 0) + (at - last));
      last = at;
    },
    done() {
      return { ...steps, total: Math.round(now() - started) };
    },
  };
}
