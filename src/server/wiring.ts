/**
 * The domains wired to one another, in the one place allowed to know them all (the supervisor):
 * tasks' decisions and notes into search and handoff packs, tasks and search into the agents'
 * MCP tools, a session's task and scope into the watchdog, other machines' sessions into the
 * radar and the review.
 */
import type { WorkspaceBus } from '../bus/index.js';
import type { ContextService, SearchIndex } from '../context/index.js';
import type { McpWorkspace } from '../mcp/index.js';
import { onlyHere } from '../merge/index.js';
import { NO_PEER_SESSIONS } from './routes/remote-sessions.js';
import type { SessionManager } from '../sessions/index.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { TaskService } from '../tasks/index.js';
import type { Db } from '../store/db.js';
import type { Peers, RemoteSessions } from '../cluster/index.js';

const log = createLogger('supervisor');

/** Every decision and note a task records is searchable at once (and a handoff pack keeps it). */
export function indexTaskEntries(bus: WorkspaceBus, search: SearchIndex, tasks: TaskService): () => void {
  return bus.subscribe((event) => {
    if (event.type !== 'task.decided' && event.type !== 'task.noted') return;
    try {
      const task = tasks.get(event.data.taskId);
      search.indexDocument(
        event.type === 'task.decided' ? 'decision' : 'note',
        event.data.file,
        event.data.text,
        { projectId: task.project_id, taskId: String(task.id), ts: event.ts },
      );
    } catch (error) {
      log.warn('a task entry was not indexed', { file: event.data.file, error: errorMessage(error) });
    }
  });
}

/** The decisions recorded for a session's task, read from the repository's `.baton/decisions/`. */
export function decisionsOf(
  manager: SessionManager,
  tasks: TaskService,
): (sessionId: string) => { id: string; title: string; text: string }[] {
  return (sessionId) => {
    const taskId = manager.get(sessionId)?.task_id;
    if (taskId === null || taskId === undefined) return [];
    const task = tasks.get(taskId);
    return tasks.files
      .read(task.project_root, 'decisions', task.id)
      .map((d) => ({ id: d.file, title: d.text.split('\n')[0] ?? d.file, text: d.text }));
  };
}

/** Search, decisions and notes, and new tasks, for the agents' MCP tools. */
export function mcpWorkspace(context: ContextService, tasks: TaskService): McpWorkspace {
  return {
    search: (query, limit, sessionId) =>
      context
        .search({ query, limit, ...(sessionId === undefined ? {} : { session: sessionId }) })
        .flatMap((hit) =>
          hit.sessionId === null || hit.seq === null
            ? []
            : [
                {
                  sessionId: hit.sessionId,
                  name: hit.sessionName ?? hit.sessionId,
                  seq: hit.seq,
                  ts: hit.ts,
                  type: hit.kind,
                  snippet: hit.snippet,
                },
              ],
        ),
    entry: (taskId, kind, text) => tasks.entry(String(taskId), kind, text).file,
    listTasks: async (root, limit) => {
      const board = await tasks.board(root === undefined ? { all: 'true' } : { project: root }, undefined);
      return board.columns
        .flatMap((c) => c.tasks)
        .slice(0, limit)
        .map((task) => ({
          id: task.id,
          kind: 'task' as const,
          ts: task.createdAt,
          author: { sessionId: null, name: 'the board' },
          project: task.projectRoot,
          title: `[${task.column.replace(/_/g, ' ')}] ${task.title}`,
          text: task.description,
        }));
    },
    createTask: async (root, title, description) => {
      const { task } = await tasks.add(
        { title, description, scope: [], after: [], column: 'backlog', project: root, force: false },
        undefined,
      );
      return { id: task.id, title: task.title };
    },
  };
}

/** A session's task (its number, as the cost report groups it) and its scope, for the watchdog. */
export function taskLookups(
  manager: SessionManager,
  tasks: TaskService,
): { taskOf: (id: string) => string | undefined; scopeOf: (id: string) => string[] | undefined } {
  const taskIdOf = (id: string): number | undefined => manager.get(id)?.task_id ?? undefined;
  return {
    taskOf: (id) => {
      const taskId = taskIdOf(id);
      return taskId === undefined ? undefined : `#${taskId}`;
    },
    scopeOf: (id) => {
      const taskId = taskIdOf(id);
      if (taskId === undefined) return undefined;
      const scope = JSON.parse(tasks.get(taskId).scope_json) as string[];
      return scope.length === 0 ? undefined : scope;
    },
  };
}

/**
 * The other machines, as this machine's domains see them (decision 210, "Other machines behind one
 * port"): joined through src/cluster when the workspace is shared — loading none of it otherwise —
 * and on one machine the same port with nothing behind it: merges are this machine's sessions,
 * replies go to them, no handover is served and no other machine's work is read.
 */
export async function peersOf(
  manager: SessionManager,
  remote: () => RemoteSessions | undefined,
  db: Db,
  home: string,
): Promise<Peers> {
  if (remote() === undefined) return alone(manager);
  const { joinPeers } = await import('../cluster/index.js');
  return joinPeers(manager, remote, db, home);
}

function alone(manager: SessionManager): Peers {
  return {
    snapshots: undefined,
    sessions: NO_PEER_SESSIONS,
    tracked: undefined,
    transcript: undefined,
    reply: (id, text) => manager.reply(id, text),
    merges: onlyHere(manager),
    serveHandovers: () => {},
    close: () => {},
  };
}
