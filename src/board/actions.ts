/**
 * What the board's keys do, as calls of the one typed client: the same endpoints `baton reply`,
 * `approve`, `pin`, `stop`, `rm` and `dispatch` call. Each answers a line for the status bar.
 */
import type { PeekView, SessionView } from '../api/index.js';
import type { SupervisorClient } from '../cli/client.js';
import { plainDeep } from '../cli/terminal.js';
import { AGENT_IDS, AGENT_NAME, DEFAULT_PERMISSION_MODE } from '../events/vocabulary.js';
import type { BatonEvent } from '../events/index.js';
import { InvalidInputError } from '../shared/errors.js';

/** Events worth showing beside a question: what the agent said and did, not bookkeeping. */
const CONTEXT_TYPES = new Set([
  'message.added',
  'thinking.added',
  'tool.started',
  'tool.finished',
  'error.raised',
  'question.asked',
  'approval.requested',
]);
const CONTEXT_EVENTS = 6;
/** A page this long before the last event holds the context (bookkeeping events included). */
const CONTEXT_WINDOW = 40;

export interface PeekData {
  view: PeekView;
  /** The last few events that say what the agent did, oldest first. */
  context: BatonEvent[];
}

/** What `peek` shows, plus the events before the session's latest. */
export async function peekSession(api: SupervisorClient, id: string): Promise<PeekData> {
  const [view, page] = await Promise.all([
    api.call('GET /api/sessions/:ref/peek', { params: { ref: id } }),
    api
      .call('GET /api/sessions/:ref/transcript', { params: { ref: id }, query: { limit: CONTEXT_WINDOW } })
      .catch(() => undefined),
  ]);
  const events = page?.events ?? [];
  // An agent's words, drawn as text (decision 400).
  return plainDeep({ view, context: events.filter((e) => CONTEXT_TYPES.has(e.type)).slice(-CONTEXT_EVENTS) });
}

export async function reply(api: SupervisorClient, s: SessionView, text: string): Promise<string> {
  if (text.trim() === '') throw new InvalidInputError('Nothing to send: type a reply first (esc cancels).');
  const { session } = await api.call('POST /api/sessions/:ref/reply', {
    params: { ref: s.id },
    body: { text },
  });
  return `Replied to ${session.name}; it is ${session.state.replace(/_/g, ' ')}.`;
}

export async function decide(
  api: SupervisorClient,
  s: SessionView,
  decision: 'allow' | 'deny',
  reason: string,
): Promise<string> {
  const body = { decision, ...(reason.trim() === '' ? {} : { reason: reason.trim() }) };
  const { session } = await api.call('POST /api/sessions/:ref/approval', { params: { ref: s.id }, body });
  return `${decision === 'allow' ? 'Approved' : 'Denied'} for ${session.name}; it is ${session.state.replace(/_/g, ' ')}.`;
}

export async function togglePin(api: SupervisorClient, s: SessionView): Promise<string> {
  const { session } = await api.call('POST /api/sessions/:ref/pin', {
    params: { ref: s.id },
    body: { pinned: !s.pinned },
  });
  return `${session.name} ${session.pinned ? 'pinned' : 'unpinned'}.`;
}

export async function stop(api: SupervisorClient, s: SessionView): Promise<string> {
  const { session } = await api.call('POST /api/sessions/:ref/stop', { params: { ref: s.id } });
  return `${session.name} is ${session.state.replace(/_/g, ' ')}; \`baton respawn ${session.name}\` or a reply resumes it.`;
}

export async function remove(api: SupervisorClient, s: SessionView): Promise<string> {
  const view = await api.call('DELETE /api/sessions/:ref', { params: { ref: s.id } });
  const kept =
    view.snapshotRef === null
      ? 'no uncommitted work to keep'
      : `uncommitted work kept in ${view.snapshotRef}`;
  const branch = view.branchDeleted
    ? `branch ${s.branch} had no commits and was deleted`
    : `branch ${s.branch} kept`;
  return `Removed ${s.name}: ${kept}; ${branch}.`;
}

/** What the remove question says before anything is removed. */
export function removeWarning(s: SessionView): string[] {
  const busy = ['queued', 'preparing', 'starting', 'working', 'needs_input'].includes(s.state);
  return [
    `Remove ${s.name}${busy ? ` (it is ${s.state.replace(/_/g, ' ')}: its agent is stopped)` : ''}?`,
    `Its worktree ${s.worktree} is deleted.`,
    `Uncommitted work there is kept in the ref refs/baton/snapshots/${s.name} (\`baton snapshots\`, \`baton restore\`);`,
    `branch ${s.branch} is kept if it has commits.   y remove   esc keep`,
  ];
}

export interface DispatchForm {
  prompt: string;
  agent: string;
  name: string;
}

/** The agent left blank: the supervisor runs the configured one, else the one installed (decision 185). */
export const emptyDispatch: DispatchForm = { prompt: '', agent: '', name: '' };

/** Checks the form first, naming the field at fault, so nothing is sent half right. */
export async function dispatch(api: SupervisorClient, form: DispatchForm, cwd: string): Promise<string> {
  const prompt = form.prompt.trim();
  if (prompt === '') throw new InvalidInputError('The prompt is empty: say what the agent should do.');
  const agent = form.agent.trim();
  // A well-formed name goes to the supervisor, which knows the user's entries too (decision 280).
  if (agent !== '' && !AGENT_NAME.test(agent))
    throw new InvalidInputError(
      `"${agent}" is not an agent name; agents are: ${AGENT_IDS.join(', ')} and your entries in config.json.`,
    );
  const name = form.name.trim();
  const { session, warnings, agentChosen } = await api.call('POST /api/sessions', {
    body: {
      prompt,
      cwd,
      ...(agent === '' ? {} : { agent }),
      permissionMode: DEFAULT_PERMISSION_MODE,
      options: {},
      ...(name === '' ? {} : { name }),
    },
  });
  const warned = (warnings ?? []).map((w) => ` Warning: dispatched while ${w}.`).join('');
  const chosen = agentChosen === undefined ? '' : ` No agent named: ran ${agentChosen}.`;
  return `Dispatched ${session.name} (${session.agent}) on ${session.branch}.${chosen}${warned}`;
}

/** A failed call's message for the status bar (the supervisor's own words). */
export function failure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
