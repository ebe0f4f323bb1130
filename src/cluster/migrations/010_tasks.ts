/** PostgreSQL migration 10: the tasks of shared repositories, numbered from one sequence for every machine. */
export const name = 'the tasks of shared repositories, numbered from one sequence for every machine';

export const sql = `
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
`;
