/** The supervisor itself: liveness, status, stop, and the API's own description. */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';
import { flagQuery } from './query.js';

/**
 * How far a start has come (decision 169): `starting` (listening, the API not wired yet: other
 * requests wait), `catching_up` (serving; missed routines and interrupted merges still being
 * looked at), `ready`.
 */
export const StartupPhase = z.enum(['starting', 'catching_up', 'ready']);

export const Health = z.object({
  ok: z.literal(true),
  pid: z.number().int(),
  phase: StartupPhase,
  /** The supervisor's version: a newer CLI replaces an older supervisor (decision 169). */
  version: z.string().optional(),
});
export type Health = z.infer<typeof Health>;

/** The machine's memory for new sessions (decision 260): available, the reserve, what sessions at work may still take, and what is free for one more. */
export const MemoryHeadroom = z.object({
  enabled: z.boolean(),
  availableMb: z.number().nullable(),
  reserveMb: z.number(),
  expectedGrowthMb: z.number(),
  freeMb: z.number().nullable(),
  footprints: z.array(
    z.object({ agent: z.string(), mb: z.number(), source: z.enum(['setting', 'measured', 'default']) }),
  ),
});
export type MemoryHeadroom = z.infer<typeof MemoryHeadroom>;

export const DaemonStatus = z.object({
  pid: z.number().int(),
  port: z.number().int(),
  home: z.string(),
  version: z.string(),
  phase: StartupPhase.optional(),
  startedAt: z.string(),
  uptimeSeconds: z.number(),
  maxConcurrent: z.number().int(),
  active: z.number().int(),
  queued: z.number().int(),
  sessions: z.number().int(),
  memory: MemoryHeadroom.optional(),
  /** The sandbox agents run in on this machine (src/sandbox): `none` says they can act as the user. */
  sandbox: z.object({ kind: z.enum(['bubblewrap', 'none']), detail: z.string(), summary: z.string() }),
});
export type DaemonStatus = z.infer<typeof DaemonStatus>;

export const Ok = z.object({ ok: z.literal(true) });

export const DAEMON = {
  'GET /api/health': endpoint({ summary: 'Liveness', response: Health, sessions: 'read' }),
  'GET /api/daemon': endpoint({ summary: 'Supervisor status', response: DaemonStatus }),
  'POST /api/daemon/stop': endpoint({
    summary: 'Stop the supervisor (sessions keep running; with hosts, their hosts are ended first)',
    query: z.object({
      hosts: flagQuery.describe(
        'End every session host now: idle ones keep their state, the others are stopped (a reply resumes each)',
      ),
    }),
    response: Ok,
    tokenOnly: true,
  }),
  'GET /api/openapi.json': endpoint({
    summary: 'This document (OpenAPI 3.1)',
    response: z.record(z.string(), z.unknown()),
  }),
} satisfies Table;
