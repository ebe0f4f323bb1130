/** PostgreSQL migration 2: worker incarnations, and the incarnation that holds each placement. */
export const name = 'worker incarnations, and the incarnation that holds each placement';

export const sql = `
ALTER TABLE workers ADD COLUMN incarnation bigint NOT NULL DEFAULT 1;
ALTER TABLE placements ADD COLUMN incarnation bigint;
`;
