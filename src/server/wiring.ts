/**
 * The domains wired to one another, in the one place allowed to know them all (the supervisor):
 * tasks' decisions and notes into search and handoff packs, tasks and search into the agents'
 * MCP tools, a session's task and scope into the watchdog, other machines' sessions into the
 * radar and the review.
 */
import type { WorkspaceBus } from '../bus/index.js';
import type { ContextService } from '../context/index.js';
import type { SearchIndex } from '../context/search-index.js';
import type { McpWorkspace } from '../mcp/service.js';
import type { SessionManager } from '../sessions/manager.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { TaskService } from '../tasks/index.js';
import type { ElsewhereSnapshots } from '../radar/index.js';
import type { Db } from '../store/db.js';
import type { RemoteSessions } from './cluster-sessions.js';
import type { MergeSessions } from '../merge/index.js';
import type { SyncService } from '../sync/index.js';
import type { ElsewhereTranscript } from '../context/index.js';
import type { BatonEvent } from '../events/index.js';

/** Another machine's events are read for a transcript this many at a time. */
const EVENTS_PAGE = 1_000;

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
 * Other machines' sessions in this machine's radar, review and merge queue, review comments sent
 * to them through their machines, and this machine's sessions handed over to the others' merges.
 */
export interface OtherMachinesWork {
  snapshots: ElsewhereSnapshots;
  reply: (sessionId: string, text: string) => Promise<unknown>;
  /** The merge queue's sessions: this machine's and the ones brought from others (decision 143). */
  merges: MergeSessions;
  /** Once sync runs: another machine's merge of one of this machine's sessions gets it committed and pushed. */
  serveHandovers(sync: SyncService): void;
  /** Another machine's session as the context domain reads one: its published events, and this machine's checkout of its repository. */
  transcript: (ref: string, cwd?: string) => Promise<ElsewhereTranscript | undefined>;
  close(): void;
}

/**
 * One `ElsewhereWork` read for the radar and the review when the workspace is shared (decision 127, "A
 * shared workspace in the supervisor"); undefined when this machine is alone, which then loads none of
 * it.
 */
export async function otherMachinesWork(
  manager: SessionManager,
  remote: () => RemoteSessions | undefined,
  db: Db,
  home: string,
): Promise<OtherMachinesWork | undefined> {
  if (remote() === undefined) return undefined;
  const [{ ElsewhereWork }, { replyAnywhere, watchElsewhere }, { handOver, WorkspaceMergeSessions }] =
    await Promise.all([
      import('./cluster-work.js'),
      import('./cluster-elsewhere.js'),
      import('./cluster-merge.js'),
    ]);
  const work = new ElsewhereWork(remote, db, home);
  const watched = watchElsewhere(work, manager.bus);
  return {
    snapshots: watched.snapshots,
    reply: replyAnywhere(manager, remote),
    merges: new WorkspaceMergeSessions(
      manager,
      work,
      remote,
      home,
      (id) => (manager.bus.latestRelayedAbout('sync.pushed', id) as { commit?: string } | undefined)?.commit,
      async () => (await watched.snapshots.read()).tracked,
    ),
    serveHandovers: (sync) => remote()?.serveHandover((session) => handOver(session, manager, sync)),
    transcript: async (ref, cwd) => {
      const sessions = remote();
      const view = sessions?.find(ref);
      if (sessions === undefined || view === undefined) return undefined;
      const events: BatonEvent[] = [];
      for (
        let page = await sessions.events(view, 0, EVENTS_PAGE);
        page.length > 0;
        page = await sessions.events(view, page.at(-1)!.seq, EVENTS_PAGE)
      )
        events.push(...page);
      const project = view.repo === undefined ? undefined : await work.projectOf(view.repo, cwd);
      const head = {
        sessionId: view.id,
        name: view.name,
        agent: view.agent,
        origin: 'baton' as const,
        prompt: view.prompt,
        cwd: view.worktree,
        startedAt: view.createdAt,
      };
      return { head, events, root: project?.root };
    },
    close: () => watched.close(),
  };
}
