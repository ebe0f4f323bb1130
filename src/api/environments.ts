/**
 * Endpoints of worktree environments (decision 59, "Setup runs in the session's host"): a session's
 * ports, variables, setup log and disk.
 */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const EnvironmentView = z.object({
  session: z.string(),
  state: z.string(),
  worktree: z.string(),
  ports: z.array(z.object({ name: z.string(), port: z.number().int() })),
  /** The variables Baton adds from `.baton/config.json` (ports and `env`), not the user's own. */
  env: z.record(z.string(), z.string()),
  settingSources: z.record(z.string(), z.array(z.string())),
  setup: z.object({ steps: z.number().int(), log: z.string().nullable(), logPath: z.string() }),
  /** Bytes the worktree's files take on disk, each inode once; hard-linked files counted as shared. */
  disk: z.object({ ownedBytes: z.number(), sharedBytes: z.number() }).nullable(),
});
export type EnvironmentView = z.infer<typeof EnvironmentView>;

const DiskRow = z.object({
  session: z.string(),
  project: z.string(),
  worktree: z.string(),
  ownedBytes: z.number(),
  sharedBytes: z.number(),
});
export const DiskView = z.object({
  worktrees: z.array(DiskRow),
  totalOwnedBytes: z.number(),
  totalSharedBytes: z.number(),
});
export type DiskView = z.infer<typeof DiskView>;
export const GcRequest = z.object({ dryRun: z.boolean().default(false) }).strict();
export const GcView = z.object({
  dryRun: z.boolean(),
  decisions: z.array(z.object({ id: z.string(), name: z.string(), why: z.string() })),
  archived: z.array(z.object({ name: z.string(), snapshotRef: z.string().nullable() })),
});
export type GcView = z.infer<typeof GcView>;
const SnapshotInfo = z.object({
  name: z.string(),
  ref: z.string(),
  commit: z.string(),
  parent: z.string(),
  createdAt: z.string(),
  subject: z.string(),
});
export const SnapshotList = z.object({ snapshots: z.array(SnapshotInfo) });
export type SnapshotList = z.infer<typeof SnapshotList>;
export const RestoreRequest = z.object({ as: z.string().min(1).max(100).optional() }).strict();
export const RestoreView = z.object({ snapshot: SnapshotInfo, worktree: z.string(), branch: z.string() });
export type RestoreView = z.infer<typeof RestoreView>;

const CheckpointInfo = z.object({
  /** Its number within the session. */
  name: z.string(),
  ref: z.string(),
  commit: z.string(),
  /** The branch tip the work sat on. */
  head: z.string(),
  createdAt: z.string(),
  subject: z.string(),
});
export const CheckpointList = z.object({ session: z.string(), checkpoints: z.array(CheckpointInfo) });
export type CheckpointList = z.infer<typeof CheckpointList>;
export const CheckpointRestoreView = z.object({
  session: z.string(),
  worktree: z.string(),
  checkpoint: CheckpointInfo,
  /** The work as it was just before the restore, kept as a checkpoint of its own. */
  before: CheckpointInfo,
});
export type CheckpointRestoreView = z.infer<typeof CheckpointRestoreView>;

export const TrustView = z.object({
  root: z.string(),
  file: z.string(),
  /** The sha256 of the command-bearing parts (setup, teardown, merge check, routines, env); null when the config runs nothing. */
  sha256: z.string().nullable(),
  trusted: z.boolean(),
  /** What would run, one line each. */
  commands: z.array(z.object({ part: z.string(), command: z.string() })),
});
export type TrustView = z.infer<typeof TrustView>;
export const TrustRequest = z
  .object({
    /** The digest of the commands the user read: trusted only if the file still holds exactly those. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
  })
  .strict();

export const ENVIRONMENTS = {
  'GET /api/trust': endpoint({
    summary:
      "What the caller's repository's .baton/config.json would run (setup, teardown, merge check, routines, env), its sha256, and whether the user trusts it",
    response: TrustView,
  }),
  'POST /api/trust': endpoint({
    summary:
      "Trust the commands of the caller's repository's .baton/config.json, by the sha256 the user read (refused if the file changed since)",
    body: TrustRequest,
    response: TrustView,
    tokenOnly: true,
  }),
  'GET /api/sessions/:ref/checkpoints': endpoint({
    summary:
      "A session's checkpoints, newest first: its work kept (refs/baton/checkpoints/<id>/<n>) before a command that discards uncommitted work ran",
    response: CheckpointList,
  }),
  'POST /api/sessions/:ref/checkpoints/:name/restore': endpoint({
    summary:
      "Write a checkpoint's files over the session's worktree, uncommitted (the work as it is first kept as a checkpoint of its own)",
    response: CheckpointRestoreView,
  }),
  'GET /api/sessions/:ref/environment': endpoint({
    summary:
      "A session's environment: leased ports, templated variables, the setup log's tail and its worktree's disk use",
    response: EnvironmentView,
  }),
  'GET /api/worktrees/disk': endpoint({
    summary: 'Disk per live worktree, owned and shared by hard link, and in total',
    response: DiskView,
  }),
  'POST /api/worktrees/gc': endpoint({
    summary:
      "Archive the caller's repository's idle worktrees by its cleanup policy (dryRun: only say which)",
    body: GcRequest,
    response: GcView,
  }),
  'GET /api/snapshots': endpoint({
    summary: "Archived work of the caller's repository (refs/baton/snapshots/*)",
    response: SnapshotList,
  }),
  'POST /api/snapshots/:name/restore': endpoint({
    summary: 'Restore a snapshot as a worktree on baton/<as>, its uncommitted work as it was',
    body: RestoreRequest,
    response: RestoreView,
  }),
} satisfies Table;
