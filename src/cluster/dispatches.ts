/**
 * Dispatches placed on another machine (decision 128): the request and the repository's identity
 * stored beside the placement, and the outcome — the session the claiming machine started, or
 * why it could not — written back and `pg_notify`d, so the dispatching machine can answer its
 * caller with it.
 */
import type pg from 'pg';
import { errorMessage } from '../shared/errors.js';
import { inTransaction } from './transaction.js';
import type { Listener } from './listener.js';

/** The claiming machine NOTIFYs here (payload: the placement id) once it has an outcome. */
export const DISPATCH_ANSWER_CHANNEL = 'baton_dispatch_answer';

export interface PlacedDispatch {
  placementId: string;
  /** The machine the dispatch came from. */
  origin: string;
  /** The dispatch request as the API parsed it, without `base` and `on`; its `cwd` is a folder of the origin's. */
  request: Record<string, unknown>;
  url: string;
  base: string;
  project: string;
}

export type DispatchOutcome =
  | { kind: 'started'; machine: string; sessionId: string; session: unknown }
  | { kind: 'failed'; machine: string; error: { code: string; message: string } };

export class ClusterDispatches {
  constructor(
    private readonly pool: pg.Pool,
    private readonly listener: Listener,
  ) {}

  async create(dispatch: PlacedDispatch): Promise<void> {
    await this.pool.query(
      'INSERT INTO cluster_dispatches (placement_id, origin, request, remote_url, base, project) VALUES ($1, $2, $3, $4, $5, $6)',
      [
        dispatch.placementId,
        dispatch.origin,
        JSON.stringify(dispatch.request),
        dispatch.url,
        dispatch.base,
        dispatch.project,
      ],
    );
  }

  /** Deletes answered dispatches older than `keepMs`; those still waiting for a machine stay. */
  async prune(keepMs: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM cluster_dispatches WHERE answered_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [keepMs],
    );
    return rowCount ?? 0;
  }

  /** Forgets a dispatch whose placement could not be queued. */
  async remove(placementId: string): Promise<void> {
    await this.pool.query('DELETE FROM cluster_dispatches WHERE placement_id = $1', [placementId]);
  }

  async get(placementId: string): Promise<PlacedDispatch | undefined> {
    const { rows } = await this.pool.query<{
      placement_id: string;
      origin: string;
      request: Record<string, unknown>;
      remote_url: string;
      base: string;
      project: string;
    }>(
      'SELECT placement_id, origin, request, remote_url, base, project FROM cluster_dispatches WHERE placement_id = $1',
      [placementId],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : {
          placementId: row.placement_id,
          origin: row.origin,
          request: row.request,
          url: row.remote_url,
          base: row.base,
          project: row.project,
        };
  }

  /** The sessions `machine` started for placements: placement id → its local session id. */
  async startedOn(machine: string): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ placement_id: string; session_id: string }>(
      'SELECT placement_id, session_id FROM cluster_dispatches WHERE machine = $1 AND session_id IS NOT NULL',
      [machine],
    );
    return new Map(rows.map((row) => [row.placement_id, row.session_id]));
  }

  /** The placement that started `machine`'s session `sessionId`, if one did. */
  async placementOf(machine: string, sessionId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ placement_id: string }>(
      'SELECT placement_id FROM cluster_dispatches WHERE machine = $1 AND session_id = $2',
      [machine, sessionId],
    );
    return rows[0]?.placement_id;
  }

  /** The claiming machine's answer, stored and announced in one statement. */
  /**
   * A dispatch this machine started itself (it had a free slot), stored as placed here by its
   * current incarnation, in one transaction: if the machine dies, the others reap it and can
   * respawn it like one they placed here (decision 137).
   */
  async recordHere(
    dispatch: PlacedDispatch,
    started: { machine: string; incarnation: number; sessionId: string; session: unknown },
  ): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO cluster_dispatches (placement_id, origin, request, remote_url, base, project, machine, session_id, session, answered_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())`,
        [
          dispatch.placementId,
          dispatch.origin,
          JSON.stringify(dispatch.request),
          dispatch.url,
          dispatch.base,
          dispatch.project,
          started.machine,
          started.sessionId,
          JSON.stringify(started.session),
        ],
      );
      await client.query(
        `INSERT INTO placements (session_id, worker, state, target, incarnation, updated_at) VALUES ($1, $2, 'placed', $2, $3, now())`,
        [dispatch.placementId, started.machine, started.incarnation],
      );
    });
  }

  async answer(placementId: string, outcome: DispatchOutcome): Promise<void> {
    const [sessionId, session, error] =
      outcome.kind === 'started'
        ? [outcome.sessionId, JSON.stringify(outcome.session), null]
        : [null, null, JSON.stringify(outcome.error)];
    await this.pool.query(
      `WITH answered AS (UPDATE cluster_dispatches SET machine = $2, session_id = $3, session = $4, error = $5, answered_at = now() WHERE placement_id = $1 RETURNING placement_id)
       SELECT pg_notify($6, placement_id) FROM answered`,
      [placementId, outcome.machine, sessionId, session, error, DISPATCH_ANSWER_CHANNEL],
    );
  }

  async outcome(placementId: string): Promise<DispatchOutcome | undefined> {
    const { rows } = await this.pool.query<{
      machine: string | null;
      session_id: string | null;
      session: unknown;
      error: { code: string; message: string } | null;
    }>(
      'SELECT machine, session_id, session, error FROM cluster_dispatches WHERE placement_id = $1 AND answered_at IS NOT NULL',
      [placementId],
    );
    const row = rows[0];
    if (row === undefined || row.machine === null) return undefined;
    if (row.error !== null) return { kind: 'failed', machine: row.machine, error: row.error };
    return { kind: 'started', machine: row.machine, sessionId: row.session_id ?? '', session: row.session };
  }

  /**
   * Waits for the outcome, woken by the claiming machine's NOTIFY (and by the listener
   * reconnecting, when one may have been missed); undefined when none came within `timeoutMs`.
   */
  waitForOutcome(placementId: string, timeoutMs: number): Promise<DispatchOutcome | undefined> {
    return new Promise((resolve, reject) => {
      let done = false;
      let reading = Promise.resolve();
      const finish = (outcome: DispatchOutcome | undefined, error?: unknown): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.listener.off('notification', onNotification);
        this.listener.off('connected', look);
        if (error === undefined) resolve(outcome);
        else reject(error instanceof Error ? error : new Error(errorMessage(error)));
      };
      const look = (): void => {
        reading = reading.then(async () => {
          if (done) return;
          const outcome = await this.outcome(placementId).catch(
            (error: unknown) => (finish(undefined, error), undefined),
          );
          if (outcome !== undefined) finish(outcome);
        });
      };
      const onNotification = (channel: string, payload: string): void => {
        if (channel === DISPATCH_ANSWER_CHANNEL && payload === placementId) look();
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      this.listener.on('notification', onNotification);
      this.listener.on('connected', look);
      // It may have been answered before we listened.
      look();
    });
  }
}
