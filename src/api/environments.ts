/** Endpoints of worktree environments (issue 15): a session's ports, variables, setup log and disk. */
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

export const ENVIRONMENTS = {
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
