/**
 * The supervisor's side of Baton's MCP server: what an agent's calls do, acting for the caller —
 * a session (by its credential) or, with the user's token, an MCP client outside Baton. It takes
 * the sessions domain through an interface (`McpSessions`), as the radar does, and publishes what
 * agents record on the workspace bus.
 */
import type {
  AgentAuthor,
  AgentRecordView,
  AskView,
  CallerView,
  MessageView,
  SearchView,
} from '../api/mcp.js';
import type { SessionView } from '../api/index.js';
import type { WorkspaceBus } from '../bus/index.js';
import {
  AgentDecisionRecorded,
  AgentNoteAdded,
  AgentTaskCreated,
  SessionMessageSent,
  type WorkspaceEvent,
} from '../events/workspace.js';
import { ForbiddenError, InternalError, InvalidInputError } from '../shared/errors.js';
import type { Db } from '../store/db.js';
import { EventTextSearch } from '../store/event-search.js';
import type { SessionWithProject } from '../store/sessions.js';

/** What the MCP service needs of the sessions domain (the SessionManager has it). */
export interface McpSessions {
  resolve(ref: string, cwd?: string): SessionWithProject;
  view(session: SessionWithProject): SessionView;
  ask(sessionId: string, text: string): Promise<SessionWithProject>;
  message(
    ref: string,
    text: string,
    from: AgentAuthor,
    cwd?: string,
  ): Promise<{ session: SessionWithProject; delivery: MessageView['delivery'] }>;
}

/**
 * The rest of the workspace, when the supervisor has it: full-text search (src/context) and the
 * tasks domain (src/tasks). Without it, search is a plain text match over the events and records
 * are workspace events only.
 */
export interface McpWorkspace {
  search(query: string, limit: number, sessionId: string | undefined): SearchView['hits'];
  /** Writes a decision or note of the task into the repository's `.baton/`; returns the file. */
  entry(taskId: number, kind: 'decisions' | 'notes', text: string): string;
  createTask(projectRoot: string, title: string, description: string): Promise<{ id: number; title: string }>;
  /** The board's tasks (of one repository, or all), as records. */
  listTasks(projectRoot: string | undefined, limit: number): Promise<AgentRecordView[]>;
}

export interface McpServiceOptions {
  sessions: McpSessions;
  bus: WorkspaceBus;
  /** The store, for search; without it search says it is unavailable. */
  db?: Db | undefined;
  workspace?: McpWorkspace | undefined;
}

/** How an MCP client outside Baton (the user's token) is named as an author. */
const OUTSIDE: AgentAuthor = { sessionId: null, name: 'an MCP client outside Baton' };
const SNIPPET_CHARS = 160;

type RecordKind = AgentRecordView['kind'];
type RecordEvent = Extract<
  WorkspaceEvent,
  { type: 'agent.decision_recorded' | 'agent.note_added' | 'agent.task_created' }
>;

export class McpService {
  private search: EventTextSearch | undefined;

  constructor(private readonly options: McpServiceOptions) {}

  me(caller: string | undefined): CallerView {
    const { sessions } = this.options;
    return { session: caller === undefined ? null : sessions.view(sessions.resolve(caller)) };
  }

  /** The caller's session asks its user; the answer is followed in the session's events after `after`. */
  async ask(caller: string | undefined, question: string): Promise<AskView> {
    if (caller === undefined)
      throw new InvalidInputError(
        'Asking the user works only from a session Baton started (its MCP server has the session’s credential); outside Baton, ask your user yourself.',
      );
    const before = this.options.sessions.resolve(caller);
    await this.options.sessions.ask(caller, question);
    return { sessionId: before.id, name: before.name, after: before.last_seq };
  }

  async message(
    caller: string | undefined,
    to: string,
    text: string,
    cwd: string | undefined,
  ): Promise<MessageView> {
    const from = this.author(caller);
    if (caller !== undefined) {
      // A session's agent speaks to the sessions of its own repository only: a prompt injected
      // into one repository's work must not steer another's (decision 178). The user (the token) may.
      const sender = this.options.sessions.resolve(caller);
      const target = this.options.sessions.resolve(to, cwd ?? sender.worktree);
      if (target.project_id !== sender.project_id)
        throw new ForbiddenError(
          `${target.name} works in another repository (${target.project_name}); a session may message the sessions of its own repository only.`,
        );
    }
    const { session, delivery } = await this.options.sessions.message(to, text, from, cwd);
    this.options.bus.publish(SessionMessageSent, {
      from,
      to: { sessionId: session.id, name: session.name, project: session.project_name },
      text,
      delivery,
    });
    return { to: this.options.sessions.view(session), delivery };
  }

  find(query: string, limit: number, sessionRef: string | undefined, cwd: string | undefined): SearchView {
    const { db, sessions, workspace } = this.options;
    if (workspace !== undefined)
      return {
        query,
        hits: workspace.search(
          query,
          limit,
          sessionRef === undefined ? undefined : sessions.resolve(sessionRef, cwd).id,
        ),
      };
    if (db === undefined) throw new InternalError('Search is not available in this process (no store).');
    this.search ??= new EventTextSearch(db);
    const sessionId = sessionRef === undefined ? undefined : sessions.resolve(sessionRef, cwd).id;
    const hits = this.search
      .find(query, limit, sessionId)
      .map((hit) => ({ ...hit, snippet: snippet(hit.body, query) }));
    return { query, hits: hits.map(({ body: _body, ...hit }) => hit) };
  }

  async record(
    caller: string | undefined,
    kind: RecordKind,
    fields: { title?: string; text: string },
  ): Promise<AgentRecordView> {
    const author = this.author(caller);
    const session = caller === undefined ? undefined : this.options.sessions.resolve(caller);
    const project = session?.project_root ?? null;
    const { bus, workspace } = this.options;
    const title = fields.title ?? firstLine(fields.text);
    // Into the tasks domain when it is there: a decision or note of the session's task becomes a
    // file in the repository's .baton/ (so every agent and person reads it), a task a card.
    if (
      workspace !== undefined &&
      kind !== 'task' &&
      session?.task_id !== null &&
      session?.task_id !== undefined
    ) {
      const file = workspace.entry(
        session.task_id,
        kind === 'decision' ? 'decisions' : 'notes',
        kind === 'decision' ? `${title}\n\n${fields.text}` : fields.text,
      );
      fields = { ...fields, text: `${fields.text}\n\n(recorded for task ${session.task_id} in ${file})` };
    }
    if (workspace !== undefined && kind === 'task' && project !== null) {
      const made = await workspace.createTask(project, title, fields.text);
      fields = {
        ...fields,
        text: `${fields.text}${fields.text === '' ? '' : '\n\n'}(task ${made.id} on the board)`,
      };
    }
    const event =
      kind === 'decision'
        ? bus.publish(AgentDecisionRecorded, { author, project, title, text: fields.text })
        : kind === 'note'
          ? bus.publish(AgentNoteAdded, { author, project, text: fields.text })
          : bus.publish(AgentTaskCreated, { author, project, title, description: fields.text });
    return recordView(event as RecordEvent);
  }

  /** The board's tasks of the caller's repository when the tasks domain is there; else the tasks agents created. */
  async tasks(caller: string | undefined, limit: number): Promise<AgentRecordView[]> {
    const { workspace, sessions } = this.options;
    if (workspace === undefined) return this.records('task', limit);
    return workspace.listTasks(
      caller === undefined ? undefined : sessions.resolve(caller).project_root,
      limit,
    );
  }

  records(kind: 'decision' | 'task', limit: number): AgentRecordView[] {
    const type = kind === 'decision' ? AgentDecisionRecorded.type : AgentTaskCreated.type;
    return this.options.bus.latestOfType(type, limit).map((event) => recordView(event));
  }

  private author(caller: string | undefined): AgentAuthor {
    if (caller === undefined) return OUTSIDE;
    const session = this.options.sessions.resolve(caller);
    return { sessionId: session.id, name: session.name };
  }
}

function recordView(event: RecordEvent): AgentRecordView {
  const base = { id: event.seq, ts: event.ts, author: event.data.author, project: event.data.project };
  switch (event.type) {
    case 'agent.decision_recorded':
      return { ...base, kind: 'decision', title: event.data.title, text: event.data.text };
    case 'agent.note_added':
      return { ...base, kind: 'note', title: firstLine(event.data.text), text: event.data.text };
    case 'agent.task_created':
      return { ...base, kind: 'task', title: event.data.title, text: event.data.description };
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** The words around the first match, from the event's text fields (not its JSON). */
export function snippet(body: string, query: string): string {
  const text = textOf(JSON.parse(body) as Record<string, unknown>);
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (at === -1) return text.slice(0, SNIPPET_CHARS);
  const start = Math.max(0, at - SNIPPET_CHARS / 2);
  const end = Math.min(text.length, at + query.length + SNIPPET_CHARS / 2);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

function textOf(event: Record<string, unknown>): string {
  return ['text', 'input', 'output', 'tool', 'error']
    .map((key) => event[key])
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .join(' · ')
    .replace(/\s+/g, ' ');
}
