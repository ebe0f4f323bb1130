/**
 * Other machines' sessions in the radar (decision 144, "The radar and review groups see other machines'
 * sessions"): their work is what their machines last pushed to the shared remote, fetched into this
 * machine's checkout of the same repository. A fetch is a network round trip per repository, so it runs
 * only when some member's `version` (its view, and the last push its machine announced) changed since
 * the last fetch, or a member is new; a member whose work was not there is asked again when its version
 * next changes, not on every pass.
 */
import type { ElsewhereRead, OtherMachinesWork, RemoteTracked } from '../../radar/index.js';
import { errorMessage } from '../../shared/errors.js';
import { createLogger } from '../../shared/log.js';
import type { SessionWithProject } from '../../store/sessions.js';
import type { WorkSnapshot } from '../../worktrees/index.js';

const log = createLogger('radar');

/** Another machine's session as this machine's member of the same repository. */
export interface ElsewhereMember {
  session: SessionWithProject;
  machine: string;
  /** Changes whenever its pushed work may have changed (a new view, a push announced). */
  version: string;
}

/** Another machine's work: a snapshot plus a commit whose tree is the snapshot's (for `git merge-tree`). */
export interface ElsewhereWorkSnapshot extends WorkSnapshot {
  /** The pushed uncommitted-work snapshot commit, or null when the branch tip holds all of it. */
  snapshot: string | null;
}

/** Where the radar learns of other machines' sessions and reads their pushed work. */
export interface ElsewhereSource {
  members(): Promise<ElsewhereMember[]>;
  /**
   * Fetches the members' repositories once each and reads their work; a member with none pushed is
   * left out, and one whose repository could not be fetched is named in `unread` (read again next time).
   */
  work(members: readonly SessionWithProject[]): Promise<WorkRead>;
  /** Calls `listener` when a member's work may have changed (a push announced); returns the unsubscribe. */
  onChange?(listener: () => void): () => void;
}

/** Members' work by session id; `unread`: the members whose repository could not be fetched this time. */
export type WorkRead = Map<string, ElsewhereWorkSnapshot> & { unread?: ReadonlySet<string> };

interface Known {
  version: string;
  work: ElsewhereWorkSnapshot | undefined;
}

export class ElsewhereSnapshots implements OtherMachinesWork {
  private readonly known = new Map<string, Known>();
  /** Fetches run so far (for the tests and the figures). */
  fetches = 0;

  private reading: Promise<unknown> = Promise.resolve();
  /** The members with pushed work as the last read found them (a filter by session name looks here). */
  latest: RemoteTracked[] = [];

  constructor(private readonly source: ElsewhereSource) {}

  /** Calls `listener` when a member's work may have changed; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.source.onChange?.(listener) ?? (() => undefined);
  }

  /**
   * The members with pushed work, fetching first when a member is new or its version moved. Reads
   * run one at a time (the radar's and the review's share one fetch, and two fetches into the
   * same refs would collide).
   */
  read(): Promise<ElsewhereRead> {
    const read = this.reading.then(() => this.readNow());
    this.reading = read.catch(() => undefined);
    return read;
  }

  private async readNow(): Promise<ElsewhereRead> {
    const members = await this.source.members();
    const ids = new Set(members.map((m) => m.session.id));
    for (const id of this.known.keys()) if (!ids.has(id)) this.known.delete(id);
    const stale = members.filter((m) => this.known.get(m.session.id)?.version !== m.version);
    let fetchMs = 0;
    const fetched = stale.length > 0;
    if (fetched) {
      const started = performance.now();
      this.fetches++;
      let work: WorkRead = new Map<string, ElsewhereWorkSnapshot>();
      try {
        work = await this.source.work(stale.map((m) => m.session));
      } catch (error) {
        // Nothing recorded: the next pass tries again.
        log.warn("could not read the other machines' pushed work", { error: errorMessage(error) });
        stale.length = 0;
      }
      // A member whose repository was not fetched keeps what was known of it, and is fetched again next time.
      for (const m of stale)
        if (work.unread?.has(m.session.id) !== true)
          this.known.set(m.session.id, { version: m.version, work: work.get(m.session.id) });
      fetchMs = Math.round((performance.now() - started) * 10) / 10;
    }
    const tracked: RemoteTracked[] = [];
    for (const m of members) {
      const work = this.known.get(m.session.id)?.work;
      if (work !== undefined)
        tracked.push({
          session: m.session,
          machine: m.machine,
          snapshot: { head: work.head, tree: work.tree },
          commit: work.snapshot ?? work.head,
        });
    }
    this.latest = tracked;
    return { tracked, fetched, fetchMs };
  }
}
