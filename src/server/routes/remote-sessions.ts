/**
 * A session reference resolved on this machine first, then among the other machines' sessions
 * (decision 127, "A shared workspace in the supervisor"), which the peers port holds (decision 320,
 * "The merge queue and the session routes see other machines through the peers port"): none on one
 * machine; and another machine's session followed as a local one is.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { keepAlive } from '../sse.js';
import type { BatonEvent } from '../../events/index.js';
import type { SessionManager } from '../../sessions/index.js';
import { BatonError } from '../../shared/errors.js';
import type { SessionWithProject } from '../../store/sessions.js';
import type { PeerSession, PeerSessions } from '../../cluster/index.js';

/** One machine's peers: no other machine, so no other machine's session. */
export const NO_PEER_SESSIONS: PeerSessions = {
  machine: undefined,
  list: () => [],
  find: () => undefined,
  onChange: () => () => undefined,
};

export type Target = { kind: 'local'; session: SessionWithProject } | { kind: 'peer'; peer: PeerSession };

/** This machine's session by `ref`, else another machine's; this machine's "not found" when neither has it. */
export function targetOf(
  manager: SessionManager,
  peers: PeerSessions,
  ref: string,
  cwd: string | undefined,
): Target {
  try {
    return { kind: 'local', session: manager.resolve(ref, cwd) };
  } catch (error) {
    if (!(error instanceof BatonError) || error.code !== 'not_found') throw error;
    const peer = peers.find(ref);
    if (peer === undefined) throw error;
    return { kind: 'peer', peer };
  }
}

const PAGE = 500;

/**
 * Another machine's session followed as `GET …/events?follow` follows a local one: its published
 * events after `after`, then each new one as the log brings it, no gap and no repeat (`last`
 * drops what the replay already sent); ended when it completes or is removed there.
 */
export function followPeer(c: Context, peer: PeerSession, after: number): Response {
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
    let ended: 'completed' | 'removed' | undefined =
      peer.view.state === 'completed' ? 'completed' : undefined;
    let endStream = (): void => undefined;
    const unsubscribe = peer.watch((change) => {
      if (change.kind === 'event') {
        if (!live) buffered.push(change.event);
        else chain = chain.then(() => send(change.event)).catch(() => stream.abort());
        return;
      }
      if (ended !== undefined) return;
      ended = change.reason;
      if (live) endStream();
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
      for (let page = await peer.events(after, PAGE); page.length > 0; page = await peer.events(last, PAGE)) {
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
