/** PostgreSQL migration 1: workspace events, workers and placements. */
export const name = 'workspace events, workers and placements';

export const sql = `
CREATE TABLE workspace_events (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL
);
CREATE TABLE workers (
  name text PRIMARY KEY,
  capacity integer NOT NULL CHECK (capacity >= 0),
  running integer NOT NULL DEFAULT 0 CHECK (running >= 0),
  started_at timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  version text NOT NULL
);
CREATE TABLE placements (
  session_id text PRIMARY KEY,
  worker text,
  state text NOT NULL CHECK (state IN ('queued', 'placed', 'failed', 'finished')),
  reason text,
  target text NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX placements_worker ON placements (worker) WHERE state = 'placed';
`;
