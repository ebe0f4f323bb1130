/** Sync (src/sync): sessions' work pushed to the shared remote at turn ends. */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

/** The branch (and, when there is uncommitted work, its snapshot) reached the remote. */
export const SyncPushed = defineWorkspaceEvent(
  'sync.pushed',
  z.object({
    ...sessionRef,
    remote: z.string(),
    /** `refs/heads/baton/<name>` on the remote. */
    ref: z.string(),
    commit: z.string(),
    /** `refs/baton/snapshots/<session id>`, and the commit of the uncommitted work on top of `commit`; null when the work was all committed. */
    snapshotRef: z.string().nullable(),
    snapshotCommit: z.string().nullable(),
    ms: z.number().int(),
  }),
);
/** A push that did not happen or was refused; `reason` says why in words, `kind` for scripts. */
export const SyncFailed = defineWorkspaceEvent(
  'sync.failed',
  z.object({
    ...sessionRef,
    remote: z.string(),
    kind: z.enum(['no_remote', 'moved', 'rejected', 'timed_out', 'error']),
    reason: z.string(),
    /** Failures in a row, this one included; the next turn-end push waits out a backoff that grows with it. */
    failures: z.number().int().positive(),
  }),
);
/**
 * A round of provenance-notes sync with the remote (decision 294): the remote's notes merged into
 * this clone's, this clone's pushed, or the reason neither happened.
 */
export const SyncNotes = defineWorkspaceEvent(
  'sync.notes',
  z.object({
    project: z.string(),
    remote: z.string(),
    /** This clone's `refs/notes/baton` after the round; null when neither side has notes. */
    local: z.string().nullable(),
    merged: z.boolean(),
    pushed: z.boolean(),
    /** Why the round failed; null when it did not. */
    failure: z.string().nullable(),
    ms: z.number().int(),
  }),
);
