/**
 * Which repository the caller stands in, asked of git by the CLI itself: the supervisor knows
 * repositories by their main checkout's root, so a command run in a linked worktree or a subfolder
 * names the same repository as one run at the top of the main checkout. The CLI reads it with one
 * git call instead of loading src/worktrees (a client imports only the API's vocabulary).
 */
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { InvalidInputError, NotAGitRepositoryError } from '../shared/errors.js';

/**
 * The root of the main checkout of the repository `cwd` is in: the folder holding its `.git`, or
 * for a repository whose git folder lives elsewhere (`--separate-git-dir`), the top of `cwd`'s checkout.
 */
export async function repositoryRoot(cwd: string): Promise<string> {
  let out: string;
  try {
    ({ stdout: out } = await promisify(execFile)(
      'git',
      ['rev-parse', '--path-format=absolute', '--git-common-dir', '--is-bare-repository', '--show-toplevel'],
      { cwd, encoding: 'utf8' },
    ));
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    if (/must be run in a work tree/.test(stderr ?? ''))
      throw new InvalidInputError(
        `${cwd} is inside a bare repository or a .git folder; run baton from a checkout`,
      );
    throw new NotAGitRepositoryError(cwd);
  }
  const [commonDir = '', bare = '', topLevel = ''] = out.trim().split('\n');
  if (bare === 'true') throw new InvalidInputError(`${cwd} is a bare repository; run baton from a checkout`);
  return commonDir.endsWith('/.git') ? dirname(commonDir) : topLevel;
}
