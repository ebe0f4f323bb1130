/**
 * Making a worktree ready while its session is `preparing`: copies from the main checkout (the
 * listed paths, then what `.worktreeinclude` names), shared folders, then the setup commands,
 * in that order. Every step is reported as it starts and its output as it comes; the first
 * failure stops the rest and is returned with the output that explains it.
 */
import { appendFileSync, constants, cpSync, existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, gitOut } from '../worktrees/index.js';
import type { EnvironmentPlan } from './plan.js';
import { commandLabel, runCommand } from './run.js';
import { shareFolder } from './share.js';

export interface PrepareReporter {
  step(index: number, kind: 'copy' | 'share' | 'run', label: string): void;
  output(index: number, text: string): void;
}

export type PrepareResult = { ok: true } | { ok: false; error: string; output: string };

/** The last output kept for a failure's message. */
const TAIL = 4_000;

export async function prepareWorktree(
  plan: EnvironmentPlan,
  worktree: string,
  env: NodeJS.ProcessEnv,
  report: PrepareReporter,
  signal?: AbortSignal,
): Promise<PrepareResult> {
  let index = 0;
  let tail = '';
  const out = (i: number, text: string): void => {
    tail = (tail + text).slice(-TAIL);
    report.output(i, text);
  };
  const fail = (error: string): PrepareResult => ({ ok: false, error, output: tail.trim() });
  try {
    for (const path of plan.copy) {
      const i = index++;
      report.step(i, 'copy', path);
      out(
        i,
        copyFromMain(plan.source, worktree, path)
          ? `copied ${path}\n`
          : `${path} is not in the main checkout; skipped\n`,
      );
    }
    if (plan.worktreeInclude) {
      const i = index++;
      report.step(i, 'copy', '.worktreeinclude');
      const shared = plan.share.map((s) => s.path);
      const files = (await worktreeIncludeFiles(plan.source)).filter(
        (f) => !shared.some((s) => f === s || f.startsWith(`${s}/`)),
      );
      let copied = 0;
      for (const file of files) if (copyFromMain(plan.source, worktree, file)) copied++;
      out(i, `copied ${copied} git-ignored file(s) named by .worktreeinclude\n`);
    }
    for (const share of plan.share) {
      const i = index++;
      report.step(i, 'share', share.path);
      const source = join(plan.source, share.path);
      const target = join(worktree, share.path);
      if (!existsSync(source)) {
        out(i, `${share.path} is not in the main checkout (not installed there yet?); nothing to share\n`);
        continue;
      }
      if (exists(target)) {
        out(i, `${share.path} is already in the worktree; left as it is\n`);
        continue;
      }
      const mode = shareFolder(source, target, share.mode);
      if (mode === 'symlink') await hideFromGit(worktree, share.path);
      out(i, `shared ${share.path} by ${mode}\n`);
    }
    for (const command of plan.setup) {
      if (signal?.aborted === true) return fail('setup was stopped');
      const i = index++;
      const label = commandLabel(command);
      report.step(i, 'run', label);
      const result = await runCommand(command, {
        cwd: worktree,
        env,
        timeoutMs: plan.setupTimeoutSeconds * 1000,
        signal,
        onOutput: (text) => out(i, text),
      });
      if (result.ended === 'timeout')
        return fail(
          `setup command \`${label}\` did not finish within ${plan.setupTimeoutSeconds} s (worktree.setupTimeoutSeconds) and was ended`,
        );
      if (result.ended === 'aborted') return fail(`setup command \`${label}\` was stopped`);
      if (!result.ok) return fail(`setup command \`${label}\` failed: ${result.error ?? 'unknown error'}`);
    }
  } catch (error) {
    return fail((error as Error).message);
  }
  return { ok: true };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Copies a file or folder from the main checkout, cloning where the file system can; never overwrites. */
function copyFromMain(source: string, worktree: string, path: string): boolean {
  const from = join(source, path);
  if (!exists(from)) return false;
  const to = join(worktree, path);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, {
    recursive: true,
    mode: constants.COPYFILE_FICLONE,
    force: false,
    errorOnExist: false,
    verbatimSymlinks: true,
    preserveTimestamps: true,
  });
  return true;
}

/**
 * `.worktreeinclude` (gitignore syntax, a convention several tools share): files git ignores
 * and this file names are copied into new worktrees. Tracked files are already there.
 */
async function worktreeIncludeFiles(source: string): Promise<string[]> {
  const include = join(source, '.worktreeinclude');
  if (!existsSync(include)) return [];
  const named = await gitOut(source, [
    'ls-files',
    '-z',
    '--others',
    '--ignored',
    `--exclude-from=${include}`,
  ]);
  const candidates = named.split('\0').filter((f) => f !== '');
  if (candidates.length === 0) return [];
  // Of those, only what git ignores: an untracked file that is not ignored is the user's work in progress.
  const ignored: string[] = [];
  for (let i = 0; i < candidates.length; i += 500) {
    const batch = await git(
      source,
      ['-c', 'core.quotePath=false', 'check-ignore', '--', ...candidates.slice(i, i + 500)],
      { okExitCodes: [1] },
    );
    ignored.push(...batch.stdout.split('\n').filter((f) => f !== ''));
  }
  return ignored;
}

/**
 * A symlinked folder is not a folder to git, so `node_modules/` in .gitignore does not cover it;
 * it is added to the repository's own exclude file (`info/exclude`, never committed) once.
 */
async function hideFromGit(worktree: string, path: string): Promise<void> {
  const status = await gitOut(worktree, ['status', '--porcelain', '--untracked-files=normal', '--', path]);
  if (status === '') return;
  const exclude = join(
    await gitOut(worktree, ['rev-parse', '--path-format=absolute', '--git-common-dir']),
    'info',
    'exclude',
  );
  mkdirSync(dirname(exclude), { recursive: true });
  const current = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  const line = `/${path}`;
  if (!current.split('\n').includes(line))
    appendFileSync(
      exclude,
      `${current === '' || current.endsWith('\n') ? '' : '\n'}# shared by Baton into session worktrees as a symbolic link\n${line}\n`,
    );
}
