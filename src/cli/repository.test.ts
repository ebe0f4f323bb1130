import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, NotAGitRepositoryError } from '../shared/errors.js';
import { repositoryRoot } from './repository.js';

let root: string;
let repo: string;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-cli-repository-')));
  repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the repository the CLI stands in', () => {
  it('is the main checkout from its top and from a subfolder', async () => {
    mkdirSync(join(repo, 'deep', 'er'), { recursive: true });
    expect(await repositoryRoot(repo)).toBe(repo);
    expect(await repositoryRoot(join(repo, 'deep', 'er'))).toBe(repo);
  });

  it('is the main checkout from a linked worktree, as the supervisor names repositories', async () => {
    const linked = join(root, 'linked');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', linked);
    expect(await repositoryRoot(linked)).toBe(repo);
  });

  it('is the checkout whose git folder lives elsewhere', async () => {
    const apart = join(root, 'apart');
    execFileSync('git', ['init', '-q', '--separate-git-dir', join(root, 'apart.git'), apart]);
    expect(await repositoryRoot(apart)).toBe(apart);
  });

  it('is refused outside a repository, and inside a bare one, saying which', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    await expect(repositoryRoot(outside)).rejects.toBeInstanceOf(NotAGitRepositoryError);
    const bare = join(root, 'bare.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    await expect(repositoryRoot(bare)).rejects.toThrow(InvalidInputError);
    await expect(repositoryRoot(bare)).rejects.toThrow(/bare repository/);
  });
});
