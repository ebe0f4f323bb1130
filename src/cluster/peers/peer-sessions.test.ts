/**
 * The session routes' view of other machines (decision 320): a peer session's commands carry its id,
 * its watch hears only its own events and its end, and the board's changes leave events out.
 */
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../api/index.js';
import type { BatonEvent } from '../../events/index.js';
import type { RemoteCommand } from '../commands.js';
import { peerSessions, type PeerSessionChange } from './peer-sessions.js';
import type { RemoteChange, RemoteSessions } from './sessions.js';

const view = (id: string, state = 'working'): SessionView =>
  ({ id, name: id, state, lastSeq: 3 }) as SessionView;
const event = (seq: number): BatonEvent =>
  ({ seq, ts: 't', type: 'message.added', role: 'assistant', text: `m${seq}` }) as BatonEvent;

function remoteOf(views: SessionView[]): {
  remote: RemoteSessions;
  sent: RemoteCommand[];
  emit: (c: RemoteChange) => void;
} {
  const sent: RemoteCommand[] = [];
  const listeners = new Set<(change: RemoteChange) => void>();
  const remote = {
    machine: 'alpha',
    list: () => views,
    find: (ref: string) => views.find((v) => v.id === ref),
    send: (session: SessionView, command: RemoteCommand) => {
      sent.push(command);
      return Promise.resolve(session);
    },
    ask: (_session: SessionView, command: RemoteCommand) => Promise.resolve({ asked: command.kind }),
    events: () => Promise.resolve([event(1), event(2)]),
    onChange: (listener: (change: RemoteChange) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as RemoteSessions;
  return { remote, sent, emit: (change) => listeners.forEach((l) => l(change)) };
}

describe("other machines' sessions as the routes see them", () => {
  it('finds only what another machine has, and its commands and reads name the session', async () => {
    const { remote, sent } = remoteOf([view('s1')]);
    const peers = peerSessions(remote);
    expect(peers.machine).toBe('alpha');
    expect(peers.find('nobody')).toBeUndefined();
    const peer = peers.find('s1')!;
    await peer.send({ kind: 'reply', text: 'hi' });
    await peer.send({ kind: 'stop' });
    expect(sent).toEqual([
      { kind: 'reply', text: 'hi', sessionId: 's1' },
      { kind: 'stop', sessionId: 's1' },
    ]);
    await expect(peer.read('diffstat')).resolves.toEqual({ asked: 'diffstat' });
  });

  it("hears its own session's events and its end, never another's", () => {
    const { remote, emit } = remoteOf([view('s1'), view('s2')]);
    const heard: PeerSessionChange[] = [];
    const stop = peerSessions(remote)
      .find('s1')!
      .watch((change) => heard.push(change));
    emit({ kind: 'event', sessionId: 's2', event: event(9) });
    emit({ kind: 'event', sessionId: 's1', event: event(4) });
    emit({ kind: 'session', view: view('s1', 'working') });
    emit({ kind: 'session', view: view('s2', 'completed') });
    emit({ kind: 'session', view: view('s1', 'completed') });
    emit({ kind: 'removed', sessionId: 's2' });
    emit({ kind: 'removed', sessionId: 's1' });
    stop();
    emit({ kind: 'event', sessionId: 's1', event: event(5) });
    expect(heard).toEqual([
      { kind: 'event', event: event(4) },
      { kind: 'ended', reason: 'completed' },
      { kind: 'ended', reason: 'removed' },
    ]);
  });

  it("tells the board of views and removals, not of each session's events", () => {
    const { remote, emit } = remoteOf([]);
    const kinds: string[] = [];
    peerSessions(remote).onChange((change) => kinds.push(change.kind));
    emit({ kind: 'event', sessionId: 's1', event: event(1) });
    emit({ kind: 'session', view: view('s1') });
    emit({ kind: 'removed', sessionId: 's1' });
    expect(kinds).toEqual(['session', 'removed']);
  });
});
