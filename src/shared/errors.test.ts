import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { GitError, isDiskFull } from './errors.js';

describe('a full disk, told from the error', () => {
  it('by its code or its words, and a causeless write failure only where no space is left', () => {
    expect(isDiskFull(Object.assign(new Error('write'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(new Error('database or disk is full'))).toBe(true);
    expect(isDiskFull(new GitError('git add failed', ['add'], 'error: No space left on device'))).toBe(true);
    // git names no cause: it is the full disk only if the folder has no space (this one has).
    const causeless = new GitError(
      'git worktree failed',
      ['worktree', 'add'],
      'error: unable to write file README.md',
    );
    expect(isDiskFull(causeless, tmpdir())).toBe(false);
    expect(isDiskFull(causeless, '/no/such/folder')).toBe(false);
    expect(isDiskFull(new Error('unrelated'), tmpdir())).toBe(false);
  });
});
