/**
 * The context domain's operations, as the API, the CLI and Baton's MCP server reach them:
 * a session's transcript (Baton's or imported), Markdown export, search, handoff and import.
 * Sessions are reached through `ContextSessions` (the session manager), never imported.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { DispatchRequest } from '../api/index.js';
import type { WorkspaceBus } from '../bus/index.js';
import type { BatonEvent } from '../events/index.js';
import { HandoffCreated, TranscriptsImported } from '../events/workspace.js';
import { InvalidInputError, SessionNotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Db } from '../store/db.js';
import type { SessionWithProject } from '../store/sessions.js';
import { ImportedSessionNotFoundError, NoTranscriptError } from './errors.js';
import { findImported, importedEvents, importedHead } from './imported.js';
import { importOpencode } from './import/opencode.js';
import { importTranscripts, type ImportReport } from './import/run.js';
import type { Vendor } from './import/types.js';
import { renderMarkdown } from './markdown.js';
import { buildHandoffPack, type HandoffPack, type RecordedDecision } from './pack.js';
import { keywords } from './pack-parts.js';
import { parseSince } from './query.js';
import type { SearchHit, SearchIndex } from './search-index.js';
import type { SearchKind } from './extract.js';
import {
  redactTranscript,
  transcriptFromEvents,
  type Transcript,
  type TranscriptHead,
} from './transcript.js';

export interface ContextSessions {
  /** Throws SessionNotFoundError when no live session matches. */
  resolve(ref: string, cwd?: string): SessionWithProject;
  /** A live session, else a removed (landed) one; throws SessionNotFoundError when neither matches. */
  resolveRecord?(ref: string, cwd?: string): SessionWithProject;
  get(id: string): SessionWithProject | undefined;
  eventsAfter(sessionId: string, after: number, limit?: number): BatonEvent[];
  /** The pack goes as the dispatch's `instructions`: kept in the session's private folder, added to Baton's own at every start. */
  dispatch(
    request: z.output<typeof DispatchRequest>,
    work?: undefined,
    /** The branch the session lands on, when it starts elsewhere (a handoff `--from-branch`). */
    baseRef?: string,
  ): Promise<SessionWithProject>;
}

export interface ContextServiceOptions {
  db: Db;
  search: SearchIndex;
  sessions: ContextSessions;
  bus: WorkspaceBus;
  /** Decisions recorded for a session's task (the tasks domain); none: the pack draws them from the transcript. */
  decisionsFor?: (sessionId: string) => RecordedDecision[];
  /** Another machine's session (a shared workspace): its transcript from the events it published, and this machine's checkout of its repository. */
  elsewhere?: ((ref: string, cwd?: string) => Promise<ElsewhereTranscript | undefined>) | undefined;
  clock?: () => Date;
}

export interface ElsewhereTranscript {
  head: TranscriptHead;
  events: BatonEvent[];
  /** This machine's checkout of the session's repository, when it has one. */
  root: string | undefined;
}

export interface SearchRequest {
  query: string;
  project?: string | undefined;
  agent?: string | undefined;
  session?: string | undefined;
  task?: string | undefined;
  since?: string | undefined;
  kinds?: SearchKind[] | undefined;
  limit?: number | undefined;
  cwd?: string | undefined;
}

/** A hit with the session's name, so a reader can open the session at `seq`. */
export type NamedHit = SearchHit & { sessionName: string | null };

export interface HandoffRequest {
  from: string;
  to: string;
  task: string;
  budgetTokens?: number | undefined;
  cwd?: string | undefined;
  model?: string | undefined;
  name?: string | undefined;
  permissionMode?: z.output<typeof DispatchRequest>['permissionMode'] | undefined;
  /** Start on the source's branch, or its landed commit once landed (decision 231). */
  fromBranch?: boolean | undefined;
}

export interface HandoffLink {
  handoffId: string;
  from: string;
  to: string;
  agent: string;
  task: string;
  packTokens: number;
  createdAt: string;
}

/** The items of a pack's decisions section (recorded or drawn from the transcript). */
function decisionLines(pack: string): string[] {
  const section = /^## Decisions[^\n]*\n\n((?:- [^\n]*\n)+)/m.exec(pack);
  if (section === null) return [];
  return section[1]!
    .split('\n')
    .filter((l) => l.startsWith('- ') && !l.startsWith('- ('))
    .map((l) => l.slice(2));
}

export class ContextService {
  private readonly db: Db;
  private readonly clock: () => Date;

  constructor(private readonly options: ContextServiceOptions) {
    this.db = options.db;
    this.clock = options.clock ?? (() => new Date());
  }

  /** A session's normalized transcript, Baton's or imported (not yet redacted: exports redact). */
  transcriptOf(ref: string, cwd?: string): Transcript {
    const session = this.findSession(ref, cwd);
    if (session !== undefined) {
      return transcriptFromEvents(
        {
          sessionId: session.id,
          name: session.name,
          agent: session.agent,
          origin: 'baton',
          prompt: session.prompt,
          cwd: session.worktree,
          startedAt: session.created_at,
        },
        this.allEvents(session.id),
      );
    }
    const imported = findImported(this.db, ref);
    if (imported === undefined) throw new ImportedSessionNotFoundError(ref);
    const events = importedEvents(this.db, imported.id);
    const first = events.find((e) => e.type === 'message.added' && e.role === 'user');
    return transcriptFromEvents(
      importedHead(imported, first?.type === 'message.added' ? first.text : undefined),
      events,
    );
  }

  /** The redacted transcript, as JSON, Markdown, or written into the repository's `.baton/transcripts/`. */
  /** A transcript of this machine (its own session, or an imported one), else of another machine's session. */
  async transcriptAnywhere(
    ref: string,
    cwd?: string,
  ): Promise<{ transcript: Transcript; root: string | undefined }> {
    try {
      const transcript = this.transcriptOf(ref, cwd);
      return { transcript, root: this.findSession(ref, cwd)?.project_root };
    } catch (error) {
      if (!(error instanceof ImportedSessionNotFoundError) || this.options.elsewhere === undefined)
        throw error;
      const found = await this.options.elsewhere(ref, cwd);
      if (found === undefined) throw error;
      return { transcript: transcriptFromEvents(found.head, found.events), root: found.root };
    }
  }

  async exportTranscript(
    ref: string,
    options: { cwd?: string; toRepo?: boolean } = {},
  ): Promise<{ transcript: Transcript; markdown: string; path: string | null }> {
    const { transcript, root: checkout } = await this.transcriptAnywhere(ref, options.cwd);
    const markdown = renderMarkdown(transcript);
    let path: string | null = null;
    if (options.toRepo === true) {
      const root = checkout ?? transcript.cwd;
      if (root === null)
        throw new InvalidInputError(`Session ${transcript.name} has no repository to write into.`);
      const dir = join(root, '.baton', 'transcripts');
      mkdirSync(dir, { recursive: true });
      path = join(dir, `${transcript.name.replace(/[^A-Za-z0-9._-]/g, '-')}.md`);
      writeFileSync(path, markdown);
    }
    return { transcript: redactTranscript(transcript), markdown, path };
  }

  search(request: SearchRequest): NamedHit[] {
    const session =
      request.session === undefined ? undefined : this.sessionIdOf(request.session, request.cwd);
    const hits = this.options.search.search(request.query, {
      projectId: request.project === undefined ? undefined : this.projectId(request.project),
      agent: request.agent,
      sessionId: session,
      task: request.task,
      since: request.since === undefined ? undefined : parseSince(request.since, this.clock()),
      kinds: request.kinds,
      limit: request.limit,
    });
    return hits.map((hit) => ({
      ...hit,
      sessionName:
        hit.sessionId === null ? null : (this.options.sessions.get(hit.sessionId)?.name ?? hit.sessionId),
    }));
  }

  /** The pack alone, for a look before starting anything. */
  async pack(
    request: Omit<HandoffRequest, 'name' | 'model' | 'permissionMode'>,
  ): Promise<{ transcript: Transcript; pack: HandoffPack; root: string | undefined }> {
    const { transcript, root } = await this.transcriptAnywhere(request.from, request.cwd);
    if (transcript.entries.length === 0) throw new NoTranscriptError(transcript.name);
    const words = keywords(request.task);
    let relevant: number[] = [];
    if (words.length > 0) {
      relevant = this.options.search
        .search(words.join(' OR '), { sessionId: transcript.sessionId, limit: 30 })
        .flatMap((h) => (h.seq === null ? [] : [h.seq]));
    }
    // Decisions a handoff brought into this session travel on: a chain keeps the first one's.
    const carried = this.carriedDecisions(transcript.sessionId);
    const decisions = this.options.decisionsFor?.(transcript.sessionId) ?? [];
    const pack = buildHandoffPack({
      transcript,
      task: request.task,
      toAgent: request.to,
      budgetTokens: request.budgetTokens,
      decisions,
      carried,
      relevant,
    });
    return { transcript, pack, root };
  }

  /** Starts a session of `to` carrying the pack of `from` in its instructions, and links the two. */
  async handoff(
    request: HandoffRequest,
  ): Promise<{ session: SessionWithProject; pack: HandoffPack; handoffId: string }> {
    const { transcript, pack, root } = await this.pack(request);
    // The source's repository here (another machine's: this machine's checkout of it), else where the request came from.
    const cwd = root ?? request.cwd ?? transcript.cwd;
    if (cwd === null || cwd === undefined)
      throw new InvalidInputError(
        `Session ${transcript.name} has no repository; run the handoff from inside one.`,
      );
    const start = request.fromBranch === true ? this.startPoint(request.from, request.cwd) : undefined;
    const base = start?.commit;
    const session = await this.options.sessions.dispatch(
      {
        prompt: request.task,
        cwd,
        ...(base === undefined ? {} : { base }),
        agent: request.to,
        permissionMode: request.permissionMode ?? 'default',
        options: {},
        ...(request.name === undefined ? {} : { name: request.name }),
        ...(request.model === undefined ? {} : { model: request.model }),
        instructions: pack.text,
      },
      undefined,
      start?.landsOn,
    );
    const handoffId = newId();
    this.db
      .prepare(
        'INSERT INTO handoffs (id, from_session, to_session, agent, task, budget_tokens, pack_tokens, source_tokens, pack_text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        handoffId,
        transcript.sessionId,
        session.id,
        session.agent,
        request.task,
        pack.budgetTokens,
        pack.tokens,
        pack.sourceTokens,
        pack.text,
        this.clock().toISOString(),
      );
    this.options.bus.publish(HandoffCreated, {
      handoffId,
      from: { sessionId: transcript.sessionId, name: transcript.name, agent: transcript.agent },
      to: { sessionId: session.id, name: session.name, agent: session.agent },
      packTokens: pack.tokens,
      budgetTokens: pack.budgetTokens,
    });
    return { session, pack, handoffId };
  }

  /** Handoffs into and out of a session. */
  handoffsOf(sessionId: string): { from: HandoffLink[]; to: HandoffLink[] } {
    const rows = (column: 'from_session' | 'to_session'): HandoffLink[] =>
      (
        this.db
          .prepare(
            `SELECT id, from_session, to_session, agent, task, pack_tokens, created_at FROM handoffs WHERE ${column} = ? ORDER BY created_at`,
          )
          .all(sessionId) as {
          id: string;
          from_session: string;
          to_session: string;
          agent: string;
          task: string;
          pack_tokens: number;
          created_at: string;
        }[]
      ).map((r) => ({
        handoffId: r.id,
        from: this.nameOf(r.from_session),
        to: this.nameOf(r.to_session),
        agent: r.agent,
        task: r.task,
        packTokens: r.pack_tokens,
        createdAt: r.created_at,
      }));
    return { from: rows('to_session'), to: rows('from_session') };
  }

  /**
   * Imports native transcripts from the given roots (Claude's `projects/`, Codex's `sessions/`,
   * Gemini CLI's `tmp/`, opencode's data folder with its `opencode.db`).
   */
  importNative(roots: Partial<Record<Vendor, string>>): ImportReport[] {
    const reports: ImportReport[] = [];
    for (const vendor of ['claude', 'codex', 'gemini', 'opencode'] as const) {
      const root = roots[vendor];
      if (root === undefined) continue;
      const report =
        vendor === 'opencode'
          ? importOpencode(this.db, this.options.search, root)
          : importTranscripts(this.db, this.options.search, vendor, root);
      reports.push(report);
      if (report.events > 0)
        this.options.bus.publish(TranscriptsImported, {
          vendor,
          files: report.filesRead,
          sessions: report.sessions,
          events: report.events,
        });
    }
    return reports;
  }

  /**
   * Where a handoff `--from-branch` starts (decision 231): a live session's branch; once it has
   * landed, the commit it landed as; once removed without landing, its snapshot ref.
   */
  private startPoint(ref: string, cwd: string | undefined): { commit: string; landsOn: string } {
    const session = this.findSession(ref, cwd);
    if (session === undefined)
      throw new InvalidInputError(
        `--from-branch needs a session of this machine with a branch; "${ref}" has none here (an imported or another machine's session).`,
      );
    // The new session starts on the source's work and lands where the source lands.
    const landsOn = session.base_ref;
    if (session.removed_at === null) return { commit: session.branch, landsOn };
    const landed = this.db
      .prepare(
        `SELECT json_extract(result_json, '$.commit') AS landed FROM merge_journal
         WHERE step = 'finished' AND json_extract(result_json, '$.outcome') = 'landed'
           AND json_extract(result_json, '$.commit') IS NOT NULL
           AND EXISTS (SELECT 1 FROM json_each(sessions_json) WHERE json_extract(value, '$.sessionId') = ?)
         ORDER BY finished_at DESC LIMIT 1`,
      )
      .get(session.id) as { landed: string } | undefined;
    if (landed !== undefined) return { commit: landed.landed, landsOn };
    if (session.snapshot_ref !== null) return { commit: session.snapshot_ref, landsOn };
    throw new InvalidInputError(
      `Session ${session.name} was removed without landing and left no snapshot: there is no branch to start from. Hand off without --from-branch.`,
    );
  }

  /** The decisions of the packs that started `sessionId`, as recorded decisions of its own. */
  private carriedDecisions(sessionId: string): RecordedDecision[] {
    const rows = this.db
      .prepare('SELECT from_session, pack_text FROM handoffs WHERE to_session = ? ORDER BY created_at')
      .all(sessionId) as { from_session: string; pack_text: string }[];
    return rows.flatMap((row) =>
      decisionLines(row.pack_text).map((line) => ({
        title: / \(from [^)]*\)$/.test(line) ? line : `${line} (from ${this.nameOf(row.from_session)})`,
      })),
    );
  }

  private findSession(ref: string, cwd?: string): SessionWithProject | undefined {
    const { sessions } = this.options;
    try {
      // A landed session's transcript and decisions are read as any other's (decision 168).
      return sessions.resolveRecord !== undefined
        ? sessions.resolveRecord(ref, cwd)
        : sessions.resolve(ref, cwd);
    } catch (error) {
      if (error instanceof SessionNotFoundError) return undefined;
      throw error;
    }
  }

  private sessionIdOf(ref: string, cwd?: string): string {
    const session = this.findSession(ref, cwd);
    if (session !== undefined) return session.id;
    const imported = findImported(this.db, ref);
    if (imported === undefined) throw new ImportedSessionNotFoundError(ref);
    return imported.id;
  }

  private nameOf(sessionId: string): string {
    return this.options.sessions.get(sessionId)?.name ?? sessionId;
  }

  private projectId(project: string): string {
    const row = this.db
      .prepare('SELECT id FROM projects WHERE name = ? OR root = ?')
      .get(project, project) as { id: string } | undefined;
    if (row === undefined)
      throw new InvalidInputError(
        `No project "${project}": give a project's name or root folder (\`baton ls\` shows them).`,
      );
    return row.id;
  }

  private allEvents(sessionId: string): BatonEvent[] {
    const out: BatonEvent[] = [];
    for (let after = 0; ;) {
      const page = this.options.sessions.eventsAfter(sessionId, after, 10_000);
      out.push(...page);
      if (page.length < 10_000) return out;
      after = page[page.length - 1]!.seq;
    }
  }
}
