/**
 * The `sync` section of `.baton/config.json`: whether each session's branch, and a snapshot of
 * its uncommitted work, is pushed to a shared remote at the end of every turn (src/sync), so the
 * work survives the machine and can be reviewed or taken up from another clone. Off unless asked.
 */
import { z } from 'zod';

export const SYNC_PUSH_MODES = ['turn', 'off'] as const;

export const SyncSection = z
  .object({
    /** The remote sessions are pushed to (default `origin`). */
    remote: z.string().trim().min(1).regex(/^[^-]/, 'a remote name cannot start with "-"').optional(),
    /** `turn`: at each turn end, and when a session stops or completes; `off` (the default): never by itself. */
    push: z.enum(SYNC_PUSH_MODES).optional(),
  })
  .strict();
export type SyncConfig = z.infer<typeof SyncSection>;

export const DEFAULT_SYNC_REMOTE = 'origin';
