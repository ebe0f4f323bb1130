/** What the session host hands its agent, and records when it starts it: derived from the host's spec alone. */
import { fileURLToPath } from 'node:url';
import type { AgentEvent, AgentStartOptions, McpServerCommand } from '../agents/index.js';
import { credentialPath, doorPath } from '../mcp/index.js';
import {
  agentEnvironment,
  agentSandbox,
  type CommandSandbox,
  type SandboxStatus,
  type UserAccount,
} from '../sandbox/index.js';
import { agentInstructions, type EnvironmentPlan } from '../environments/index.js';
import { EventBody } from '../events/index.js';
import type { HostSpec } from './spec.js';

/** The `session.started` event of one start (or resume) of the agent in `hostPid`, with the sandbox it runs in. */
export function sessionStarted(spec: HostSpec, hostPid: number, sandbox: SandboxStatus['kind']): EventBody {
  return {
    type: 'session.started',
    agent: spec.agent,
    cwd: spec.cwd,
    ...(spec.model === undefined ? {} : { model: spec.model }),
    hostPid,
    resumed: spec.resumeId !== undefined,
    sandbox,
  };
}

/**
 * The sandbox the session's agent and everything it starts run in: Baton's state folder hidden
 * but for the session's worktree, agent state and door (decision 163), and the user's browser
 * profiles, keys and desktop session (decision 176).
 */
export function sessionSandbox(
  spec: HostSpec,
  stateDir: string,
  status: SandboxStatus,
  user?: UserAccount,
): CommandSandbox {
  return agentSandbox(
    {
      home: spec.home,
      worktree: spec.cwd,
      stateDir,
      door: doorPath(spec.home, spec.sessionId),
      ...(user === undefined ? {} : { user }),
      ...(spec.repository === undefined ? {} : { repository: spec.repository }),
    },
    status,
  );
}

/** The adapter's start options: the session's task, its environment, the user's setup and Baton's instructions. */
export function agentStartOptions(
  spec: HostSpec,
  stateDir: string,
  sessionEnv: Record<string, string>,
  plan: EnvironmentPlan,
  sandbox?: CommandSandbox,
): AgentStartOptions {
  // Nothing in the agent's environment leads back to the state folder or the supervisor's port.
  const env = agentEnvironment(sessionEnv);
  return {
    sessionId: spec.sessionId,
    cwd: spec.cwd,
    prompt: spec.prompt,
    model: spec.model,
    permissionMode: spec.permissionMode,
    resumeId: spec.resumeId,
    stateDir,
    options: spec.options,
    env,
    settingSources: plan.settingSources[spec.agent],
    // Baton's own, then what other domains add at each start (a task's context), then what the dispatch gave (a routine's brief).
    instructions: [
      agentInstructions({ cwd: spec.cwd, branch: env.BATON_BRANCH }, plan),
      spec.context,
      spec.instructions,
    ]
      .filter((part) => part !== undefined && part !== '')
      .join('\n\n'),
    batonMcp: batonMcpCommand(spec),
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

/**
 * `baton mcp` for this session: this Baton's own CLI, run by this Node, in the session's worktree,
 * with the path of the session's credential (never the credential: agents put their MCP
 * configuration on command lines). It finds the supervisor through the door the credential sits
 * in, not BATON_HOME: the agent starts it inside its sandbox, where the state folder is hidden.
 */
export function batonMcpCommand(spec: Pick<HostSpec, 'home' | 'sessionId' | 'cwd'>): McpServerCommand {
  return {
    command: process.execPath,
    args: [fileURLToPath(new URL('../../bin/baton', import.meta.url)), 'mcp'],
    env: { BATON_SESSION_CREDENTIAL_FILE: credentialPath(spec.home, spec.sessionId) },
    cwd: spec.cwd,
  };
}

/** Events only the host writes: an adapter claiming one would bypass the state machine. */
const HOST_ONLY = new Set([
  'session.started',
  'state.changed',
  'session.ended',
  'approval.resolved',
  'question.answered',
  'setup.step',
  'setup.output',
  'setup.finished',
  'work.checkpointed',
]);

/** An adapter's event as the host records it: itself when valid and the adapter's to write, else an error saying why. */
export function checkedAgentEvent(raw: AgentEvent): EventBody {
  const parsed = EventBody.safeParse(raw);
  if (parsed.success && !HOST_ONLY.has(parsed.data.type)) return parsed.data;
  return {
    type: 'error.raised',
    message: 'the agent adapter produced a malformed event, or one only the host may write',
    fatal: false,
    detail: JSON.stringify(raw).slice(0, 500),
  };
}
