/**
 * `GET /api/stream`: the workspace's live feed, for the page and the CLI alike. One `snapshot` of
 * every live session, then a `session` message whenever one changes (state, activity, usage, pin)
 * and `removed` when one is removed; and a `workspace` message for each event on the workspace
 * bus — replayed from `?after=N`, else from now. `?sessions=0` leaves the session messages out. Changes are coalesced per turn of the event loop, so a burst of events costs one view
 * per session rather than one per event, without adding a timer's worth of latency.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { StreamRemoved, StreamSnapshot } from '../api/web.js';
import type { SessionManager } from '../sessions/manager.js';
import { createLogger } from '../shared/log.js';

const log = createLogger('http');

/** Keeps idle connections (and proxies, were there any) from timing out, and finds dead ones. */
const HEARTBEAT_MS = 20_000;

/** Every live session as the board shows it: the stream's first message, and what pages embed. */
export function boardSnapshot(manager: SessionManager): StreamSnapshot {
  return { sessions: manager.list().map((s) => manager.view(s)) };
}

export function serveBoardStream(c: Context, manager: SessionManager, query: { after?: number | undefined; sessions: boolean } = { sessions: true }): Response {
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
          await stream.writeSSE({ event: 'session', data: JSON.stringify(manager.view(row)) });
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
    const closed = new Promise<void>((resolve) => stream.onAbort(resolve));
    const heartbeat = setInterval(() => {
      stream.write(': ping\n\n').catch(() => stream.abort());
    }, HEARTBEAT_MS);
    try {
      if (query.sessions) await stream.writeSSE({ event: 'snapshot', data: JSON.stringify(boardSnapshot(manager)) });
      await manager.bus.follow(
        startSeq,
        (event) => stream.writeSSE({ id: String(event.seq), event: 'workspace', data: JSON.stringify(event) }).catch(() => stream.abort()),
        closed,
      );
      // The follow ends only when the client has gone: an operator's note, not an error.
      log.info('workspace stream aborted by the client', { after: startSeq });
    } finally {
      clearInterval(heartbeat);
      manager.off('session', onSession);
    }
  });
}
