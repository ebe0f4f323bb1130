/** A session dispatched, its state changed, pinned, removed (src/sessions). */
import { z } from 'zod';
import { SessionState, StateReason } from '../index.js';
import { defineWorkspaceEvent, sessionRef } from './define.js';

export const SessionDispatched = defineWorkspaceEvent(
  'session.dispatched',
  z.object({
    ...sessionRef,
    agent: z.string(),
    branch: z.string(),
    /** Dispatched with `--force`: admission by window lets it through (decision 300). */
    force: z.boolean().optional(),
  }),
);
export const SessionStateChanged = defineWorkspaceEvent(
  'session.state_changed',
  z.object({
    ...sessionRef,
    from: SessionState.optional(),
    to: SessionState,
    reason: StateReason.optional(),
  }),
);
export const SessionPinned = defineWorkspaceEvent(
  'session.pinned',
  z.object({ ...sessionRef, pinned: z.boolean() }),
);
export const SessionRemoved = defineWorkspaceEvent(
  'session.removed',
  z.object({ ...sessionRef, snapshotRef: z.string().nullable(), branchDeleted: z.boolean() }),
);
