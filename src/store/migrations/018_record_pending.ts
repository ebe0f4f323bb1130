/**
 * The turn record under way per session (decision 430): the sequence number of the event that
 * ended the turn, set when its record is queued and cleared when it is written. A supervisor
 * killed in between leaves it set, and the next start records that turn.
 */
export const sql = `
ALTER TABLE session_evidence ADD COLUMN record_seq INTEGER;
CREATE INDEX session_evidence_record_seq ON session_evidence (record_seq) WHERE record_seq IS NOT NULL;
`;
