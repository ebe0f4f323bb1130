/** `baton doctor`: what the supervisor can tell about the machine it runs on, each with its fix. */
import { z } from 'zod';
import { AGENT_NAME } from '../events/vocabulary.js';
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

/** A real agent as installed on the supervisor's machine: where, and whether it can reach its vendor. */
export const AgentOnMachine = z.object({
  agent: z.string(),
  /** The executable on PATH (or named by `$BATON_<AGENT>_PATH`); absent: not installed. */
  path: z.string().optional(),
  /** How it is signed in (a key's variable, a sign-in file); absent: not signed in. */
  signedIn: z.string().optional(),
  /** The command that makes it ready, when it is not. */
  fix: z.string().optional(),
});
export type AgentOnMachine = z.infer<typeof AgentOnMachine>;

export const AgentsReport = z.object({
  /** The agent a dispatch runs when it names none (`baton config set agent`, BATON_AGENT), and where that is set. */
  configured: z.object({ agent: z.string().regex(AGENT_NAME), source: z.string() }).nullable(),
  agents: z.array(AgentOnMachine),
});
export type AgentsReport = z.infer<typeof AgentsReport>;

/** One agent Baton can run (`baton agents`): its protocol, where it is, and what Baton can do with it. */
export const AgentListing = z.object({
  name: z.string(),
  title: z.string(),
  protocol: z.enum(['claude-agent-sdk', 'codex-app-server', 'acp', 'scripted']),
  /** `builtin`, or `config` for an entry of the user's own (`agents.<name>` in config.json). */
  source: z.enum(['builtin', 'config']),
  command: z.string(),
  args: z.array(z.string()),
  path: z.string().optional(),
  signedIn: z.string().optional(),
  fix: z.string().optional(),
  supports: z.object({
    approvals: z.boolean(),
    resume: z.enum(['native', 'new-conversation']),
    interrupt: z.boolean(),
    usage: z.enum(['cost', 'tokens', 'none']),
    import: z.boolean(),
  }),
});
export type AgentListing = z.infer<typeof AgentListing>;

export const AgentList = z.object({ agents: z.array(AgentListing) });

export const DOCTOR = {
  'GET /api/doctor': endpoint({
    summary:
      "The supervisor's health and version, each agent found and whether it is signed in, the machine's limits against the sessions running, worktrees' disk and leased ports",
    response: DoctorReport,
  }),
  'GET /api/agents': endpoint({
    summary:
      'The agent a dispatch runs when it names none, and the real agents installed on this machine, each with whether it is signed in',
    response: AgentsReport,
  }),
  'GET /api/agents/list': endpoint({
    summary:
      'Every agent Baton can run — its own adapters and the Agent Client Protocol registry, built-in and configured — with where each is installed, its sign-in and what it supports',
    response: AgentList,
  }),
} satisfies Table;
