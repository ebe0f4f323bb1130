/** A session's history: events (listed, or replayed then followed live), transcript pages, usage, diff. */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { keepAlive } from '../sse.js';
import type { HISTORY } from '../../api/history.js';
import { TRANSCRIPT_PAGE_DEFAULT, type UsagePoint } from '../../api/web.js';
import type { BatonEvent } from '../../events/index.js';
import { sessionDiff, sessionDiffStat, type SessionManager, sessionUsage } from '../../sessions/index.js';
import { BatonError } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { PeerSessions } from '../../cluster/index.js';
import type { Handlers } from './mount.js';
import { followPeer, NO_PEER_SESSIONS, targetOf } from './remote-sessions.js';

const log = createLogger('http');
/** The most events one read of another machine's session gives (the session mirror's page). */
const MIRROR_PAGE = 1_000;

export function historyHandlers(
  manager: SessionManager,
  peers: PeerSessions = NO_PEER_SESSIONS,
): Handlers<typeof HISTORY> {
  return {
    'GET /api/sessions/:ref/events': async ({ params, query, cwd, c }) => {
      const after = query.after ?? 0;
      // A landed or removed session's log stays readable (decision 168): search opens hits there.
      const found = targetOrRecord(manager, peers, params.ref, cwd);
      if (found.kind === 'peer')
        return query.follow ? followPeer(c, found.peer, after) : { events: await found.peer.events(after) };
      const session = found.session;
      if (!query.follow) return { events: manager.eventsAfter(session.id, after) };
      return follow(c, manager, session.id, after);
    },
    'GET /api/sessions/:ref/transcript': async ({ params, query }) => {
      const found = targetOf(manager, peers, params.ref, undefined);
      const lastSeq = found.kind === 'local' ? found.session.last_seq : found.peer.view.lastSeq;
      const limit = query.limit ?? TRANSCRIPT_PAGE_DEFAULT;
      const before = query.before ?? lastSeq + 1;
      // Sequence numbers are dense per session, so the page is a seq range read off the primary key.
      const after = Math.max(0, before - 1 - limit);
      const count = before - 1 - after;
      if (count <= 0) return { events: [], hasMore: after > 0, lastSeq };
      if (found.kind === 'local')
        return { events: manager.eventsAfter(found.session.id, after, count), hasMore: after > 0, lastSeq };
      // Another machine's session: the page from the events it published (at most a mirror page).
      const take = Math.min(count, MIRROR_PAGE);
      const from = before - 1 - take;
      return { events: await found.peer.events(from, take), hasMore: from > 0, lastSeq };
    },
    // Another machine's usage reports, worktree and diff are its own: it is asked (decision 132).
    'GET /api/sessions/:ref/usage': async ({ params }) => {
      const found = targetOf(manager, peers, params.ref, undefined);
      if (found.kind === 'peer') return (await found.peer.read('usage')) as { points: UsagePoint[] };
      return sessionUsage(manager, found.session);
    },
    'GET /api/sessions/:ref/diff': async ({ params, c }) => {
      const found = targetOf(manager, peers, params.ref, undefined);
      const diff =
        found.kind === 'peer'
          ? ((await found.peer.read('diff')) as { text: string; truncated: boolean })
          : await sessionDiff(found.session);
      c.header('x-baton-diff-truncated', diff.truncated ? '1' : '0');
      c.header('content-type', 'text/x-diff; charset=utf-8');
      return c.body(diff.text);
    },
    'GET /api/sessions/:ref/diffstat': async ({ params }) => {
      const found = targetOf(manager, peers, params.ref, undefined);
      if (found.kind === 'peer')
        return (await found.peer.read('diffstat')) as Awaited<ReturnType<typeof sessionDiffStat>>;
      return sessionDiffStat(found.session);
    },
  };
}

/** SSE: the events after `after` (`event`), one `live`, then each new event as it is stored. */
function follow(c: Context, manager: SessionManager, sessionId: string, after: number): Response {
  return streamSSE(c, async (stream) => {
    const buffered: BatonEvent[] = [];
    let live = false;
    let last = after;
    const send = async (event: BatonEvent): Promise<void> => {
      if (event.seq <= last) return;
      last = event.seq;
      await stream.writeSSE({ id: String(event.seq), event: 'event', data: JSON.stringify(event) });
    };
    // Live writes are chained, so two events arriving together go out in order.
    let chain = Promise.resolve();
    const onEvent = (id: string, event: BatonEvent): void => {
      if (id !== sessionId) return;
      if (!live) buffered.push(event);
      else chain = chain.then(() => send(event)).catch(() => stream.abort());
    };
    // A completed or removed session writes nothing more: the stream says so and ends.
    let ended: 'completed' | 'removed' | undefined;
    let endStream = (): void => undefined;
    const onSession = (id: string): void => {
      if (id !== sessionId || ended !== undefined) return;
      const session = manager.get(sessionId);
      ended =
        session === undefined || session.removed_at !== null
          ? 'removed'
          : session.state === 'completed'
            ? 'completed'
            : undefined;
      if (ended !== undefined && live) endStream();
    };
    // Subscribe before replaying so nothing written in between is missed; `last` drops duplicates.
    manager.on('event', onEvent);
    manager.on('session', onSession);
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
        let page = manager.eventsAfter(sessionId, after);
        page.length > 0;
        page = manager.eventsAfter(sessionId, last)
      ) {
        for (const event of page) await send(event);
      }
      for (const event of buffered) await send(event);
      live = true;
      await stream.writeSSE({ event: 'live', data: JSON.stringify({ seq: last }) });
      // Already completed or removed: say so now (onSession ends the stream once live).
      onSession(sessionId);
      await closed.finally(keepAlive(stream));
      if (ended === undefined) log.info('event stream aborted by the client', { session: sessionId });
    } finally {
      manager.off('event', onEvent);
      manager.off('session', onSession);
    }
  });
}

/** This machine's live session, another machine's, else a landed or removed one of this machine. */
function targetOrRecord(
  manager: SessionManager,
  peers: PeerSessions,
  ref: string,
  cwd: string | undefined,
): ReturnType<typeof targetOf> {
  try {
    return targetOf(manager, peers, ref, cwd);
  } catch (error) {
    if (!(error instanceof BatonError) || error.code !== 'not_found') throw error;
    return { kind: 'local', session: manager.resolveRecord(ref, cwd) };
  }
}
