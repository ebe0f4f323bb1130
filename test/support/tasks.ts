/** Task tests: adding tasks through the binary and waiting on workspace events. */
import type { TaskCard } from '../../src/api/tasks.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { TestBaton } from './baton.js';

export async function addTask(
  baton: TestBaton,
  repo: string,
  title: string,
  ...flags: string[]
): Promise<TaskCard> {
  return (await baton.json<{ task: TaskCard }>(['task', 'add', title, ...flags], { cwd: repo })).task;
}

export async function card(baton: TestBaton, repo: string, id: number): Promise<TaskCard> {
  return (await baton.json<{ task: TaskCard }>(['task', 'show', String(id)], { cwd: repo })).task;
}

/** The first workspace event (replayed or live) that matches, or a timeout listing what was seen. */
export function workspaceEvent(
  baton: TestBaton,
  match: (event: WorkspaceEvent) => boolean,
  timeoutMs = 30_000,
): Promise<WorkspaceEvent> {
  return baton.workspaceEvent(match, timeoutMs);
}

/** A scripted session's script: `steps`, each a scripted agent step. */
export function stateChangedTo(name: string, to: string): (event: WorkspaceEvent) => boolean {
  return (event) =>
    event.type === 'session.state_changed' && event.data.name === name && event.data.to === to;
}
