/**
 * A session's environment plan: what its worktree gets while it is `preparing` (copies, shared
 * folders, setup commands), its ports and variables, its teardown, and whose agent setup its
 * agent loads. Made at dispatch from the repository's `.baton/config.json`, checked against the
 * repository before any worktree exists (bad input leaves nothing half-made), and kept in the
 * session's folder so a respawned host uses the same one.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_SETUP_SECONDS, type RepoConfig } from '../projects/index.js';
import { InvalidInputError } from '../shared/errors.js';
import { git } from '../worktrees/index.js';

const Command = z.union([z.string(), z.array(z.string())]);
export type Command = z.infer<typeof Command>;
export const SHARE_MODE_NAMES = ['auto', 'reflink', 'hardlink', 'symlink'] as const;

export const EnvironmentPlan = z.object({
  /** The main checkout files are copied and shared from. */
  source: z.string(),
  /** Per agent, the setting sources the repository chose; absent: the agent's own default (all). */
  settingSources: z.record(z.string(), z.array(z.string())).default({}),
  copy: z.array(z.string()).default([]),
  /** `.worktreeinclude` was present in the main checkout. */
  worktreeInclude: z.boolean().default(false),
  share: z.array(z.object({ path: z.string(), mode: z.enum(SHARE_MODE_NAMES) })).default([]),
  setup: z.array(Command).default([]),
  setupTimeoutSeconds: z.number().int().positive().default(DEFAULT_SETUP_SECONDS),
  teardown: z.array(Command).default([]),
  ports: z.array(z.object({ name: z.string(), port: z.number().int() })).default([]),
  /** The session continues a branch of the user's (`--branch`): removing it never deletes the branch. */
  keepBranch: z.boolean().default(false),
  /** The session works in the main checkout itself (`--in-place`): nothing to copy, share or remove. */
  inPlace: z.boolean().default(false),
  /** Variables for the session, templates filled in, ports included. */
  env: z.record(z.string(), z.string()).default({}),
});
export type EnvironmentPlan = z.infer<typeof EnvironmentPlan>;

export const PLAN_FILE = 'environment.json';

/** True when the plan has something to do while the session is `preparing`. */
export function needsPreparing(plan: EnvironmentPlan): boolean {
  return plan.copy.length > 0 || plan.worktreeInclude || plan.share.length > 0 || plan.setup.length > 0;
}

export function writePlan(sessionDir: string, plan: EnvironmentPlan): void {
  writeFileSync(join(sessionDir, PLAN_FILE), JSON.stringify(plan, null, 2) + '\n');
}

/** The session's plan; an empty one for sessions dispatched before plans existed. */
export function readPlan(sessionDir: string, fallbackSource: string): EnvironmentPlan {
  const path = join(sessionDir, PLAN_FILE);
  if (!existsSync(path)) return EnvironmentPlan.parse({ source: fallbackSource });
  return EnvironmentPlan.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** A path from the config, inside the repository (symbolic links followed), or an error naming the key. */
export function insideRepository(root: string, path: string, key: string): string {
  const full = resolve(root, path);
  const escapes = (p: string, base: string): boolean => {
    const rel = relative(base, p);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel);
  };
  if (escapes(full, root))
    throw new InvalidInputError(
      `.baton/config.json: ${key} "${path}" is outside the repository; give a path inside it.`,
    );
  if (existsSync(full)) {
    const realRoot = realpathSync(root);
    if (escapes(realpathSync(full), realRoot)) {
      throw new InvalidInputError(
        `.baton/config.json: ${key} "${path}" leads outside the repository through a symbolic link; give a path inside it.`,
      );
    }
  }
  return relative(root, full);
}

/**
 * The plan's checks against the repository: copy and share paths inside it, shared folders
 * ignored by git (sharing a tracked folder would let one session's edits show up in another's
 * checkout, and git would see them as changes).
 */
export async function checkedWorktreeSection(
  root: string,
  config: RepoConfig,
): Promise<Pick<EnvironmentPlan, 'copy' | 'share' | 'worktreeInclude'>> {
  const section = config.worktree ?? {};
  const copy = (section.copy ?? []).map((p, i) => insideRepository(root, p, `worktree.copy[${i}]`));
  const share: EnvironmentPlan['share'] = [];
  for (const [i, entry] of (section.share ?? []).entries()) {
    const raw = typeof entry === 'string' ? { path: entry, mode: 'auto' as const } : entry;
    const path = insideRepository(root, raw.path.replace(/\/+$/, ''), `worktree.share[${i}]`);
    const ignored = await git(root, ['check-ignore', '-q', '--no-index', '--', path], { okExitCodes: [1] });
    if (ignored.exitCode !== 0) {
      throw new InvalidInputError(
        `.baton/config.json: worktree.share[${i}] "${raw.path}" is not ignored by git. Only git-ignored folders (node_modules, .venv) can be shared; add it to .gitignore or list it under worktree.copy.`,
      );
    }
    share.push({ path, mode: raw.mode });
  }
  return { copy, share, worktreeInclude: existsSync(join(root, '.worktreeinclude')) };
}
