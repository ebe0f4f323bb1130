/**
 * A mark that moves whenever a task's card may have changed (decision 420): a count kept by
 * temporary triggers on this connection's writes to what a card is built from (tasks, their
 * dependencies, projects, and the shown columns of sessions started from tasks), and SQLite's
 * `data_version`, which moves when another connection commits. Equal marks mean the same cards, so
 * the tasks board built from them is kept until the mark moves.
 *
 * The triggers are TEMP: they live with the connection, so no migration adds them and no other
 * process pays for them. A session's own bookkeeping (its activity, tokens, last event) leaves the
 * mark alone: the board of a busy workspace stays kept while its cards stay the same.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

const BUMP = 'BEGIN UPDATE board_mark SET n = n + 1; END';
const SESSION_SHOWN = ['id', 'name', 'agent', 'state', 'removed_at', 'task_id', 'project_id'];

const SETUP = `
CREATE TEMP TABLE IF NOT EXISTS board_mark (n INTEGER NOT NULL);
INSERT INTO board_mark (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM board_mark);
${['tasks', 'task_dependencies', 'projects']
  .flatMap((table) =>
    ['INSERT', 'UPDATE', 'DELETE'].map(
      (op) =>
        `CREATE TEMP TRIGGER IF NOT EXISTS board_mark_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table} ${BUMP};`,
    ),
  )
  .join('\n')}
CREATE TEMP TRIGGER IF NOT EXISTS board_mark_sessions_insert AFTER INSERT ON main.sessions
  WHEN NEW.task_id IS NOT NULL ${BUMP};
CREATE TEMP TRIGGER IF NOT EXISTS board_mark_sessions_delete AFTER DELETE ON main.sessions
  WHEN OLD.task_id IS NOT NULL ${BUMP};
CREATE TEMP TRIGGER IF NOT EXISTS board_mark_sessions_update AFTER UPDATE ON main.sessions
  WHEN (OLD.task_id IS NOT NULL OR NEW.task_id IS NOT NULL)
   AND (${SESSION_SHOWN.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ')}) ${BUMP};
`;

/**
 * Each connection's two reads, prepared once: the mark is read on every board load, and preparing
 * them again each time was most of its cost (decision 465).
 */
const reads = new WeakMap<Db, { written: Statement; version: Statement }>();

export function boardMark(db: Db): string {
  let read = reads.get(db);
  if (read === undefined) {
    db.exec(SETUP);
    read = {
      written: db.prepare('SELECT n FROM board_mark').pluck(),
      version: db.prepare('PRAGMA data_version').pluck(),
    };
    reads.set(db, read);
  }
  return `${read.version.get() as number}:${read.written.get() as number}`;
}
