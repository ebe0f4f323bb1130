/**
 * Respawning a dead machine's sessions elsewhere (decision 129, "A dead machine's placed sessions").
 * Every clustered supervisor reaps on a timer the placements of workers that stopped heartbeating; a
 * reaped placement keeps its stored dispatch request, which a respawn takes — once, however many
 * machines ask — to place again, continuing the branch the session pushed to the shared remote.
 */
import type pg from 'pg';
import { InvalidInputError, SessionStateError } from '../shared/errors.js';
import { remoteSnapshotRef } from '../sync/index.js';
import { git, type WorkSnapshot } from '../worktrees/index.js';
import type { PlacedDispatch } from './dispatches.js';
import type { Placement, Reaped } from './placement.js';
import type { WorkerRegistry } from './workers.js';

/** `ls-remote` and `fetch` cross the network. */
const NETWORK_MS = 2 * 60_000;
const LOCAL_MS = 30_000;
const SNAPSHOTS = remoteSnapshotRef('');

/**
 * Reaps stale workers' placements every `ms` (one `UPDATE … RETURNING`, so with every machine
 * reaping each session is still reported once) and hands what it reaped to `onReaped`. Returns
 * the stop. `every` is a timer by default, driven by hand in tests.
 */
export function reapEvery(input: {
  placement: Pick<Placement, 'reap'>;
  registry: WorkerRegistry;
  ms: number;
  onReaped: (reaped: Reaped[]) => void;
  onError: (error: unknown) => void;
  every?: (ms: number, tick: () => void) => () => void;
}): () => void {
  let reaping = false;
  const tick = (): void => {
    // A slow store must not stack reaps up behind one another.
    if (reaping) return;
    reaping = true;
    input.placement
      .reap(input.registry, { staleOnly: true })
      .then((reaped) => {
        if (reaped.length > 0) input.onReaped(reaped);
      })
      .catch(input.onError)
      .finally(() => (reaping = false));
  };
  return (input.every ?? interval)(input.ms, tick);
}

function interval(ms: number, tick: () => void): () => void {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/** What a respawn found for another machine's session. */
export type Takeover =
  | { kind: 'taken'; dispatch: PlacedDispatch; reason: string }
  /** Not started through the queue: no request is stored for it. */
  | { kind: 'not_placed' }
  /** Placed, but not failed: its machine still holds it (or it finished, or another respawn took it). */
  | { kind: 'not_failed'; state: string; reason: string | null };

export class Respawns {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Takes the failed placement that started `sessionId` on `machine` for a respawn by `by`: it
   * becomes `finished` with the reason saying so, in one UPDATE, so two respawns racing get one
   * answer each and only one of them the request.
   */
  async take(machine: string, sessionId: string, by: string): Promise<Takeover> {
    const { rows } = await this.pool.query<{
      placement_id: string;
      origin: string;
      request: Record<string, unknown>;
      remote_url: string;
      base: string;
      project: string;
      state: string;
      reason: string | null;
      took: boolean;
    }>(
      `WITH found AS (
         SELECT d.placement_id, d.origin, d.request, d.remote_url, d.base, d.project, p.state, p.reason
         FROM cluster_dispatches d JOIN placements p ON p.session_id = d.placement_id
         WHERE d.machine = $1 AND d.session_id = $2),
       taken AS (
         UPDATE placements p SET state = 'finished', updated_at = now(), reason = 'respawned by ' || $3 || ' after: ' || coalesce(p.reason, 'a failure')
         FROM found WHERE p.session_id = found.placement_id AND p.state = 'failed'
         RETURNING p.session_id)
       SELECT found.*, EXISTS (SELECT 1 FROM taken) AS took FROM found`,
      [machine, sessionId, by],
    );
    const row = rows[0];
    if (row === undefined) return { kind: 'not_placed' };
    if (!row.took) return { kind: 'not_failed', state: row.state, reason: row.reason };
    const dispatch = {
      placementId: row.placement_id,
      origin: row.origin,
      request: row.request,
      url: row.remote_url,
      base: row.base,
      project: row.project,
    };
    return { kind: 'taken', dispatch, reason: row.reason ?? 'failed' };
  }

  /**
   * After a restart and its adoption (`Placement.adopt`): the placements still `placed` on an
   * earlier incarnation of `worker` are of sessions it no longer runs (their hosts died with the
   * machine), so they fail now with the reason, for `baton respawn`, rather than wait for a reaper
   * that ignores restarted workers (decision 129). Returns them.
   */
  async failLeftBehind(
    worker: string,
    incarnation: number,
  ): Promise<{ placementId: string; reason: string }[]> {
    const { rows } = await this.pool.query<{ session_id: string; reason: string }>(
      `UPDATE placements SET state = 'failed', updated_at = now(),
         reason = 'worker ' || worker || ' restarted and no longer runs the session (its host did not survive the restart)'
       WHERE worker = $1 AND state = 'placed' AND incarnation <> $2 RETURNING session_id, reason`,
      [worker, incarnation],
    );
    return rows.map((row) => ({ placementId: row.session_id, reason: row.reason }));
  }

  /**
   * A session of `worker` resumed there (a respawn or a reply on that machine) takes its placement
   * back for `incarnation`: one still held, or failed (reaped, not respawned yet) — so a respawn
   * elsewhere is refused from then on. Undefined when taken; else the placement as it is (finished:
   * respawned elsewhere), which the resume must not run beside.
   */
  async takeBack(
    placementId: string,
    worker: string,
    incarnation: number,
  ): Promise<{ state: string; reason: string | null } | undefined> {
    const { rows } = await this.pool.query<{ took: boolean; state: string | null; reason: string | null }>(
      `WITH took AS (
         UPDATE placements SET state = 'placed', worker = $2, incarnation = $3, reason = NULL, updated_at = now()
         WHERE session_id = $1 AND (state = 'failed' OR (state = 'placed' AND worker = $2)) RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM took) AS took, p.state, p.reason FROM (SELECT 1) one LEFT JOIN placements p ON p.session_id = $1`,
      [placementId, worker, incarnation],
    );
    const row = rows[0];
    if (row === undefined || row.took) return undefined;
    return { state: row.state ?? 'gone', reason: row.reason };
  }

  /** A respawn that could not be placed gives the failed placement back, so it can be tried again. */
  async giveBack(placementId: string, reason: string): Promise<void> {
    await this.pool.query(
      `UPDATE placements SET state = 'failed', reason = $2, updated_at = now() WHERE session_id = $1 AND state = 'finished'`,
      [placementId, reason],
    );
  }
}

/** Whether the remote at `url` has the branch `branch`. */
export async function remoteHasBranch(cwd: string, url: string, branch: string): Promise<boolean> {
  const got = await git(cwd, ['ls-remote', '--heads', '--', url, `refs/heads/${branch}`], {
    timeoutMs: NETWORK_MS,
    env: { GIT_TERMINAL_PROMPT: '0' },
  });
  return got.stdout.trim() !== '';
}

/**
 * What sync pushed of a session (decision 121): its branch, and a snapshot of its uncommitted work at
 * its last turn end.
 */
export interface PushedWork {
  /** `baton/<name>`, when the remote has it. */
  branch?: string;
  /** `refs/baton/snapshots/<session id>` and its commit, when the remote has one. */
  snapshot?: { ref: string; commit: string };
}

/** Where a respawn's stored request carries the snapshot to lay over the new worktree; taken out before the request is parsed. */
export const RESPAWN_SNAPSHOT = 'respawnSnapshot';

/** Session ids are Baton's own (`newId`); anything else read from the store never becomes part of a ref. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The session branch `baton/<name>` and the snapshot of session `sessionId` on the remote at `url`, in one `ls-remote`. */
export async function pushedWork(
  cwd: string,
  url: string,
  name: string,
  sessionId: string,
): Promise<PushedWork> {
  const branchRef = `refs/heads/baton/${name}`;
  const snapshotRef = SESSION_ID.test(sessionId) ? remoteSnapshotRef(sessionId) : undefined;
  const got = await git(
    cwd,
    ['ls-remote', '--', url, branchRef, ...(snapshotRef === undefined ? [] : [snapshotRef])],
    { timeoutMs: NETWORK_MS, env: { GIT_TERMINAL_PROMPT: '0' } },
  );
  const refs = new Map(
    got.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.split('\t')[1], line.split('\t')[0] ?? ''] as const),
  );
  const snapshot = snapshotRef === undefined ? undefined : refs.get(snapshotRef);
  return {
    ...(refs.has(branchRef) ? { branch: `baton/${name}` } : {}),
    ...(snapshotRef === undefined || snapshot === undefined
      ? {}
      : { snapshot: { ref: snapshotRef, commit: snapshot } }),
  };
}

/**
 * Fetches the snapshot a respawn carries (`PushedWork.snapshot`, as stored with its request) into
 * the clone at `root` and returns it as work to lay over the new worktree of `branch`. Refused
 * when it is not a snapshot ref, moved since the respawn looked, or was not taken on the branch's
 * tip (sync pushes the two together, so the branch was pushed by something else since): laying it
 * over would bring back stale work.
 */
export async function fetchSnapshot(
  root: string,
  url: string,
  snapshot: unknown,
  branch: string,
): Promise<WorkSnapshot> {
  const ref = (snapshot as { ref?: unknown } | null)?.ref;
  const seen = (snapshot as { commit?: unknown } | null)?.commit;
  const id = typeof ref === 'string' && ref.startsWith(SNAPSHOTS) ? ref.slice(SNAPSHOTS.length) : '';
  if (!SESSION_ID.test(id) || typeof seen !== 'string' || !/^[0-9a-f]{40,64}$/.test(seen)) {
    throw new InvalidInputError(
      `The respawn's ${RESPAWN_SNAPSHOT} must be {"ref": "${SNAPSHOTS}<session id>", "commit": "<sha>"}; got ${JSON.stringify(snapshot)}.`,
      { key: RESPAWN_SNAPSHOT },
    );
  }
  const local = `refs/baton/restored/${id}`;
  await git(root, ['fetch', '--quiet', '--no-tags', '--', url, `+${SNAPSHOTS}${id}:${local}`], {
    timeoutMs: NETWORK_MS,
    env: { GIT_TERMINAL_PROMPT: '0' },
  });
  const at = async (rev: string) =>
    (await git(root, ['rev-parse', '--verify', rev], { timeoutMs: LOCAL_MS })).stdout.trim();
  const commit = await at(`${local}^{commit}`);
  if (commit !== seen)
    throw new SessionStateError(
      `The snapshot ${SNAPSHOTS}${id} on ${url} moved (${seen.slice(0, 10)} → ${commit.slice(0, 10)}) while the respawn was placed; respawn again.`,
    );
  const [head, tip] = [await at(`${commit}^1`), await at(`refs/heads/${branch}^{commit}`)];
  if (head !== tip) {
    throw new SessionStateError(
      `The snapshot of uncommitted work ${SNAPSHOTS}${id} on ${url} was taken on ${head.slice(0, 10)}, but ${branch} is at ${tip.slice(0, 10)}: laying it over would bring back stale work. Restore it by hand (\`baton sync restore ${id}\`), or delete it (\`git push <remote> --delete ${SNAPSHOTS}${id}\`) and respawn again.`,
      { snapshot: `${SNAPSHOTS}${id}` },
    );
  }
  return { head, tree: await at(`${commit}^{tree}`) };
}

/** Brings `branch` from `url` into the clone at `root` as a local branch (fast-forward only: a different local branch of that name is never overwritten). */
export async function fetchBranch(root: string, url: string, branch: string): Promise<void> {
  await git(root, ['fetch', '--quiet', '--no-tags', '--', url, `refs/heads/${branch}:refs/heads/${branch}`], {
    timeoutMs: NETWORK_MS,
    env: { GIT_TERMINAL_PROMPT: '0' },
  });
}
