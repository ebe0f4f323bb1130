/**
 * Starting a group: every session is dispatched (each queues when the scheduler's slots are
 * full, as any dispatch does), and the group is recorded once they all are. Everything that can
 * be refused (the cap, the agents, the names, the items) is refused before the first dispatch;
 * a dispatch refused midway (an agent's options, say) removes the sessions already made, so no
 * group is ever half made.
 */
import { DispatchRequest } from '../api/index.js';
import type { BestOfRequest, FanoutRequest } from '../api/attempts.js';
import type { AgentId } from '../events/vocabulary.js';
import { loadRepoConfig } from '../projects/index.js';
import { errorMessage, InvalidInputError, SessionStateError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { createLogger } from '../shared/log.js';
import { nameFromPrompt, validateSessionName } from '../sessions/index.js';
import type { AttemptKind, NewMember } from '../store/attempts.js';
import type { SessionWithProject } from '../store/sessions.js';
import { findRepository } from '../worktrees/index.js';
import type { z } from 'zod';
import { attemptAgents, batchPrompt, batches, memberName } from './plan.js';
import type { AttemptSessions } from './sessions.js';

const log = createLogger('attempts');

/** Room left in a session name after the group's base: `-b1000-retry`. */
const SUFFIX_ROOM = 12;

export interface PlannedMember {
  slot: number;
  agent: AgentId;
  name: string;
  prompt: string;
  items: string[] | null;
}

export interface StartedGroup {
  id: string;
  kind: AttemptKind;
  projectId: string;
  members: { member: NewMember; session: SessionWithProject }[];
}

type Common = Pick<
  z.output<typeof FanoutRequest>,
  'prompt' | 'cwd' | 'name' | 'model' | 'base' | 'permissionMode' | 'options' | 'instructions' | 'taskId'
>;

export async function planBestOf(
  sessions: AttemptSessions,
  request: z.output<typeof BestOfRequest>,
): Promise<PlannedMember[]> {
  const root = (await findRepository(request.cwd)).root;
  const agents = attemptAgents(request.agents, request.n, loadRepoConfig(root));
  const base = baseName(sessions, root, request.name, request.prompt, agents.length, 'best_of');
  const prompt = request.prompt;
  return agents.map((agent, i) => ({
    slot: i + 1,
    agent,
    name: memberName(base, 'best_of', i + 1),
    prompt,
    items: null,
  }));
}

export async function planFanout(
  sessions: AttemptSessions,
  request: z.output<typeof FanoutRequest>,
): Promise<PlannedMember[]> {
  const root = (await findRepository(request.cwd)).root;
  const split = batches(request.items, request.batch, loadRepoConfig(root));
  const base = baseName(sessions, root, request.name, request.prompt, split.length, 'fanout');
  return split.map((items, i) => ({
    slot: i + 1,
    agent: request.agent,
    name: memberName(base, 'fanout', i + 1),
    prompt: batchPrompt(request.prompt, items, i + 1, split.length),
    items,
  }));
}

/** Dispatches the planned sessions in order; on a refusal, removes those already made and rethrows. */
export async function startMembers(
  sessions: AttemptSessions,
  kind: AttemptKind,
  request: Common,
  planned: PlannedMember[],
): Promise<StartedGroup> {
  const id = newId(8);
  const started: { member: NewMember; session: SessionWithProject }[] = [];
  try {
    for (const plan of planned) {
      const session = await dispatchOne(sessions, request, plan);
      started.push({
        session,
        member: {
          group_id: id,
          slot: plan.slot,
          try: 1,
          session_id: session.id,
          agent: plan.agent,
          items_json: plan.items === null ? null : JSON.stringify(plan.items),
        },
      });
    }
  } catch (error) {
    for (const { session } of started.reverse()) {
      await sessions.remove(session.id).catch((undo: unknown) =>
        log.warn('could not undo an attempt dispatch', {
          session: session.name,
          error: errorMessage(undo),
        }),
      );
    }
    throw error;
  }
  return { id, kind, projectId: started[0]!.session.project_id, members: started };
}

export function dispatchOne(
  sessions: AttemptSessions,
  request: Common,
  plan: Pick<PlannedMember, 'agent' | 'name' | 'prompt'>,
): Promise<SessionWithProject> {
  const dispatch = DispatchRequest.parse({
    prompt: plan.prompt,
    cwd: request.cwd,
    name: plan.name,
    agent: plan.agent,
    permissionMode: request.permissionMode,
    options: request.options[plan.agent] ?? {},
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.base === undefined ? {} : { base: request.base }),
    // Baton's instructions channel (system prompt append / developer instructions), not the prompt.
    ...(request.instructions === undefined || request.instructions.trim() === ''
      ? {}
      : { instructions: request.instructions }),
  });
  // A task's attempts are its sessions: each records the task and is told its context at every start.
  const taskId = request.taskId === undefined ? undefined : Number(request.taskId.replace(/^#/, ''));
  if (
    taskId !== undefined &&
    Number.isInteger(taskId) &&
    taskId > 0 &&
    sessions.dispatchForTask !== undefined
  )
    return sessions.dispatchForTask(dispatch, taskId);
  return sessions.dispatch(dispatch);
}

/**
 * The start of the group's session names: `name` as given (refused when one of the names is
 * taken), or from the prompt with `-2`, `-3`… until every name is free.
 */
function baseName(
  sessions: AttemptSessions,
  root: string,
  name: string | undefined,
  prompt: string,
  count: number,
  kind: AttemptKind,
): string {
  const live = new Set(
    sessions
      .list()
      .filter((s) => s.project_root === root)
      .map((s) => s.name),
  );
  const free = (base: string): boolean => {
    for (let slot = 1; slot <= count; slot++)
      if (live.has(memberName(base, kind, slot)) || live.has(memberName(base, kind, slot, 2))) return false;
    return true;
  };
  if (name !== undefined) {
    validateSessionName(memberName(name, kind, count, 2));
    if (!free(name))
      throw new SessionStateError(
        `Sessions named ${memberName(name, kind, 1)}… already exist in this project; pick another --name.`,
      );
    return name;
  }
  const stem =
    nameFromPrompt(prompt)
      .slice(0, 48 - SUFFIX_ROOM - 4)
      .replace(/-+$/, '') || 'attempt';
  for (let n = 1; n < 1000; n++) {
    const base = n === 1 ? stem : `${stem}-${n}`;
    if (free(base)) return base;
  }
  throw new InvalidInputError('No free session names for this group; pass --name.');
}
