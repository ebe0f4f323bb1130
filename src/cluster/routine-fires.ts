/**
 * A routine defined in a repository's `.baton/config.json` is read by every machine with a
 * checkout of it, and each machine's timer (or tag watch) would fire it: a fire is claimed here
 * first, keyed by the repository's identity, the routine's name and what fired it (the time it
 * was due, or the tag), and only the machine whose claim was stored runs it.
 */
import type pg from 'pg';

export class RoutineFireClaims {
  constructor(
    private readonly pool: pg.Pool,
    private readonly machine: string,
  ) {}

  /** The machine that holds this fire: this one when its claim was the first. */
  async claim(repo: string, routine: string, fireKey: string): Promise<string> {
    const mine = await this.pool.query(
      'INSERT INTO routine_fires (repo_key, routine, fire_key, machine) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [repo, routine, fireKey, this.machine],
    );
    if (mine.rowCount === 1) return this.machine;
    // In a statement of its own: one that waited on the other's insert sees it only from a new snapshot.
    const { rows } = await this.pool.query<{ machine: string }>(
      'SELECT machine FROM routine_fires WHERE repo_key = $1 AND routine = $2 AND fire_key = $3',
      [repo, routine, fireKey],
    );
    return rows[0]?.machine ?? this.machine;
  }
}
