/** PostgreSQL migration 5: workspace settings every machine holds to: allow rules and budgets. */
export const name = 'workspace settings every machine holds to: allow rules and budgets';

export const sql = `
CREATE TABLE allow_rules (
  id bigserial PRIMARY KEY,
  repository text,
  project_root text,
  machine text NOT NULL,
  tool text,
  pattern text,
  source text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (tool IS NOT NULL OR pattern IS NOT NULL)
);
CREATE INDEX allow_rules_repository ON allow_rules (repository, id);
CREATE TABLE budgets (
  scope text PRIMARY KEY,
  window_ms bigint,
  limit_usd double precision NOT NULL,
  warn_ratio double precision NOT NULL,
  updated_at text NOT NULL,
  machine text NOT NULL
);
`;
