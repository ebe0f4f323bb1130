import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { git, tempRepo, type TempRepo } from '../../test/support/git-repo.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, NotAGitRepositoryError } from '../shared/errors.js';
import { repositoryRoot } from './repository.js';

let root: string;
let repo: string;

let made: TempRepo;
beforeEach(() => {
  made = tempRepo('baton-cli-repository-');
  ({ root, repo } = made);
});
afterEach(() => made.cleanup());

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
