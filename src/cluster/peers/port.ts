/**
 * The other machines, as this machine's single-machine domains see them (decision 210, "Other
 * machines behind one port"): their sessions in the radar, the review and the merge queue, review
 * comments sent to them through their machines, their transcripts for a handoff, and this machine's
 * sessions handed over to their merges. The supervisor holds one `Peers`; on one machine it is the
 * same port with nothing behind it (src/server/wiring.ts), so no domain asks "is there a cluster?".
 */
import type { ElsewhereTranscript } from '../../context/index.js';
import type { BatonEvent } from '../../events/index.js';
import type { MergeSessions } from '../../merge/index.js';
import type { PushedMember } from '../../review/index.js';
import type { OtherMachinesWork } from '../../radar/index.js';
import type { SessionManager } from '../../sessions/index.js';
import { InternalError } from '../../shared/errors.js';
import type { Db } from '../../store/db.js';
import type { SyncService } from '../../sync/index.js';
import { replyAnywhere, watchElsewhere } from './elsewhere.js';
import { handOver, WorkspaceMergeSessions } from './merge.js';
import { peerSessions, type PeerSessions } from './peer-sessions.js';
import type { RemoteSessions } from './sessions.js';
import { ElsewhereWork } from './work.js';

/** Another machine's events are read for a transcript this many at a time. */
const EVENTS_PAGE = 1_000;

export interface Peers {
  /** The radar's view of other machines' pushed work; undefined on one machine. */
  readonly snapshots: OtherMachinesWork | undefined;
  /** Other machines' sessions of this machine's projects, with their pushed work, for the review; undefined on one machine. */
  readonly tracked: (() => Promise<PushedMember[]>) | undefined;
  /** Another machine's session as the context domain reads one: its published events, and this machine's checkout of its repository; undefined on one machine. */
  readonly transcript: ((ref: string, cwd?: string) => Promise<ElsewhereTranscript | undefined>) | undefined;
  /** Other machines' sessions as the session routes reach them: found, shown, answered, followed, read. */
  readonly sessions: PeerSessions;
  /** Sends a reply to a session, another machine's through its machine. */
  reply(sessionId: string, text: string): Promise<unknown>;
  /** The merge queue's sessions: this machine's and the ones brought from others (decision 143). */
  readonly merges: MergeSessions;
  /** Once sync runs: another machine's merge of one of this machine's sessions gets it committed and pushed. */
  serveHandovers(sync: SyncService): void;
  close(): void;
}

/** The other machines of a shared workspace, read through one `ElsewhereWork` (decision 127, "A shared workspace in the supervisor"). */
export function joinPeers(
  manager: SessionManager,
  remote: () => RemoteSessions | undefined,
  db: Db,
  home: string,
): Peers {
  const shared = remote();
  if (shared === undefined)
    throw new InternalError('the peers are joined only once this machine shares its sessions');
  const work = new ElsewhereWork(remote, db, home);
  const watched = watchElsewhere(work, manager.bus);
  return {
    snapshots: watched.snapshots,
    sessions: peerSessions(shared),
    tracked: async () => (await watched.snapshots.read()).tracked,
    reply: replyAnywhere(manager, remote),
    merges: new WorkspaceMergeSessions(
      manager,
      work,
      remote,
      home,
      (id) => (manager.bus.latestRelayedAbout('sync.pushed', id) as { commit?: string } | undefined)?.commit,
      async () => (await watched.snapshots.read()).tracked,
    ),
    serveHandovers: (sync) => remote()?.serveHandover((session) => handOver(session, manager, sync)),
    transcript: async (ref, cwd) => {
      const sessions = remote();
      const view = sessions?.find(ref);
      if (sessions === undefined || view === undefined) return undefined;
      const events: BatonEvent[] = [];
      for (
        let page = await sessions.events(view, 0, EVENTS_PAGE);
        page.length > 0;
        page = await sessions.events(view, page.at(-1)!.seq, EVENTS_PAGE)
      )
        events.push(...page);
      const project = view.repo === undefined ? undefined : await work.projectOf(view.repo, cwd);
      const head = {
        sessionId: view.id,
        name: view.name,
        agent: view.agent,
        origin: 'baton' as const,
        prompt: view.prompt,
        cwd: view.worktree,
        startedAt: view.createdAt,
      };
      return { head, events, root: project?.root };
    },
    close: () => watched.close(),
  };
}
