/**
 * Plain substring search over the stored text of sessions' events — messages, reasoning, tool
 * calls and their results — newest first. The MCP server's `search` tool answers with it until the
 * full-text index (FTS5, ranked) is in place; then this module goes (decision 97).
 */
import type { Db } from './db.js';

export interface EventHit {
  sessionId: string;
  name: string;
  seq: number;
  ts: string;
  type: string;
  body: string;
}

const SEARCHED = [
  'message.added',
  'thinking.added',
  'tool.started',
  'tool.finished',
  'question.asked',
  'question.answered',
];

export class EventTextSearch {
  private readonly everywhere;
  private readonly inSession;

  constructor(db: Db) {
    const select = `SELECT e.session_id AS sessionId, s.name AS name, e.seq AS seq, e.ts AS ts, e.type AS type, e.body_json AS body
      FROM events e JOIN sessions s ON s.id = e.session_id
      WHERE e.type IN (${SEARCHED.map(() => '?').join(', ')}) AND s.removed_at IS NULL AND instr(lower(e.body_json), ?) > 0`;
    this.everywhere = db.prepare(`${select} ORDER BY e.ts DESC, e.seq DESC LIMIT ?`);
    this.inSession = db.prepare(`${select} AND e.session_id = ? ORDER BY e.seq DESC LIMIT ?`);
  }

  /** Events whose stored JSON holds `text` (case-insensitive), newest first. */
  find(text: string, limit: number, sessionId?: string): EventHit[] {
    // Matched against the stored JSON: quotes, backslashes and line breaks are escaped there as they are here.
    const needle = JSON.stringify(text.toLowerCase()).slice(1, -1);
    const rows =
      sessionId === undefined
        ? this.everywhere.all(...SEARCHED, needle, limit)
        : this.inSession.all(...SEARCHED, needle, sessionId, limit);
    return rows as EventHit[];
  }
}
