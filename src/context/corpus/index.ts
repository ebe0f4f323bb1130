/** The handoff retention corpus: scripted sessions with planted facts, and the scorer `npm run bench` and the tests run. */
export { RETENTION_CORPUS } from './sessions.js';
export { corpusTranscript, sessionEvents } from './build.js';
export {
  formatSummary,
  scoreCorpus,
  scorePack,
  summarize,
  type CorpusSummary,
  type PackMaker,
  type TaskScore,
} from './score.js';
export type { CorpusSession, PlantedFact } from './types.js';
