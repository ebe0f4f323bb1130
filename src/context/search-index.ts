/**
 * The search index: FTS5 text (`search_fts`, BM25) with each row's filters in `search_docs`
 * under the same rowid. Events are indexed just after the transaction that stores them, in
 * batches of their own (decision 312): ingestion notes the session (`eventsStored`), and the
 * index catches up on the next turn of the event loop, or at once before a search, so a search
 * never lags the board. A watermark per session in `search_meta`, moved in the indexing
 * transaction, makes the catch-up exact after a crash (`catchUp` at the supervisor's start).
 * Decisions and notes come in through indexDocument. Text is redacted before it is indexed, so
 * no snippet can show a secret.
 */
import type { BatonEvent } from '../events/index.js';
import type { Db } from '../store/db.js';
import { searchableText, type SearchKind } from './extract.js';
import { ftsQuery, querySyntaxError } from './query.js';
import { redactSecrets } from './redact.js';

export interface SearchFilters {
  /** Project id. */
  projectId?: string | undefined;
  agent?: string | undefined;
  sessionId?: string | undefined;
  task?: string | undefined;
  /** ISO time: only what happened at or after it. */
  since?: string | undefined;
  kinds?: readonly SearchKind[] | undefined;
  limit?: number | undefined;
}

export interface SearchHit {
  source: 'event' | 'imported' | 'decision' | 'note';
  kind: SearchKind;
  sessionId: string | null;
  /** The event's seq in its session: where the session opens at this hit. */
  seq: number | null;
  docId: string | null;
  projectId: string | null;
  agent: string | null;
  taskId: string | null;
  ts: string;
  /** The matching words marked «like this». */
  snippet: string;
  /** BM25 score: lower is better (SQLite's sign). */
  score: number;
}

/** Who an event belongs to, for its filters. */
export interface EventOwner {
  sessionId: string;
  projectId: string | null;
  agent: string;
  taskId?: string | null;
  source?: 'event' | 'imported';
}

export interface DocumentMeta {
  projectId?: string | null;
  sessionId?: string | null;
  taskId?: string | null;
  agent?: string | null;
  ts?: string;
}

const DEFAULT_LIMIT = 20;
const SNIPPET_WORDS = 24;
/** Events indexed per transaction while catching up: a long backlog leaves the event loop between batches. */
const CATCH_UP_BATCH = 5_000;

export class SearchIndex {
  private readonly insertDoc;
  private readonly insertText;
  private readonly findDoc;
  private readonly deleteDoc;
  private readonly deleteText;
  private readonly recentMessages;
  private readonly watermark;
  private readonly setWatermark;
  private readonly eventsAfter;
  /** Sessions with events stored and not yet indexed. */
  private readonly behind = new Set<string>();
  private scheduled = false;

  constructor(readonly db: Db) {
    this.insertDoc = db.prepare(
      `INSERT OR IGNORE INTO search_docs (source, kind, session_id, seq, doc_id, project_id, agent, task_id, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertText = db.prepare('INSERT INTO search_fts (rowid, body) VALUES (?, ?)');
    this.findDoc = db.prepare('SELECT rowid FROM search_docs WHERE kind = ? AND doc_id = ?');
    this.deleteDoc = db.prepare('DELETE FROM search_docs WHERE rowid = ?');
    this.deleteText = db.prepare('DELETE FROM search_fts WHERE rowid = ?');
    this.recentMessages = db.prepare(
      `SELECT f.body AS body FROM search_docs d JOIN search_fts f ON f.rowid = d.rowid
       WHERE d.session_id = ? AND d.kind = 'message' AND d.seq < ? ORDER BY d.seq DESC LIMIT 3`,
    );
    // Before any watermark was kept, events were indexed in their own transaction: the last one
    // indexed stands for it (those after it with no text are looked at once more, and stay out).
    this.watermark = db.prepare(
      `SELECT coalesce(
         (SELECT CAST(value AS INTEGER) FROM search_meta WHERE key = 'indexed:' || @id),
         (SELECT max(seq) FROM search_docs WHERE session_id = @id AND source = 'event'),
         0) AS seq`,
    );
    this.setWatermark = db.prepare(
      "INSERT OR REPLACE INTO search_meta (key, value) VALUES ('indexed:' || ?, ?)",
    );
    this.eventsAfter = db.prepare(
      `SELECT e.seq, e.body_json, s.project_id, s.agent, s.task_id FROM events e JOIN sessions s ON s.id = e.session_id
       WHERE e.session_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
    );
  }

  /**
   * Notes that events of `sessionId` were stored: they are indexed on the next turn of the event
   * loop (after the storing transaction, off the ingestion path), or before the next search.
   */
  eventsStored(sessionId: string): void {
    this.behind.add(sessionId);
    this.schedule();
  }

  /** After a start: every session with events stored past its watermark (a crash before indexing) catches up. */
  catchUp(): number {
    const rows = this.db
      .prepare(
        `SELECT s.id FROM sessions s WHERE s.last_seq > coalesce(
           (SELECT CAST(value AS INTEGER) FROM search_meta WHERE key = 'indexed:' || s.id),
           (SELECT max(seq) FROM search_docs WHERE session_id = s.id AND source = 'event'),
           0)`,
      )
      .all() as { id: string }[];
    for (const row of rows) this.eventsStored(row.id);
    return rows.length;
  }

  /**
   * Indexes stored events not yet indexed, up to `limit` of them, in one transaction that also
   * moves each session's watermark. Returns how many events were looked at.
   */
  flush(limit = Number.POSITIVE_INFINITY): number {
    if (!this.db.open) {
      // Closed (the process is ending): the watermarks stay, and the next start catches up.
      // Forgetting who is behind also ends the scheduled looks, which would otherwise go on for ever.
      this.behind.clear();
      return 0;
    }
    if (this.behind.size === 0) return 0;
    let seen = 0;
    this.db.transaction(() => {
      for (const sessionId of [...this.behind]) {
        if (seen >= limit) return;
        const from = (this.watermark.get({ id: sessionId }) as { seq: number }).seq;
        const rows = this.eventsAfter.all(sessionId, from, Math.min(limit - seen, 1e9)) as {
          seq: number;
          body_json: string;
          project_id: string;
          agent: string;
          task_id: number | null;
        }[];
        for (const row of rows)
          this.indexEvent(
            {
              sessionId,
              projectId: row.project_id,
              agent: row.agent,
              taskId: row.task_id === null ? null : String(row.task_id),
            },
            JSON.parse(row.body_json) as BatonEvent,
          );
        seen += rows.length;
        if (rows.length > 0) this.setWatermark.run(sessionId, rows[rows.length - 1]!.seq);
        // Fewer than asked for: the session is caught up (events stored later note it again).
        if (seen < limit) this.behind.delete(sessionId);
      }
    })();
    return seen;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        this.flush(CATCH_UP_BATCH);
      } catch {
        // The database closed or refused: the watermark stays, and the next start catches up.
        this.behind.clear();
        return;
      }
      if (this.behind.size > 0) this.schedule();
    });
  }

  /** Indexes one event (nothing when it has no searchable text, or is indexed already). Call inside the storing transaction. */
  indexEvent(owner: EventOwner, event: BatonEvent): void {
    const found = searchableText(event);
    if (found === undefined) return;
    const text = redactSecrets(found.text);
    // A reply is its message and then its turn's prompt: indexed once.
    if (
      event.type === 'turn.started' &&
      (this.recentMessages.all(owner.sessionId, event.seq) as { body: string }[]).some((m) => m.body === text)
    )
      return;
    const result = this.insertDoc.run(
      owner.source ?? 'event',
      found.kind,
      owner.sessionId,
      event.seq,
      null,
      owner.projectId,
      owner.agent,
      owner.taskId ?? null,
      event.ts,
    );
    if (result.changes === 0) return;
    this.insertText.run(result.lastInsertRowid, text);
  }

  /** Indexes (or re-indexes) a decision or a note by its id. */
  indexDocument(kind: 'decision' | 'note', id: string, text: string, meta: DocumentMeta = {}): void {
    this.db.transaction(() => {
      this.removeDocument(kind, id);
      const result = this.insertDoc.run(
        kind,
        kind,
        meta.sessionId ?? null,
        null,
        id,
        meta.projectId ?? null,
        meta.agent ?? null,
        meta.taskId ?? null,
        meta.ts ?? new Date().toISOString(),
      );
      this.insertText.run(result.lastInsertRowid, redactSecrets(text));
    })();
  }

  removeDocument(kind: 'decision' | 'note', id: string): void {
    const row = this.findDoc.get(kind, id) as { rowid: number } | undefined;
    if (row === undefined) return;
    this.deleteText.run(row.rowid);
    this.deleteDoc.run(row.rowid);
  }

  /** Ranked hits (best first) for the user's words; throws InvalidInputError on a query FTS5 cannot read. */
  search(query: string, filters: SearchFilters = {}): SearchHit[] {
    const match = ftsQuery(query);
    this.flush();
    const where: string[] = ['search_fts MATCH ?'];
    const args: unknown[] = [match];
    const add = (clause: string, value: unknown): void => {
      where.push(clause);
      args.push(value);
    };
    if (filters.projectId !== undefined) add('d.project_id = ?', filters.projectId);
    if (filters.agent !== undefined) add('d.agent = ?', filters.agent);
    if (filters.sessionId !== undefined) add('d.session_id = ?', filters.sessionId);
    if (filters.task !== undefined) add('d.task_id = ?', filters.task);
    if (filters.since !== undefined) add('d.ts >= ?', filters.since);
    if (filters.kinds !== undefined && filters.kinds.length > 0) {
      where.push(`d.kind IN (${filters.kinds.map(() => '?').join(', ')})`);
      args.push(...filters.kinds);
    }
    args.push(filters.limit ?? DEFAULT_LIMIT);
    // Ranked first, with no snippet: a snippet per match (thousands for a common word) would
    // cost more than the ranking. Snippets are made for the page of hits only.
    const filtered = where.length > 1;
    const rankSql = filtered
      ? `SELECT d.rowid AS rowid, bm25(search_fts) AS score FROM search_fts JOIN search_docs d ON d.rowid = search_fts.rowid WHERE ${where.join(' AND ')} ORDER BY score LIMIT ?`
      : 'SELECT rowid, rank AS score FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT ?';
    let ranked: { rowid: number; score: number }[];
    try {
      ranked = this.db.prepare(rankSql).all(...args) as { rowid: number; score: number }[];
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/fts5|syntax error|no such column|unterminated string/i.test(message))
        throw querySyntaxError(query, message);
      throw error;
    }
    if (ranked.length === 0) return [];
    const marks = ranked.map(() => '?').join(', ');
    const rows = this.db
      .prepare(
        `SELECT d.rowid AS rowid, d.source, d.kind, d.session_id, d.seq, d.doc_id, d.project_id, d.agent, d.task_id, d.ts,
           snippet(search_fts, 0, '«', '»', '…', ${SNIPPET_WORDS}) AS snippet
         FROM search_fts JOIN search_docs d ON d.rowid = search_fts.rowid
         WHERE search_fts MATCH ? AND search_fts.rowid IN (${marks})`,
      )
      .all(match, ...ranked.map((r) => r.rowid)) as (HitRow & { rowid: number })[];
    const byRowid = new Map(rows.map((r) => [r.rowid, r]));
    return ranked.flatMap(({ rowid, score }) => {
      const r = byRowid.get(rowid);
      if (r === undefined) return [];
      return [
        {
          source: r.source,
          kind: r.kind,
          sessionId: r.session_id,
          seq: r.seq,
          docId: r.doc_id,
          projectId: r.project_id,
          agent: r.agent,
          taskId: r.task_id,
          ts: r.ts,
          snippet: r.snippet,
          score,
        },
      ];
    });
  }

  /** How many rows the index holds. */
  size(): number {
    this.flush();
    return (this.db.prepare('SELECT count(*) AS n FROM search_docs').get() as { n: number }).n;
  }

  /**
   * Indexes the events stored before the index existed (once: on the first start after the
   * migration), in batches, each in one transaction. Returns how many events were looked at.
   */
  backfill(batch = 20_000): number {
    if (this.db.prepare("SELECT 1 FROM search_meta WHERE key = 'backfilled'").get() !== undefined) return 0;
    const select = this.db.prepare(
      `SELECT e.session_id, e.seq, e.body_json, s.project_id, s.agent, s.task_id FROM events e JOIN sessions s ON s.id = e.session_id
       WHERE (e.session_id, e.seq) > (?, ?) ORDER BY e.session_id, e.seq LIMIT ?`,
    );
    let after: [string, number] = ['', 0];
    let seen = 0;
    for (;;) {
      const rows = select.all(after[0], after[1], batch) as {
        session_id: string;
        seq: number;
        body_json: string;
        project_id: string;
        agent: string;
        task_id: number | null;
      }[];
      if (rows.length === 0) break;
      this.db.transaction(() => {
        for (const row of rows)
          this.indexEvent(
            {
              sessionId: row.session_id,
              projectId: row.project_id,
              agent: row.agent,
              taskId: row.task_id === null ? null : String(row.task_id),
            },
            JSON.parse(row.body_json) as BatonEvent,
          );
      })();
      seen += rows.length;
      const last = rows[rows.length - 1]!;
      after = [last.session_id, last.seq];
    }
    this.db
      .prepare("INSERT OR REPLACE INTO search_meta (key, value) VALUES ('backfilled', ?)")
      .run(new Date().toISOString());
    return seen;
  }
}

interface HitRow {
  source: SearchHit['source'];
  kind: SearchKind;
  session_id: string | null;
  seq: number | null;
  doc_id: string | null;
  project_id: string | null;
  agent: string | null;
  task_id: string | null;
  ts: string;
  snippet: string;
}
