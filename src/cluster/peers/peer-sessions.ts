/**
 * Other machines' sessions as this machine's session routes reach them (decision 320, "The merge
 * queue and the session routes see other machines through the peers port"): found by reference
 * after this machine's own, shown, peeked, followed, answered and read through their machines
 * (decisions 127 and 132). On one machine the port holds none (src/server/routes/remote-sessions.ts,
 * `NO_PEER_SESSIONS`), so a route asks "this machine's, else a peer's?" and never "is there a cluster?".
 */
import type { PeekView, SessionView } from '../../api/index.js';
import type { BatonEvent } from '../../events/index.js';
import type { RemoteChange, RemoteSessions } from './sessions.js';

/** What a route may have another machine's session do: reply, answer an approval, stop. */
export type PeerCommand =
  | { kind: 'reply'; text: string }
  | { kind: 'approval'; decision: 'allow' | 'deny'; reason?: string; approvalId?: string }
  | { kind: 'stop' };

/** What only the session's machine can read: its usage reports, and its worktree's diff. */
export type PeerRead = 'usage' | 'diff' | 'diffstat';

/** Another machine's session, as one route call sees it. */
export interface PeerSession {
  readonly view: SessionView;
  /** The step under way and the last message, from the events it published; its files asked of its machine. */
  peek(): Promise<PeekView>;
  /** Its events after `after` (its own seq), as its machine published them. */
  events(after: number, limit?: number): Promise<BatonEvent[]>;
  /** Each of its events as it arrives, and its end (completed there, or removed); returns the unsubscribe. */
  watch(listener: (change: PeerSessionChange) => void): () => void;
  /** Runs the command on its machine; resolves with the session as it is after. */
  send(command: PeerCommand): Promise<SessionView>;
  /** A read only its machine can answer. */
  read(what: PeerRead): Promise<unknown>;
}

export type PeerSessionChange =
  { kind: 'event'; event: BatonEvent } | { kind: 'ended'; reason: 'completed' | 'removed' };

/** The other machines' sessions; none on one machine. */
export interface PeerSessions {
  /** This machine's name, which its sessions' views carry in a shared workspace; undefined alone. */
  readonly machine: string | undefined;
  /** Every session of the other machines, each with its machine. */
  list(): SessionView[];
  /** Another machine's session by id, id prefix or name; undefined when no other machine has it. */
  find(ref: string): PeerSession | undefined;
  /** Each new view and removal of another machine's session as it arrives; returns the unsubscribe. */
  onChange(listener: (change: Exclude<RemoteChange, { kind: 'event' }>) => void): () => void;
}

/** How far back a peek reads another machine's events for the step under way and the last message. */
const PEEK_EVENTS = 200;

/** The other machines' sessions as this machine's membership shares them (src/server/cluster.ts). */
export function peerSessions(remote: RemoteSessions): PeerSessions {
  return {
    machine: remote.machine,
    list: () => remote.list(),
    find: (ref) => {
      const view = remote.find(ref);
      return view === undefined ? undefined : peerSession(remote, view);
    },
    onChange: (listener) =>
      remote.onChange((change) => {
        if (change.kind !== 'event') listener(change);
      }),
  };
}

function peerSession(remote: RemoteSessions, view: SessionView): PeerSession {
  return {
    view,
    peek: () => peek(remote, view),
    events: (after, limit) => remote.events(view, after, limit),
    watch: (listener) =>
      remote.onChange((change) => {
        if (change.kind === 'event' && change.sessionId === view.id)
          listener({ kind: 'event', event: change.event });
        else if (change.kind === 'removed' && change.sessionId === view.id)
          listener({ kind: 'ended', reason: 'removed' });
        else if (change.kind === 'session' && change.view.id === view.id && change.view.state === 'completed')
          listener({ kind: 'ended', reason: 'completed' });
      }),
    send: (command) => remote.send(view, { ...command, sessionId: view.id }),
    read: (what) => remote.ask(view, { kind: what, sessionId: view.id }),
  };
}

async function peek(remote: RemoteSessions, view: SessionView): Promise<PeekView> {
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
