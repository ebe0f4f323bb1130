/**
 * Sync: each session's branch and uncommitted work pushed to a shared remote at turn ends
 * (`"sync": {"push": "turn"}` in `.baton/config.json`), its last push shown, a push now, and a
 * session's work brought back from the remote on another clone. Operations are in `src/sync`.
 */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const SyncFailureKind = z.enum(['no_remote', 'moved', 'rejected', 'timed_out', 'error']);

export const SyncStatusView = z.object({
  sessionId: z.string(),
  name: z.string(),
  project: z.string(),
  remote: z.string(),
  /** The repository's setting: `turn` pushes at each turn end, `off` only on `baton sync --now`. */
  push: z.enum(['turn', 'off']),
  /** `refs/heads/baton/<name>` on the remote. */
  ref: z.string(),
  /** The last push that reached the remote; null when none has yet. */
  commit: z.string().nullable(),
  snapshotRef: z.string().nullable(),
  snapshotCommit: z.string().nullable(),
  pushedAt: z.string().nullable(),
  ms: z.number().int().nullable(),
  /** The last push's failure, when it failed after the last success. */
  failure: z.object({ kind: SyncFailureKind, reason: z.string(), at: z.string() }).nullable(),
  /** Failures in a row. */
  failures: z.number().int(),
  pushing: z.boolean(),
  /** After failures, a turn end before this time waits for it rather than pushing at once. */
  nextTryAt: z.string().nullable(),
});
export type SyncStatusView = z.infer<typeof SyncStatusView>;

export const SyncList = z.object({ sessions: z.array(SyncStatusView) });
export type SyncList = z.infer<typeof SyncList>;

export const SyncListQuery = z.object({
  session: z.string().optional().describe('One session (id, id prefix or name)'),
});

export const PushNowRequest = z
  .object({
    /** Push over a remote branch someone else moved. */
    force: z.boolean().optional(),
  })
  .strict();

export const RestoreRequest = z
  .object({
    /** Any folder inside the clone to restore into. */
    cwd: z.string().min(1),
    /** The session's id (its snapshot names its branch), or its name (the branch only). */
    session: z.string().min(1).max(200),
    /** Where the worktree goes (default: beside the repository, `<repo>-<name>`). */
    path: z.string().min(1).optional(),
    /** The remote to restore from (default: the repository's `sync.remote`, else `origin`). */
    remote: z.string().min(1).regex(/^[^-]/, 'a remote name cannot start with "-"').optional(),
  })
  .strict();
export type RestoreRequest = z.input<typeof RestoreRequest>;

export const RestoreView = z.object({
  remote: z.string(),
  branch: z.string(),
  commit: z.string(),
  path: z.string(),
  /** The snapshot applied as uncommitted work; null when the session had none on the remote. */
  snapshotCommit: z.string().nullable(),
  /** Files the snapshot changed, added or deleted against the branch (left uncommitted). */
  uncommittedFiles: z.array(z.string()),
});
export type RestoreView = z.infer<typeof RestoreView>;

export const SYNC = {
  'GET /api/sync': endpoint({
    summary: "Each session's last push to the shared remote (ref, commit, when) or its failure",
    query: SyncListQuery,
    response: SyncList,
    sessions: 'read',
  }),
  'POST /api/sync/:ref/push': endpoint({
    summary: "Push a session's branch and uncommitted work to the shared remote now",
    body: PushNowRequest,
    response: SyncStatusView,
    tokenOnly: true,
  }),
  'POST /api/sync/restore': endpoint({
    summary: "Bring a session's pushed branch and uncommitted work back into a new worktree of this clone",
    body: RestoreRequest,
    response: RestoreView,
    status: 201,
    tokenOnly: true,
  }),
} satisfies Table;
