import { describe, expect, it } from 'vitest';
import { parseScope, scopeOverlap, unmatchedGlobs } from './scope.js';

const files = [
  'src/watcher/index.ts',
  'src/watcher/poll.ts',
  'src/ipc/handlers.ts',
  'test/watcher/index.test.ts',
  'README.md',
];

describe('task scopes', () => {
  it('are globs relative to the repository root', () => {
    expect(parseScope([' ./src/watcher/** ', 'test/**'])).toEqual(['src/watcher/**', 'test/**']);
    expect(() => parseScope(['/etc/**'])).toThrow(/"\/etc\/\*\*" is an absolute path/);
    expect(() => parseScope(['../other/**'])).toThrow(/climbs out of the repository/);
    expect(() => parseScope(['  '])).toThrow(/is empty/);
    expect(() => parseScope(['src/[abc'])).toThrow(/is not a glob/);
  });

  it('names the globs that match no file', () => {
    expect(unmatchedGlobs(['src/watcher/**', 'src/wacther/**'], files)).toEqual(['src/wacther/**']);
  });

  it('overlap on the files both take in', () => {
    expect(scopeOverlap(['src/watcher/**'], ['src/**/*.ts'], files)).toEqual([
      'src/watcher/index.ts',
      'src/watcher/poll.ts',
    ]);
    expect(scopeOverlap(['src/watcher/**'], ['src/ipc/**'], files)).toEqual([]);
  });

  it('overlap on folders where files may yet be made', () => {
    expect(scopeOverlap(['src/new/**'], ['src/new/deep/*.ts'], files)).toEqual([
      'src/new/** ∩ src/new/deep/*.ts',
    ]);
    expect(scopeOverlap(['src/new/a.ts'], ['src/new/*.ts'], files)).toEqual(['src/new/a.ts ∩ src/new/*.ts']);
    expect(scopeOverlap(['src/new/a.ts'], ['src/other/*.ts'], files)).toEqual([]);
  });

  it('an empty scope overlaps nothing', () => {
    expect(scopeOverlap([], ['**'], files)).toEqual([]);
  });
});
