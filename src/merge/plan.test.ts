import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planOrder } from './plan.js';

let repo: string;
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-plan-test-'));
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'T');
  writeFileSync(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\n');
  git('add', '.');
  git('commit', '-qm', 'first');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** A branch off main writing `files`; returns its tip. */
function branch(name: string, files: Record<string, string>): string {
  git('checkout', '-q', '-b', name, 'main');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(repo, path), content);
  git('add', '.');
  git('commit', '-qm', name);
  git('checkout', '-q', 'main');
  return git('rev-parse', name);
}

describe('the landing plan', () => {
  it('puts sessions that conflict with nothing first and names the conflicts the rest will meet', async () => {
    const a = branch('a', { 'shared.txt': 'line 1 by a\nline 2\nline 3\n' });
    const b = branch('b', { 'shared.txt': 'line 1 by b\nline 2\nline 3\n' });
    const c = branch('c', { 'c.txt': 'independent\n' });
    const steps = await planOrder(repo, git('rev-parse', 'main'), [
      { id: 'a', name: 'a', commit: a },
      { id: 'b', name: 'b', commit: b },
      { id: 'c', name: 'c', commit: c },
    ]);
    expect(steps.map((s) => s.name)).toEqual(['c', 'a', 'b']);
    expect(steps[0]).toMatchObject({ conflicts: [], conflictsWith: [] });
    expect(steps[1]).toMatchObject({ conflicts: [], conflictsWith: ['b'] });
    expect(steps[2]).toMatchObject({ conflicts: ['shared.txt'], conflictsWith: ['a'] });
  });

  it('keeps the given order among sessions that merge cleanly together', async () => {
    const tips = ['x', 'y', 'z'].map((n) => ({ id: n, name: n, commit: branch(n, { [`${n}.txt`]: n }) }));
    expect((await planOrder(repo, git('rev-parse', 'main'), tips)).map((s) => s.name)).toEqual([
      'x',
      'y',
      'z',
    ]);
  });

  it('orders a session that conflicts with the base last', async () => {
    const d = branch('d', { 'shared.txt': 'line 1 by d\nline 2\nline 3\n' });
    const e = branch('e', { 'e.txt': 'e' });
    writeFileSync(join(repo, 'shared.txt'), 'line 1 on main\nline 2\nline 3\n');
    git('commit', '-qam', 'main moves');
    const steps = await planOrder(repo, git('rev-parse', 'main'), [
      { id: 'd', name: 'd', commit: d },
      { id: 'e', name: 'e', commit: e },
    ]);
    expect(steps.map((s) => [s.name, s.conflicts])).toEqual([
      ['e', []],
      ['d', ['shared.txt']],
    ]);
  });
});
