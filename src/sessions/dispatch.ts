/**
 * Dispatch: from a request to a queued session in its own worktree. Everything that can be
 * refused (the repository, the base, a dangerous mode not accepted, the agent's options, the
 * name) is checked before the worktree is made; a failure after it removes what was made.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { z } from 'zod';
import type { DispatchRequest } from '../api/index.js';
import { loadAdapter } from '../agents/index.js';
import { checkEnvironment, completePlan, leasePorts, writePlan } from '../environments/index.js';
import { DANGEROUS_PERMISSION_MODE } from '../events/vocabulary.js';
import { writeSessionPolicy } from '../policy/index.js';
import { loadRepoConfig, requireTrusted } from '../projects/index.js';
import { SessionDispatched } from '../events/workspace.js';
import {
  DangerousModeNotAcceptedError,
  errorMessage,
  InvalidInputError,
  SessionStateError,
} from '../shared/errors.js';
import { crashPoint } from '../shared/crash-points.js';
import { readUserConfig } from '../shared/config.js';
import { createLogger } from '../shared/log.js';
import { newId } from '../shared/ids.js';
import { OneAtATime } from '../shared/one-at-a-time.js';
import { stepTimer } from '../shared/steps.js';
import { homePaths, sessionPaths } from '../shared/paths.js';
import type { SessionWithProject } from '../store/sessions.js';
import {
  applyWork,
  createWorktree,
  findRepository,
  inBackground,
  inForeground,
  mainCheckoutWork,
  uncommittedCount,
  projectWorktreePath,
  removeWorktree,
  resolveCommit,
  type WorkSnapshot,
} from '../worktrees/index.js';
import { checkoutMode, claimInPlace } from './checkout-mode.js';
import type { SessionsCore } from './core.js';
import { nameFromPrompt, validateSessionName } from './names.js';

const log = createLogger('dispatch');

type Dispatched = { session: SessionWithProject; mainCheckout: { changedFiles: number; carried: boolean } };

/**
 * A person waits for this answer: its git calls go before any other's while it runs (decision
 * 417); what it sets going for later (its events' listeners, the host's start) does not.
 */
export function dispatchSession(
  core: SessionsCore,
  request: z.output<typeof DispatchRequest>,
  link: { taskId?: number; work?: WorkSnapshot; baseRef?: string } = {},
): Promise<Dispatched> {
  return inForeground(() => dispatchNow(core, request, link));
}

async function dispatchNow(
  core: SessionsCore,
  request: z.output<typeof DispatchRequest>,
  link: { taskId?: number; work?: WorkSnapshot; baseRef?: string },
): Promise<Dispatched> {
  const { store, ingestor } = core;
  const steps = stepTimer();
  const repo = await findRepository(request.cwd);
  // Only the answer needs the main checkout's count of uncommitted files (unless they are carried):
  // `git status` runs while the rest is checked and the worktree made (decision 310). A count that
  // cannot be taken is no reason to refuse a dispatch made without it.
  const counting = uncommittedCount(repo.root).catch((error: unknown) => {
    log.warn('could not count the main checkout’s uncommitted files', {
      repo: repo.root,
      error: errorMessage(error),
    });
    return 0;
  });
  const checkout = await checkoutMode(core, repo, request);
  const baseCommit =
    checkout.baseCommit ??
    (request.base === undefined ? repo.head : await resolveCommit(repo.root, request.base));
  const baseRef = checkout.baseRef ?? link.baseRef ?? request.base ?? repo.branch;
  // A mode in which nothing asks must be accepted once per repository (decision 12).
  if (request.permissionMode === DANGEROUS_PERMISSION_MODE && !store.dangerousModeAccepted(repo.root)) {
    throw new DangerousModeNotAcceptedError(repo.root, request.permissionMode);
  }
  // A user's ACP entry is read afresh, as `baton agents` reads it (decision 280).
  const adapter = await loadAdapter(request.agent, readUserConfig(homePaths(core.home).config).agents);
  const agentOptions = adapter.validateOptions(request.options, repo.root);
  // The repository's own settings, checked before anything is made: a bad key or path refuses the dispatch.
  const config = loadRepoConfig(repo.root);
  // Its setup, teardown, routines and variables run only once the user trusts them (decision 161).
  requireTrusted(core.home, repo.root, config);
  const environment = await checkEnvironment(repo.root, config);
  steps.mark('validate');
  // The main checkout's uncommitted work is read, never changed; mentioned whether it is carried or not.
  const carried =
    request.carryChanges === true && (await counting) > 0 ? await mainCheckoutWork(repo.root) : undefined;
  if (carried !== undefined && carried.head !== baseCommit) {
    throw new InvalidInputError(
      `--carry-changes brings the main checkout's changes on top of its HEAD (${carried.head.slice(0, 10)}); it cannot be combined with --base ${request.base ?? ''}.`,
    );
  }
  // A respawn's uncommitted work (the snapshot its first machine pushed) sits on the commit it starts from.
  if (link.work !== undefined && link.work.head !== baseCommit)
    throw new SessionStateError(
      `The work to lay over the new worktree sits on ${link.work.head.slice(0, 10)}, not on ${baseCommit.slice(0, 10)} where the session starts.`,
    );
  const work = carried ?? link.work;
  steps.mark('mainCheckout');
  const project = store.ensureProject(repo.root);
  const name = pickName(core, project.id, request.name ?? checkout.defaultName, request.prompt);
  const worktree = checkout.inPlace
    ? repo.root
    : projectWorktreePath(homePaths(core.home).worktrees, project.name, name);
  const branch = checkout.branch ?? `baton/${name}`;
  const keepBranch = checkout.branch !== undefined;
  const id = newId();
  // Leased before the worktree is made, so "no free ports" leaves nothing behind.
  const ports =
    environment.ports === undefined
      ? []
      : await leasePorts(core.ports, id, `${repo.root}\0${name}`, environment.ports);
  // Noted before the worktree exists, cleared with the session's insert: a supervisor killed in
  // between leaves this note, and the next one removes the worktree (recoverInterruptedDispatches).
  // An existing branch is noted without its name, so undoing the dispatch can never delete it.
  if (!checkout.inPlace)
    core.pending.add({
      session_id: id,
      repo: repo.root,
      worktree,
      branch: keepBranch ? '' : branch,
      base_commit: baseCommit,
      name,
    });
  crashPoint('dispatch.noted');
  steps.mark('reserve');
  try {
    if (!checkout.inPlace)
      await worktreeAdds.run(repo.root, () =>
        createWorktree({ repo: repo.root, path: worktree, branch, baseCommit, existingBranch: keepBranch }),
      );
    crashPoint('dispatch.worktree-made');
  } catch (error) {
    try {
      core.pending.remove(id);
    } catch {
      // A full disk may refuse this too; the note only makes the next start look for a worktree that is not there.
    }
    core.ports.release(id);
    throw error;
  }
  steps.mark('worktree');
  try {
    if (work !== undefined) await applyWork(worktree, work);
  } catch (error) {
    // Only just made, and holding nothing but copies of the main checkout's changes.
    await removeWorktree({
      repo: repo.root,
      path: worktree,
      branch,
      baseCommit,
      snapshotName: name,
      keepBranch,
    }).catch(() => undefined);
    core.pending.remove(id);
    core.ports.release(id);
    throw error;
  }
  try {
    if (checkout.inPlace) claimInPlace(core, repo.root);
    core.pending.commit(
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
        task_id: link.taskId ?? null,
      },
      'queued',
    );
    crashPoint('dispatch.recorded');
    mkdirSync(sessionPaths(core.home, id).dir, { recursive: true });
    if (request.instructions !== undefined && request.instructions !== '')
      writeFileSync(sessionPaths(core.home, id).instructions, request.instructions, { mode: 0o600 });
    writePlan(
      sessionPaths(core.home, id).dir,
      completePlan(environment, { id, name, branch, worktree }, ports, {
        keepBranch,
        inPlace: checkout.inPlace,
      }),
    );
    writeSessionPolicy(sessionPaths(core.home, id).dir, {
      section: config.policy ?? {},
      worktree,
      baseBranch: baseRef,
      branch,
      baseCommit,
      project: repo.root,
    });
    // Published before the scheduler's pass, whose gates read it (`--force` past the window's).
    inBackground(() =>
      core.bus.publish(SessionDispatched, {
        sessionId: id,
        name,
        project: project.name,
        agent: request.agent,
        branch,
        ...(request.force === true ? { force: true } : {}),
      }),
    );
    steps.mark('record');
  } catch (error) {
    // Leave nothing half-created (and never touch the main checkout of an in-place session).
    if (!checkout.inPlace)
      await removeWorktree({
        repo: repo.root,
        path: worktree,
        branch,
        baseCommit,
        snapshotName: name,
        keepBranch,
      }).catch(() => undefined);
    store.delete(id);
    core.ports.release(id);
    core.pending.remove(id);
    rmSync(sessionPaths(core.home, id).dir, { recursive: true, force: true });
    throw error;
  }
  // The session's first event, `queued`, is written and ingested once the answer has gone: its
  // listeners, the search index and the pass its state asks for are no part of the answer, which
  // is made from the row. Still before the host can write to the log: the host is started on a
  // later turn of the event loop than this one (decision 416).
  inBackground(() =>
    setImmediate(() => {
      try {
        ingestor.record(id, { kind: 'queued' });
        crashPoint('dispatch.queued');
      } catch (error) {
        log.error('could not record the dispatched session as queued', {
          session: id,
          error: errorMessage(error),
        });
      }
    }),
  );
  // The answer does not wait for the host (decision 310): the scheduler's pass marks the session
  // starting before this returns, and spawns its host (or hands it to the spare) on the next turn
  // of the event loop, once the answer has gone (decision 416); the host's start goes on after
  // the answer, its steps in its 'host started' line.
  void inBackground(() =>
    core.scheduler
      .run()
      .catch((error: unknown) => log.error('schedule failed', { session: id, error: errorMessage(error) })),
  );
  steps.mark('start');
  const changedFiles = await counting;
  // What the answer still waited for the main checkout's count, when that ran longer than the rest.
  steps.mark('count');
  log.info('dispatched', { session: id, name, ...steps.done() });
  // In place, the session works on those changes itself: nothing to mention.
  return {
    session: core.mustGet(id),
    mainCheckout: { changedFiles: checkout.inPlace ? 0 : changedFiles, carried: carried !== undefined },
  };
}

/**
 * Undoes dispatches a killed supervisor left between making a worktree and recording its
 * session: the worktree (just made, never given to an agent) and its branch go, so the name is
 * free again. Runs before the supervisor takes requests.
 */
export async function recoverInterruptedDispatches(core: SessionsCore): Promise<number> {
  let undone = 0;
  for (const p of core.pending.list()) {
    if (core.store.get(p.session_id) === undefined) {
      await removeWorktree({
        repo: p.repo,
        path: p.worktree,
        branch: p.branch,
        baseCommit: p.base_commit,
        snapshotName: p.name,
      }).catch((error: unknown) => {
        log.warn('could not remove the worktree of an interrupted dispatch', {
          worktree: p.worktree,
          error: errorMessage(error),
        });
      });
      undone++;
    }
    core.pending.remove(p.session_id);
  }
  if (undone > 0) log.info('undid interrupted dispatches', { count: undone });
  return undone;
}

/**
 * git itself races when two `worktree add` run at once in one repository ("failed to read
 * .git/worktrees/…/commondir"), so worktrees of one repository are made one at a time.
 */
const worktreeAdds = new OneAtATime();

function pickName(
  core: SessionsCore,
  projectId: string,
  requested: string | undefined,
  prompt: string,
): string {
  const pendingNames = new Set(core.pending.list().map((p) => p.name));
  const taken = (name: string): boolean => pendingNames.has(name) || core.store.nameTaken(projectId, name);
  if (requested !== undefined) {
    validateSessionName(requested);
    if (taken(requested)) {
      throw new SessionStateError(
        `A session named "${requested}" already exists in this project; pick another --name or \`baton rm ${requested}\` first.`,
      );
    }
    return requested;
  }
  const base = nameFromPrompt(prompt);
  let name = base;
  for (let n = 2; taken(name); n++) name = `${base}-${n}`;
  return name;
}
