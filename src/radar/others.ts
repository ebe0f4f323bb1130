/**
 * Other machines' sessions as the radar compares them (decision 144, "The radar and review groups
 * see other machines' sessions"): each with the work its machine last pushed, read through the
 * workspace's peers (src/cluster/peers/snapshots.ts). On one machine there is none to read.
 */
import type { SessionWithProject } from '../store/sessions.js';
import type { WorkSnapshot } from '../worktrees/index.js';

/** Another machine's session with its pushed work, as this machine's member of the same repository. */
export interface RemoteTracked {
  session: SessionWithProject;
  snapshot: WorkSnapshot;
  machine: string;
  /** A commit whose tree is `snapshot.tree`. */
  commit: string;
}

export interface ElsewhereRead {
  tracked: RemoteTracked[];
  /** Whether this read fetched, and how long the fetch took. */
  fetched: boolean;
  fetchMs: number;
}

/** Where the radar reads other machines' sessions and their pushed work. */
export interface OtherMachinesWork {
  /** Fetches run so far (for the tests and the figures). */
  readonly fetches: number;
  /** The members with pushed work as the last read found them (a filter by session name looks here). */
  readonly latest: readonly RemoteTracked[];
  /** The members with pushed work, fetching first when one is new or its work may have moved. */
  read(): Promise<ElsewhereRead>;
  /** Calls `listener` when a member's work may have changed; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}
