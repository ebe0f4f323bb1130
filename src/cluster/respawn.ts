/**
 * Respawning a dead machine's sessions elsewhere (issue 20, decision 129). Every clustered
 * supervisor reaps on a timer the placements of workers that stopped heartbeating; a reaped
 * placement keeps its stored dispatch request, which a respawn takes — once, however many
 * machines ask — to place again, continuing the branch the session pushed to the shared remote.
 */
import type pg from 'pg';
import { git } from '../worktrees/index.js';
import type { PlacedDispatch } from './dispatches.js';
import type { Placement, Reaped } from './placement.js';
import type { WorkerRegistry } from './workers.js';

/** `ls-remote` crosses the network. */
const NETWORK_MS = 2 * 60_000;

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
    const { rows } = await this.pool.query<{ placement_id: string; origin: string; request: Record<string, unknown>; remote_url: string; base: string; project: string; state: string; reason: string | null; took: boolean }>(
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
    const dispatch = { placementId: row.placement_id, origin: row.origin, request: row.request, url: row.remote_url, base: row.base, project: row.project };
    return { kind: 'taken', dispatch, reason: row.reason ?? 'failed' };
  }

  /**
   * After a restart and its adoption (`Placement.adopt`): the placements still `placed` on an
   * earlier incarnation of `worker` are of sessions it no longer runs (their hosts died with the
   * machine), so they fail now with the reason, for `baton respawn`, rather than wait for a reaper
   * that ignores restarted workers (decision 129). Returns them.
   */
  async failLeftBehind(worker: string, incarnation: number): Promise<{ placementId: string; reason: string }[]> {
    const { rows } = await this.pool.query<{ session_id: string; reason: string }>(
      `UPDATE placements SET state = 'failed', updated_at = now(),
         reason = 'worker ' || worker || ' restarted and no longer runs the session (its host did not survive the restart)'
       WHERE worker = $1 AND state = 'placed' AND incarnation <> $2 RETURNING session_id, reason`,
      [worker, incarnation],
    );
    return rows.map((row) => ({ placementId: row.session_id, reason: row.reason }));
  }

  /** A respawn that could not be placed gives the failed placement back, so it can be tried again. */
  async giveBack(placementId: string, reason: string): Promise<void> {
    await this.pool.query(`UPDATE placements SET state = 'failed', reason = $2, updated_at = now() WHERE session_id = $1 AND state = 'finished'`, [placementId, reason]);
  }
}

/** The session branch `baton/<name>` on the remote at `url` (what sync pushed), or undefined when it has none. */
export async function pushedBranch(cwd: string, url: string, name: string): Promise<string | undefined> {
  const branch = `baton/${name}`;
  const got = await git(cwd, ['ls-remote', '--heads', '--', url, `refs/heads/${branch}`], { timeoutMs: NETWORK_MS, env: { GIT_TERMINAL_PROMPT: '0' } });
  return got.stdout.trim() === '' ? undefined : branch;
}

/** Brings `branch` from `url` into the clone at `root` as a local branch (fast-forward only: a different local branch of that name is never overwritten). */
export async function fetchBranch(root: string, url: string, branch: string): Promise<void> {
  await git(root, ['fetch', '--quiet', '--no-tags', '--', url, `refs/heads/${branch}:refs/heads/${branch}`], { timeoutMs: NETWORK_MS, env: { GIT_TERMINAL_PROMPT: '0' } });
}
