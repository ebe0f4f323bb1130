/**
 * Where a dispatched session works (decision 59, "Setup runs in the session's host"): a new worktree on
 * `baton/<name>` (the default), a new worktree continuing one of the user's branches (`--branch`), or
 * the main checkout itself (`--in-place`), for repositories where a second checkout does not fit. An
 * in-place session holds the checkout: while one is live (not completed or removed) a second is
 * refused, so two agents never write one checkout.
 */
import type { z } from 'zod';
import type { DispatchRequest } from '../api/index.js';
import { InvalidInputError, SessionStateError } from '../shared/errors.js';
import { git, type RepositoryInfo } from '../worktrees/index.js';
import type { SessionsCore } from './core.js';

export interface CheckoutMode {
  inPlace: boolean;
  /** An existing branch to continue (`--branch`), or the main checkout's own branch in place. */
  branch?: string | undefined;
  baseCommit?: string | undefined;
  baseRef?: string | undefined;
  defaultName?: string | undefined;
}

export async function checkoutMode(
  core: SessionsCore,
  repo: RepositoryInfo,
  request: z.output<typeof DispatchRequest>,
): Promise<CheckoutMode> {
  const inPlace = request.inPlace === true;
  if (
    inPlace &&
    (request.branch !== undefined || request.base !== undefined || request.carryChanges === true)
  ) {
    throw new InvalidInputError(
      '--in-place works in the main checkout as it is; it cannot be combined with --branch, --base or --carry-changes.',
    );
  }
  if (request.branch !== undefined && (request.base !== undefined || request.carryChanges === true)) {
    throw new InvalidInputError(
      '--branch continues that branch from its tip; it cannot be combined with --base or --carry-changes.',
    );
  }
  if (inPlace) {
    claimInPlace(core, repo.root);
    return {
      inPlace,
      branch: repo.branch,
      baseCommit: repo.head,
      baseRef: repo.branch,
      defaultName: undefined,
    };
  }
  if (request.branch === undefined) return { inPlace };
  const branch = request.branch;
  if (branch.startsWith('-'))
    throw new InvalidInputError(`Invalid branch "${branch}": a branch cannot start with '-'.`);
  const tip = await git(
    repo.root,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}`],
    { okExitCodes: [1] },
  );
  if (tip.exitCode !== 0)
    throw new InvalidInputError(
      `No branch "${branch}" in ${repo.root}; \`git branch\` lists them (--base starts a new branch from any ref).`,
    );
  const slug =
    branch
      .replace(/^baton\//, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'branch';
  return { inPlace, branch, baseCommit: tip.stdout.trim(), baseRef: branch, defaultName: slug };
}

/** Refuses a second in-place session on a checkout while one is live. */
export function claimInPlace(core: SessionsCore, root: string): void {
  const holder = core.store
    .listLive()
    .find((s) => s.worktree === root && s.project_root === root && s.state !== 'completed');
  if (holder !== undefined) {
    throw new SessionStateError(
      `Session ${holder.name} is working in place in ${root} (${holder.state}); one in-place session at a time. Finish it (\`baton done ${holder.name}\`), remove it, or dispatch into a worktree instead.`,
    );
  }
}
