/** PostgreSQL migration 6: each machine's spend per minute, for the budgets they share. */
export const name = "each machine's spend per minute, for the budgets they share";

export const sql = `
CREATE TABLE spend_minutes (
  machine text NOT NULL,
  minute timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  usd double precision NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (machine, minute)
);
CREATE INDEX spend_minutes_updated ON spend_minutes (updated_at);
`;
