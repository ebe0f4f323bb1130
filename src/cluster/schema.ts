/**
 * The cluster's tables in PostgreSQL. Migrations are numbered, applied in order under a
 * session-level advisory lock (so two machines starting at once apply each exactly once), and
 * recorded in `baton_schema`.
 */
import type pg from 'pg';

/** Advisory lock keys: one per purpose, so they never collide. */
export const LOCKS = { migrate: 20_001, bus: 20_002, tasks: 20_003 } as const;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'workspace events, workers and placements',
    sql: `
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
    `,
  },
  {
    version: 2,
    name: 'worker incarnations, and the incarnation that holds each placement',
    sql: `
      ALTER TABLE workers ADD COLUMN incarnation bigint NOT NULL DEFAULT 1;
      ALTER TABLE placements ADD COLUMN incarnation bigint;
    `,
  },
  {
    version: 3,
    name: 'session mirror lookups, and commands for another machine',
    sql: `
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
    `,
  },
  {
    version: 4,
    name: 'dispatches placed on another machine: the request, the repository and the outcome',
    sql: `
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
    `,
  },
  {
    version: 5,
    name: 'workspace settings every machine holds to: allow rules and budgets',
    sql: `
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
    `,
  },
  {
    version: 6,
    name: "each machine's spend per minute, for the budgets they share",
    sql: `
      CREATE TABLE spend_minutes (
        machine text NOT NULL,
        minute timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        usd double precision NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (machine, minute)
      );
      CREATE INDEX spend_minutes_updated ON spend_minutes (updated_at);
    `,
  },
  {
    version: 7,
    name: "the watchdog's alerts, shown on every machine",
    sql: `
      CREATE TABLE alerts (
        id text PRIMARY KEY,
        raised_at text NOT NULL,
        rule text NOT NULL,
        session_id text,
        session_name text,
        project text,
        message text NOT NULL,
        evidence_json text NOT NULL,
        action text NOT NULL,
        dedupe_key text NOT NULL,
        acknowledged_at text,
        machine text NOT NULL
      );
      CREATE UNIQUE INDEX alerts_open_key ON alerts (dedupe_key) WHERE acknowledged_at IS NULL;
      CREATE INDEX alerts_session ON alerts (session_id);
      CREATE INDEX alerts_raised ON alerts (raised_at DESC, id DESC);
    `,
  },
  {
    version: 8,
    name: "each machine's workspace events relayed: read by the others, and where a machine's relay stopped",
    sql: `
      CREATE INDEX workspace_events_relayed ON workspace_events (seq) WHERE type = 'cluster.relayed';
      CREATE INDEX workspace_events_relayed_by ON workspace_events ((data->>'machine'), ((data->>'localSeq')::bigint) DESC)
        WHERE type = 'cluster.relayed';
    `,
  },
  {
    version: 9,
    name: "the log's rows by time, for its retention",
    sql: `CREATE INDEX workspace_events_at ON workspace_events (at);`,
  },
  {
    version: 10,
    name: 'the tasks of shared repositories, numbered from one sequence for every machine',
    sql: `
      CREATE SEQUENCE task_ids;
      CREATE SEQUENCE task_versions;
      CREATE TABLE cluster_tasks (
        id bigint PRIMARY KEY,
        repo_key text NOT NULL,
        title text NOT NULL,
        description text NOT NULL,
        scope_json text NOT NULL,
        tracker text,
        board_column text NOT NULL,
        column_set_by text NOT NULL,
        rank integer NOT NULL,
        review text NOT NULL,
        merged_commit text,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        removed boolean NOT NULL DEFAULT false,
        machine text NOT NULL,
        version bigint NOT NULL
      );
      CREATE INDEX cluster_tasks_version ON cluster_tasks (version);
      CREATE INDEX cluster_tasks_repo ON cluster_tasks (repo_key, board_column, rank);
      CREATE TABLE cluster_task_deps (
        task_id bigint NOT NULL REFERENCES cluster_tasks (id) ON DELETE CASCADE,
        after_id bigint NOT NULL,
        PRIMARY KEY (task_id, after_id)
      );
    `,
  },
  {
    version: 11,
    name: 'routine fires claimed once across the machines',
    sql: `CREATE TABLE routine_fires (
      repo_key text NOT NULL,
      routine text NOT NULL,
      fire_key text NOT NULL,
      machine text NOT NULL,
      at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (repo_key, routine, fire_key)
    );
    CREATE INDEX routine_fires_at ON routine_fires (at);`,
  },
];

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(
  pool: pg.Pool,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCKS.migrate]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS baton_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM baton_schema');
      const applied = new Set(rows.map((row) => row.version));
      const done: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO baton_schema (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(
            `migration ${migration.version} (${migration.name}) failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        done.push(migration.version);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.migrate]);
    }
  } finally {
    client.release();
  }
}
