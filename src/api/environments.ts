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

export const ENVIRONMENTS = {
  'GET /api/sessions/:ref/environment': endpoint({
    summary: "A session's environment: leased ports, templated variables, the setup log's tail and its worktree's disk use",
    response: EnvironmentView,
  }),
} satisfies Table;
