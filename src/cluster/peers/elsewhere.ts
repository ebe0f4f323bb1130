/**
 * Other machines' sessions for this machine's radar and review (decision 127, "A shared workspace in
 * the supervisor"): `ElsewhereWork`'s members and their pushed work, read through one shared
 * `ElsewhereSnapshots`, so the two fetch once between them and only when something changed. A member's
 * version is its view (updated at each state change and event) and the last push its machine announced
 * on the relayed bus: a push lands after the turn end that caused it, so the view alone would miss the
 * work it pushed. Loaded only when the workspace is shared.
 */
import { isRelayed, type WorkspaceBus } from '../../bus/index.js';
import { ElsewhereSnapshots, type ElsewhereSource } from './snapshots.js';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { RemoteSessions } from './sessions.js';
import type { ElsewhereWork } from './work.js';

const log = createLogger('cluster');

export interface Elsewhere {
  snapshots: ElsewhereSnapshots;
  close(): void;
}

/** The shared read of other machines' work, following the relayed `sync.pushed` events from now on. */
export function watchElsewhere(work: ElsewhereWork, bus: WorkspaceBus): Elsewhere {
  const pushes = new Map<string, string>();
  const listeners = new Set<() => void>();
  let stop: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (stop = resolve));
  void bus
    .follow(
      bus.lastSeq(),
      (event) => {
        if (!isRelayed(event) || event.type !== 'sync.pushed') return Promise.resolve();
        const data = event.data as { sessionId?: unknown; commit?: unknown; snapshotCommit?: unknown };
        if (typeof data.sessionId !== 'string') return Promise.resolve();
        pushes.set(data.sessionId, `${String(data.commit)}:${String(data.snapshotCommit)}`);
        for (const listener of listeners) listener();
        return Promise.resolve();
      },
      closed,
    )
    .catch((error: unknown) =>
      log.warn("stopped following the other machines' pushes", { error: errorMessage(error) }),
    );
  const source: ElsewhereSource = {
    members: async () =>
      (await work.members()).map(({ session, view }) => ({
        session,
        machine: view.machine ?? 'unknown',
        version: `${view.updatedAt}|${view.lastSeq}|${pushes.get(view.id) ?? ''}`,
      })),
    work: (members) => work.work(members),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { snapshots: new ElsewhereSnapshots(source), close: () => stop() };
}

/** What review comments go through: this machine's sessions, and the others' by their machines. */
export interface ReplyTarget {
  get(id: string): unknown;
  reply(ref: string, text: string): Promise<unknown>;
}

/** A reply to a session of this machine, or to another machine's (run there as its own reply). */
export function replyAnywhere(
  local: ReplyTarget,
  remote: () => RemoteSessions | undefined,
): (sessionId: string, text: string) => Promise<unknown> {
  return async (sessionId, text) => {
    const others = remote();
    const view =
      local.get(sessionId) === undefined ? others?.list().find((v) => v.id === sessionId) : undefined;
    if (others === undefined || view === undefined) return local.reply(sessionId, text);
    return others.send(view, { kind: 'reply', sessionId: view.id, text });
  };
}
