/** PostgreSQL migration 3: session mirror lookups, and commands for another machine. */
export const name = 'session mirror lookups, and commands for another machine';

export const sql = `
CREATE INDEX workspace_events_cluster_session ON workspace_events ((data->>'sessionId'), seq DESC)
  WHERE type IN ('cluster.session', 'cluster.session_removed');
CREATE INDEX workspace_events_cluster_event ON workspace_events ((data->>'sessionId'), (data->'eventSeq'))
  WHERE type = 'cluster.event';
CREATE TABLE cluster_commands (
  id bigserial PRIMARY KEY,
  machine text NOT NULL,
  body jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'failed', 'expired')),
  answer jsonb,
  error jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  claimed_at timestamptz,
  done_at timestamptz
);
CREATE INDEX cluster_commands_pending ON cluster_commands (machine, id) WHERE state = 'pending';
`;
