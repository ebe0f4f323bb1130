/**
 * Capacity: what the machine can take. Memory-aware admission (decision 260), typical footprints
 * per agent kind (decision 261), the machine's headroom for `baton ls` and `baton daemon status`.
 */
export {
  MEMORY_GATE,
  MemoryAdmission,
  type AdmissionSession,
  type Headroom,
  type MemoryAdmissionOptions,
} from './admission.js';
export { DEFAULT_FOOTPRINT_MB, Footprints, type FootprintHistory } from './footprints.js';
export { procMemory, readAvailableMb, type MemorySource } from './memory.js';
