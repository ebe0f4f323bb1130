/** A throwaway place for one agent run: a private HOME, a git repository to work in, a state folder. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Workspace {
  root: string;
  home: string;
  /** A git repository with one commit (README.md). */
  repo: string;
  stateDir: string;
  /** Writes an executable shell script into the workspace and returns its path. */
  script(name: string, body: string): string;
  remove(): void;
}

export function createWorkspace(prefix = 'baton-agent-'): Workspace {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  const git = (...args: string[]): void => {
    execFileSync('git', args, {
      cwd: repo,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  };
  for (const dir of [home, repo, join(root, 'state')]) mkdirSync(dir, { recursive: true });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# test repo\n');
  git('add', '.');
  git('-c', 'user.name=Baton Test', '-c', 'user.email=test@baton.invalid', 'commit', '-q', '-m', 'initial');
  return {
    root,
    home,
    repo,
    stateDir: join(root, 'state'),
    script(name, body) {
      const path = join(root, name);
      writeFileSync(path, `#!/bin/sh\n${body}\n`);
      chmodSync(path, 0o755);
      return path;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
