/**
 * The `routines` section of `.baton/config.json`: routine name → definition. A definition is the
 * API's `RoutineSpec` (src/api/routines.ts), the same whether it comes from `baton routine add` or
 * from this section.
 */
import { z } from 'zod';
import { RoutineSpec } from '../api/routines.js';

export { ROUTINE_TRIGGERS, RoutineSpec, type RoutineTrigger } from '../api/routines.js';

export const RoutinesSection = z.record(z.string(), RoutineSpec);
