/** PostgreSQL migration 8: each machine's workspace events relayed: read by the others, and where a machine's relay stopped. */
export const name =
  "each machine's workspace events relayed: read by the others, and where a machine's relay stopped";

export const sql = `
CREATE INDEX workspace_events_relayed ON workspace_events (seq) WHERE type = 'cluster.relayed';
CREATE INDEX workspace_events_relayed_by ON workspace_events ((data->>'machine'), ((data->>'localSeq')::bigint) DESC)
  WHERE type = 'cluster.relayed';
`;
