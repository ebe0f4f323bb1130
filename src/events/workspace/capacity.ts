/** Capacity (src/capacity): memory running low while sessions run (decision 309). */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

const figures = { availableMb: z.number(), reserveMb: z.number() };

/**
 * Free memory fell below the reserve while sessions run: queued work is held, resting sessions'
 * agents are let go one at a time, idlest first, and working agents — never stopped by Baton —
 * are named with what they hold, for the user to decide.
 */
export const MemoryPressureBegan = defineWorkspaceEvent(
  'memory.pressure_began',
  z.object({
    ...figures,
    atWork: z.array(z.object({ ...sessionRef, memoryMb: z.number().nullable() })),
    message: z.string(),
  }),
);

/** A resting session's agent let go to free memory; its state is kept and a reply resumes it. */
export const MemoryHostReleased = defineWorkspaceEvent(
  'memory.host_released',
  z.object({ ...sessionRef, ...figures, memoryMb: z.number().nullable() }),
);

/** Free memory is above the reserve again. */
export const MemoryPressureEnded = defineWorkspaceEvent('memory.pressure_ended', z.object(figures));
