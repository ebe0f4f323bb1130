/** PostgreSQL migration 11: routine fires claimed once across the machines. */
export const name = 'routine fires claimed once across the machines';

export const sql = `
CREATE TABLE routine_fires (
  repo_key text NOT NULL,
  routine text NOT NULL,
  fire_key text NOT NULL,
  machine text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo_key, routine, fire_key)
);
CREATE INDEX routine_fires_at ON routine_fires (at);
`;
