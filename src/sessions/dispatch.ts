/**
 * Dispatch: from a request to a queued session in its own worktree. Everything that can be
 * refused (the repository, the base, a dangerous mode not accepted, the agent's options, the
 * name) is checked before the worktree is made; a failure after it removes what was made.
 */
import { mkdirSync, rmSync } from 'node:fs';
import type { z } from 'zod';
import { DispatchRequest } from '../api/index.js';
import { loadAdapter } from '../agents/index.js';
import { SessionDispatched } from '../events/workspace.js';
import { DangerousModeNotAcceptedError, SessionStateError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { homePaths, sessionPaths } from '../shared/paths.js';
import type { SessionWithProject } from '../store/sessions.js';
import { createWorktree, findRepository, projectWorktreePath, removeWorktree, resolveCommit } from '../worktrees/index.js';
import type { SessionsCore } from './core.js';
import { nameFromPrompt, validateSessionName } from './names.js';

/** Permission modes in which nothing asks; a repository must accept them once (decision 12). */
const DANGEROUS_MODES: readonly string[] = ['bypassPermissions'];

export async function dispatchSession(core: SessionsCore, input: z.input<typeof DispatchRequest>): Promise<SessionWithProject> {
  const { store, ingestor } = core;
  const request = DispatchRequest.parse(input);
  const repo = await findRepository(request.cwd);
  const baseCommit = request.base === undefined ? repo.head : await resolveCommit(repo.root, request.base);
  const baseRef = request.base ?? repo.branch;
  if (DANGEROUS_MODES.includes(request.permissionMode) && !store.dangerousModeAccepted(repo.root)) {
    throw new DangerousModeNotAcceptedError(repo.root, request.permissionMode);
  }
  const adapter = await loadAdapter(request.agent);
  const agentOptions = adapter.validateOptions(request.options, repo.root);
  const project = store.ensureProject(repo.root);
  const name = pickName(core, project.id, request.name, request.prompt);
  const worktree = projectWorktreePath(homePaths(core.home).worktrees, project.name, name);
  const branch = `baton/${name}`;
  const id = newId();
  await createWorktree({ repo: repo.root, path: worktree, branch, baseCommit });
  try {
    store.insert(
      {
        id,
        project_id: project.id,
        name,
        agent: request.agent,
        prompt: request.prompt,
        model: request.model ?? null,
        permission_mode: request.permissionMode,
        options_json: JSON.stringify(agentOptions),
        branch,
        base_ref: baseRef,
        base_commit: baseCommit,
        worktree,
      },
      'queued',
    );
    mkdirSync(sessionPaths(core.home, id).dir, { recursive: true });
    core.bus.publish(SessionDispatched, { sessionId: id, name, project: project.name, agent: request.agent, branch });
    ingestor.record(id, { kind: 'queued' });
  } catch (error) {
    // Leave nothing half-created.
    await removeWorktree({ repo: repo.root, path: worktree, branch, baseCommit, snapshotName: name }).catch(() => undefined);
    store.delete(id);
    rmSync(sessionPaths(core.home, id).dir, { recursive: true, force: true });
    throw error;
  }
  await core.scheduler.run();
  return core.mustGet(id);
}

function pickName(core: SessionsCore, projectId: string, requested: string | undefined, prompt: string): string {
  if (requested !== undefined) {
    validateSessionName(requested);
    if (core.store.nameTaken(projectId, requested)) {
      throw new SessionStateError(`A session named "${requested}" already exists in this project; pick another --name or \`baton rm ${requested}\` first.`);
    }
    return requested;
  }
  const base = nameFromPrompt(prompt);
  let name = base;
  for (let n = 2; core.store.nameTaken(projectId, name); n++) name = `${base}-${n}`;
  return name;
}
