/**
 * Provenance: which session's turn wrote each line (decision 250, "Agent blame from per-turn
 * snapshots, kept in git notes"). At every turn end the session's work is committed onto its
 * chain under `refs/baton/provenance/<session id>` (chain.ts, record.ts); when Baton lands work,
 * each landed commit gets a git note under `refs/notes/baton` naming the turns that wrote its
 * lines (attribute.ts, notes.ts); `baton blame` and `baton why` read git's blame through the
 * notes (blame.ts). The service (service.ts) wires it to the sessions' events and the merge queue.
 */
export { blameFile, parseBlameSpec, type BlameLine } from './blame.js';
export { CHAIN_PREFIX, chainRef, chainTip, recordTurn } from './chain.js';
export { attributeWork, type Attribution } from './attribute.js';
export {
  NOTES_REF,
  noteLanding,
  parseNote,
  readNotes,
  turnAt,
  whileWritingNotes,
  writeNote,
  type Landing,
  type ProvenanceNote,
} from './notes.js';
export { recordOf, TurnTracker, turnMessage, turnRecord, type TurnRecord } from './record.js';
export {
  ProvenanceService,
  type LandedSessions,
  type ProvenanceOptions,
  type ProvenanceSessions,
} from './service.js';
