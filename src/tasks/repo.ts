/** The repository side of tasks: which repository a request means, and the files scopes are checked against. */
import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { InvalidInputError } from '../shared/errors.js';
import type { ProjectRow, SessionStore } from '../store/sessions.js';
import { findRepository, gitOut } from '../worktrees/index.js';

/** The project named (its name or root), else the repository holding `cwd`, recorded on first use. */
export async function projectFor(
  sessions: SessionStore,
  named: string | undefined,
  cwd: string | undefined,
): Promise<ProjectRow> {
  if (named !== undefined) {
    const known = sessions.findProject(named);
    if (known !== undefined) return known;
    if (!isAbsolute(named))
      throw new InvalidInputError(
        `No project "${named}". Give a project's name (as \`baton ls\` shows it) or its root folder.`,
      );
    return sessions.ensureProject((await findRepository(named)).root);
  }
  if (cwd === undefined)
    throw new InvalidInputError(
      'Say which repository: run baton from inside it, or give its project name or root.',
    );
  return knownCheckout(sessions, cwd) ?? sessions.ensureProject((await findRepository(cwd)).root);
}

/**
 * The project whose main checkout `cwd` is, told without git: a known project's root that holds its
 * `.git` folder is its own repository's top level, which is what git would answer. Asking git costs
 * a process start on every board load from the repository's root (decision 420); anywhere else (a
 * subfolder, a linked worktree, whose `.git` is a file) git is asked.
 */
function knownCheckout(sessions: SessionStore, cwd: string): ProjectRow | undefined {
  const known = sessions.findProjectByRoot(cwd);
  if (known === undefined) return undefined;
  try {
    return statSync(join(cwd, '.git', 'HEAD')).isFile() ? known : undefined;
  } catch {
    return undefined;
  }
}

/** Tracked and untracked files, not ignored ones, relative to the root. */
export async function repositoryFiles(root: string): Promise<string[]> {
  const out = await gitOut(root, ['ls-files', '--cached', '--others', '--exclude-standard', '-z']);
  return [...new Set(out.split('\0').filter((file) => file !== ''))];
}
