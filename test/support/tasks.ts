/** Task tests: adding tasks through the binary and waiting on workspace events. */
import type { TaskCard } from '../../src/api/tasks.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { TestBaton } from './baton.js';

export async function addTask(baton: TestBaton, repo: string, title: string, ...flags: string[]): Promise<TaskCard> {
  return (await baton.json<{ task: TaskCard }>(['task', 'add', title, ...flags], { cwd: repo })).task;
}

export async function card(baton: TestBaton, repo: string, id: number): Promise<TaskCard> {
  return (await baton.json<{ task: TaskCard }>(['task', 'show', String(id)], { cwd: repo })).task;
}

/** The first workspace event (replayed or live) that matches, or a timeout listing what was seen. */
export async function workspaceEvent(baton: TestBaton, match: (event: WorkspaceEvent) => boolean, timeoutMs = 30_000): Promise<WorkspaceEvent> {
  const controller = new AbortController();
  const seen: string[] = [];
  let found: WorkspaceEvent | undefined;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await baton.client().followWorkspace(0, (event) => {
      seen.push(event.type);
      if (found === undefined && match(event)) {
        found = event;
        controller.abort();
      }
    }, controller.signal);
  } finally {
    clearTimeout(timer);
  }
  if (found === undefined) throw new Error(`timed out waiting for a workspace event; saw ${seen.join(' ')}`);
  return found;
}

/** A scripted session's script: `steps`, each a scripted agent step. */
export function stateChangedTo(name: string, to: string): (event: WorkspaceEvent) => boolean {
  return (event) => event.type === 'session.state_changed' && event.data.name === name && event.data.to === to;
}
