/**
 * `GET /api/stream`: the workspace's live feed, for the page and the CLI alike. One `snapshot` of
 * every live session, then a `session` message whenever one changes (state, activity, usage, pin)
 * and `removed` when one is removed; and a `workspace` message for each event on the workspace
 * bus — replayed from `?after=N`, else from now — and in a shared workspace a `relayed` message for
 * each of the other machines' events, in the same sequence. `?sessions=0` leaves the session messages out. Changes are coalesced per turn of the event loop, so a burst of events costs one view
 * per session rather than one per event, without adding a timer's worth of latency.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { keepAlive } from './sse.js';
import type { SessionView } from '../api/index.js';
import { isRelayed } from '../bus/index.js';
import type { StreamRemoved, StreamSnapshot } from '../api/web.js';
import type { SessionManager } from '../sessions/index.js';
import type { SessionWithProject } from '../store/sessions.js';
import type { PeerSessions } from '../cluster/index.js';
import { createLogger } from '../shared/log.js';

const log = createLogger('http');

/** Keeps idle connections (and proxies, were there any) from timing out, and finds dead ones. */

/**
 * Every live session as the board shows it: the stream's first message, and what pages embed;
 * with the file counts already measured (never waiting on git: the page asks for fresh ones).
 * With the workspace shared (decision 127, "A shared workspace in the supervisor"), each carries its
 * machine, and the other machines' follow.
 */
export function boardSnapshot(manager: SessionManager, peers?: PeerSessions): StreamSnapshot {
  return {
    sessions: [...manager.list().map((s) => viewOf(manager, s, peers)), ...(peers?.list() ?? [])],
    files: manager.workSizes.known(),
  };
}

function viewOf(
  manager: SessionManager,
  session: SessionWithProject,
  peers: PeerSessions | undefined,
): SessionView {
  const machine = peers?.machine;
  return machine === undefined ? manager.view(session) : { ...manager.view(session), machine };
}

export function serveBoardStream(
  c: Context,
  manager: SessionManager,
  query: { after?: number | undefined; sessions: boolean } = { sessions: true },
  peers?: PeerSessions,
): Response {
  return streamSSE(c, async (stream) => {
    const startSeq = query.after ?? manager.bus.lastSeq();
    const pending = new Set<string>();
    let flushing: Promise<void> | undefined;

    const flush = async (): Promise<void> => {
      const ids = [...pending];
      pending.clear();
      for (const id of ids) {
        const row = manager.get(id);
        if (row === undefined || row.removed_at !== null) {
          await stream.writeSSE({ event: 'removed', data: JSON.stringify({ id } satisfies StreamRemoved) });
        } else {
          await stream.writeSSE({ event: 'session', data: JSON.stringify(viewOf(manager, row, peers)) });
        }
      }
    };
    const onSession = (sessionId: string): void => {
      pending.add(sessionId);
      flushing ??= new Promise<void>((resolve) => setImmediate(resolve))
        .then(flush)
        .catch(() => stream.abort())
        .finally(() => {
          flushing = undefined;
          if (pending.size > 0) onSession([...pending][0] as string);
        });
    };

    // Listen before the snapshot so a change in between is sent after it, not lost.
    if (query.sessions) manager.on('session', onSession);
    // Another machine's sessions as its news arrives (in log order, so written in order).
    let remoteChain = Promise.resolve();
    const offRemote =
      query.sessions && peers !== undefined
        ? peers.onChange((change) => {
            const message =
              change.kind === 'session'
                ? { event: 'session', data: JSON.stringify(change.view) }
                : {
                    event: 'removed',
                    data: JSON.stringify({ id: change.sessionId } satisfies StreamRemoved),
                  };
            remoteChain = remoteChain.then(() => stream.writeSSE(message)).catch(() => stream.abort());
          })
        : () => undefined;
    const closed = new Promise<void>((resolve) => stream.onAbort(resolve));
    const stopKeepAlive = keepAlive(stream);
    try {
      if (query.sessions)
        await stream.writeSSE({ event: 'snapshot', data: JSON.stringify(boardSnapshot(manager, peers)) });
      await manager.bus.follow(
        startSeq,
        // Another machine's event has its own message, so clients acting on a domain's events never take it for this machine's.
        (event) =>
          stream
            .writeSSE({
              id: String(event.seq),
              event: isRelayed(event) ? 'relayed' : 'workspace',
              data: JSON.stringify(event),
            })
            .catch(() => stream.abort()),
        closed,
      );
      // The follow ends only when the client has gone: an operator's note, not an error.
      log.info('workspace stream aborted by the client', { after: startSeq });
    } finally {
      stopKeepAlive();
      manager.off('session', onSession);
      offRemote();
    }
  });
}
