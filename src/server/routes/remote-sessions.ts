/**
 * A session reference resolved on this machine first, then among the other machines' sessions
 * when the workspace is shared (decision 127, "A shared workspace in the supervisor"); and what a peek
 * shows of another machine's session, from the events it published.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { keepAlive } from '../sse.js';
import type { PeekView, SessionView } from '../../api/index.js';
import type { BatonEvent } from '../../events/index.js';
import type { SessionManager } from '../../sessions/index.js';
import { BatonError } from '../../shared/errors.js';
import type { SessionWithProject } from '../../store/sessions.js';
import type { RemoteSessions } from '../../cluster/index.js';

export type Target =
  | { kind: 'local'; session: SessionWithProject }
  | { kind: 'remote'; remote: RemoteSessions; view: SessionView };

/** This machine's session by `ref`, else another machine's; this machine's "not found" when neither has it. */
export function targetOf(
  manager: SessionManager,
  remote: RemoteSessions | undefined,
  ref: string,
  cwd: string | undefined,
): Target {
  try {
    return { kind: 'local', session: manager.resolve(ref, cwd) };
  } catch (error) {
    if (remote === undefined || !(error instanceof BatonError) || error.code !== 'not_found') throw error;
    const view = remote.find(ref);
    if (view === undefined) throw error;
    return { kind: 'remote', remote, view };
  }
}

/** How far back a peek reads another machine's events for the step under way and the last message. */
const PEEK_EVENTS = 200;

export async function remotePeek(remote: RemoteSessions, view: SessionView): Promise<PeekView> {
  const events = await remote.events(view, Math.max(0, view.lastSeq - PEEK_EVENTS), PEEK_EVENTS);
  const finished = new Set(events.flatMap((e) => (e.type === 'tool.finished' ? [e.toolId] : [])));
  const running = events.findLast((e) => e.type === 'tool.started' && !finished.has(e.toolId));
  const lastMessage = events.findLast((e) => e.type === 'message.added' && e.role === 'assistant');
  return {
    session: view,
    currentStep:
      running?.type === 'tool.started' ? `running ${running.tool}: ${running.input}` : view.activity,
    lastOutput: lastMessage?.type === 'message.added' ? lastMessage.text : null,
    // The files live in the worktree on the other machine: it is asked, and a machine that does
    // not answer in time leaves the list empty rather than the peek failing.
    filesChanged:
      view.running === false
        ? []
        : ((await remote
            .ask(view, { kind: 'files', sessionId: view.id })
            .catch(() => [])) as PeekView['filesChanged']),
  };
}

const PAGE = 500;

/**
 * Another machine's session followed as `GET …/events?follow` follows a local one: its published
 * events after `after`, then each new one as the log brings it, no gap and no repeat (`last`
 * drops what the replay already sent); ended when it completes or is removed there.
 */
export function followRemote(c: Context, remote: RemoteSessions, view: SessionView, after: number): Response {
  return streamSSE(c, async (stream) => {
    let last = after;
    let live = false;
    const buffered: BatonEvent[] = [];
    let chain = Promise.resolve();
    const send = async (event: BatonEvent): Promise<void> => {
      if (event.seq <= last) return;
      last = event.seq;
      await stream.writeSSE({ id: String(event.seq), event: 'event', data: JSON.stringify(event) });
    };
    let ended: 'completed' | 'removed' | undefined = view.state === 'completed' ? 'completed' : undefined;
    let endStream = (): void => undefined;
    const unsubscribe = remote.onChange((change) => {
      if (change.kind === 'event' && change.sessionId === view.id) {
        if (!live) buffered.push(change.event);
        else chain = chain.then(() => send(change.event)).catch(() => stream.abort());
        return;
      }
      if (ended !== undefined) return;
      if (change.kind === 'removed' && change.sessionId === view.id) ended = 'removed';
      if (change.kind === 'session' && change.view.id === view.id && change.view.state === 'completed')
        ended = 'completed';
      if (ended !== undefined && live) endStream();
    });
    const closed = new Promise<void>((resolve) => {
      stream.onAbort(resolve);
      endStream = () => {
        chain = chain
          .then(() => stream.writeSSE({ event: 'ended', data: JSON.stringify({ reason: ended }) }))
          .finally(resolve);
      };
    });
    try {
      for (
        let page = await remote.events(view, after, PAGE);
        page.length > 0;
        page = await remote.events(view, last, PAGE)
      ) {
        for (const event of page) await send(event);
      }
      for (const event of buffered) await send(event);
      live = true;
      await stream.writeSSE({ event: 'live', data: JSON.stringify({ seq: last }) });
      if (ended !== undefined) endStream();
      await closed.finally(keepAlive(stream));
    } finally {
      unsubscribe();
    }
  });
}
