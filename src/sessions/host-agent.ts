/** What the session host hands its agent, and records when it starts it: derived from the host's spec alone. */
import { fileURLToPath } from 'node:url';
import type { AgentEvent, AgentStartOptions, BatonMcp, McpServerCommand } from '../agents/index.js';
import {
  credentialPath,
  doorPath,
  MCP_HTTP_PATH,
  MCP_TOKEN_VARIABLE,
  readCredentialFile,
  readDoorAddress,
} from '../mcp/index.js';
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
  transport: McpTransport = 'http',
): AgentStartOptions {
  // Nothing in the agent's environment leads back to the state folder or the supervisor's port
  // (the MCP endpoint's address goes in the agent's MCP configuration only).
  const env: Record<string, string> = agentEnvironment(sessionEnv);
  const batonMcp = batonMcpFor(spec, transport);
  // The bearer, for the agent's MCP client to read (decision 365): its own credential, which its
  // door holds anyway; never the user's token. Not set when it talks to `baton mcp` instead.
  if (batonMcp.http !== undefined) env[batonMcp.http.tokenVariable] = batonMcp.http.token;
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
    batonMcp,
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

/**
 * How the session's agent reaches Baton's MCP server: `http`, the supervisor's endpoint (decision
 * 365), or `stdio`, a `baton mcp` process of its own — the fallback, for an agent's version that
 * cannot use streamable HTTP, chosen with BATON_MCP_TRANSPORT=stdio in the supervisor's environment.
 */
export type McpTransport = 'http' | 'stdio';

export function mcpTransport(env: NodeJS.ProcessEnv): McpTransport {
  return env.BATON_MCP_TRANSPORT === 'stdio' ? 'stdio' : 'http';
}

/**
 * Baton's MCP server for this session: the supervisor's streamable HTTP endpoint at the address
 * its door holds, with the session's credential as the bearer, and `baton mcp` beside it for an
 * agent that takes stdio servers only. Stdio alone when asked, or when the door has no address or
 * credential to give (then `baton mcp` says why when the agent starts it).
 */
export function batonMcpFor(
  spec: Pick<HostSpec, 'home' | 'sessionId' | 'cwd'>,
  transport: McpTransport = 'http',
): BatonMcp {
  const stdio = batonMcpCommand(spec);
  if (transport === 'stdio') return { stdio };
  const file = credentialPath(spec.home, spec.sessionId);
  const address = readDoorAddress(file);
  let token: string;
  try {
    token = readCredentialFile(file);
  } catch {
    return { stdio };
  }
  if (address === undefined || token === '') return { stdio };
  return { stdio, http: { url: `${address}${MCP_HTTP_PATH}`, tokenVariable: MCP_TOKEN_VARIABLE, token } };
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

/**
 * The event with the session's credential cut out wherever it appears (an agent's `env`, a
 * `cat` of its door): the log is read by other sessions (`read_session`, search), and a
 * credential read there would let one act as another. The credential's characters (base64url
 * and dots) need no escaping in JSON, so it is cut from the event's JSON text.
 */
export function withoutCredential(body: EventBody, credential: string | undefined): EventBody {
  if (credential === undefined || credential === '') return body;
  const text = JSON.stringify(body);
  if (!text.includes(credential)) return body;
  return JSON.parse(text.split(credential).join('[REDACTED:baton-credential]')) as EventBody;
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
