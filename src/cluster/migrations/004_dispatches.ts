/** PostgreSQL migration 4: dispatches placed on another machine: the request, the repository and the outcome. */
export const name = 'dispatches placed on another machine: the request, the repository and the outcome';

export const sql = `
CREATE TABLE cluster_dispatches (
  placement_id text PRIMARY KEY,
  origin text NOT NULL,
  request jsonb NOT NULL,
  remote_url text NOT NULL,
  base text NOT NULL,
  project text NOT NULL,
  machine text,
  session_id text,
  session jsonb,
  error jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  answered_at timestamptz
);
`;
