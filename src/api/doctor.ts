/** `baton doctor`: what the supervisor can tell about the machine it runs on, each with its fix. */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const CheckStatus = z.enum(['ok', 'warn', 'fail']);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const DoctorCheck = z.object({
  /** Stable, for scripts: `supervisor`, `agent.claude`, `limits.inotify`, … */
  id: z.string(),
  title: z.string(),
  status: CheckStatus,
  detail: z.string(),
  /** The one command (or step) that fixes it, when it is not ok. */
  fix: z.string().optional(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

export const DoctorReport = z.object({ checks: z.array(DoctorCheck) });
export type DoctorReport = z.infer<typeof DoctorReport>;

export const DOCTOR = {
  'GET /api/doctor': endpoint({
    summary:
      "The supervisor's health and version, each agent found and whether it is signed in, the machine's limits against the sessions running, worktrees' disk and leased ports",
    response: DoctorReport,
  }),
} satisfies Table;
