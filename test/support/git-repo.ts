/**
 * A throwaway repository for unit tests of code that runs git: made in a fresh folder below the
 * system's temporary one (its real path, so paths compare equal), on `main`, with an author of
 * its own and one commit of `files`. Whole-product tests use `TestBaton.repo` instead.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The environment the tests' own git commands run in: a test author, and no system config. */
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** Runs git in `cwd` as the test's author and gives its output, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

export interface TempRepo {
  /** The folder made for the test; the repository is `repo` below it. */
  root: string;
  repo: string;
  /** The first commit. */
  base: string;
  cleanup(): void;
}

export function tempRepo(prefix: string, files: Record<string, string> = { 'a.txt': 'one\n' }): TempRepo {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  return {
    root,
    repo,
    base: git(repo, 'rev-parse', 'HEAD'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
