import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { combine, groupBase, MAX_FILE_LINES, type CombineMember } from './combine.js';

let repo: string;
const run = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
const LINES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-review-combine-'));
  run('init', '-q', '-b', 'main');
  run('config', 'user.email', 't@example.com');
  run('config', 'user.name', 'T');
  writeFileSync(join(repo, 'f.txt'), LINES.join('\n') + '\n');
  run('add', '.');
  run('commit', '-qm', 'base');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** A member: a branch from `from` whose one commit applies `edit` to f.txt (and any other files). */
function member(name: string, from: string, files: Record<string, string>): CombineMember {
  run('checkout', '-q', '-b', name, from);
  for (const [path, content] of Object.entries(files)) writeFileSync(join(repo, path), content);
  run('add', '.');
  run('commit', '-qm', name);
  const commit = run('rev-parse', 'HEAD');
  run('checkout', '-q', 'main');
  return {
    name,
    base: from,
    commit,
    tree: run('rev-parse', `${commit}^{tree}`),
    changed: Object.keys(files),
  };
}

const edit = (changes: Record<number, string>) => LINES.map((l, i) => changes[i + 1] ?? l).join('\n') + '\n';

describe('combine', () => {
  it('merges members into one diff whose hunks each name their writer', async () => {
    const base = run('rev-parse', 'HEAD');
    const a = member('a', base, { 'f.txt': edit({ 1: 'line one' }) });
    const b = member('b', base, { 'f.txt': edit({ 12: 'line twelve' }), 'g.txt': 'new\n' });
    const combined = await combine(repo, base, [a, b]);
    expect(combined.files.map((f) => [f.path, f.sessions, f.conflict])).toEqual([
      ['f.txt', ['a', 'b'], null],
      ['g.txt', ['b'], null],
    ]);
    expect(combined.files[0]!.hunks.map((h) => h.sessions)).toEqual([['a'], ['b']]);
    expect(run('cat-file', '-p', `${combined.tree}:f.txt`).split('\n')).toEqual([
      'line one',
      ...LINES.slice(1, 11),
      'line twelve',
    ]);
    expect(run('status', '--porcelain')).toBe('');
  });

  it('lists a file with too many changed lines without its hunks', async () => {
    const base = run('rev-parse', 'HEAD');
    const big = Array.from({ length: MAX_FILE_LINES + 1 }, (_, i) => `generated ${i}`).join('\n') + '\n';
    const a = member('a', base, { 'lock.json': big, 'f.txt': edit({ 1: 'small' }) });
    const combined = await combine(repo, base, [a]);
    expect(combined.files.map((f) => [f.path, f.hunks.length, f.omittedLines])).toEqual([
      ['f.txt', 1, 0],
      ['lock.json', 0, MAX_FILE_LINES + 1],
    ]);
  });

  it('marks a file whose changes do not merge as a conflict and shows each side', async () => {
    const base = run('rev-parse', 'HEAD');
    const a = member('a', base, { 'f.txt': edit({ 5: 'from a' }) });
    const b = member('b', base, { 'f.txt': edit({ 5: 'from b' }) });
    const c = member('c', base, { 'h.txt': 'c\n' });
    const combined = await combine(repo, base, [a, b, c]);
    const f = combined.files.find((x) => x.path === 'f.txt')!;
    expect(f.conflict).toEqual({ sessions: ['a', 'b'] });
    expect(
      f.hunks.map((h) => [h.sessions, h.lines.filter((l) => l.kind === '+').map((l) => l.text)]),
    ).toEqual([
      [['a'], ['from a']],
      [['b'], ['from b']],
    ]);
    expect(combined.files.find((x) => x.path === 'h.txt')!.conflict).toBeNull();
  });

  it('shows a file one member deleted and another changed as a conflict with both sides', async () => {
    const base = run('rev-parse', 'HEAD');
    run('checkout', '-q', '-b', 'gone', base);
    run('rm', '-q', 'f.txt');
    run('commit', '-qm', 'delete');
    const deleted = run('rev-parse', 'HEAD');
    run('checkout', '-q', 'main');
    const a: CombineMember = {
      name: 'a',
      base,
      commit: deleted,
      tree: run('rev-parse', `${deleted}^{tree}`),
      changed: ['f.txt'],
    };
    const b = member('b', base, { 'f.txt': edit({ 3: 'kept and changed' }) });
    const combined = await combine(repo, base, [a, b]);
    expect(combined.files.map((f) => [f.path, f.conflict])).toEqual([['f.txt', { sessions: ['a', 'b'] }]]);
    const sides = combined.files[0]!.hunks.map((h) => [
      h.sessions,
      h.lines.filter((l) => l.kind === '-').length,
      h.lines.filter((l) => l.kind === '+').length,
    ]);
    expect(sides).toEqual([
      [['a'], LINES.length, 0],
      [['b'], 1, 1],
    ]);
  });

  it('diffs against what members share when they started from different commits, leaving the newer base unattributed', async () => {
    const first = run('rev-parse', 'HEAD');
    const a = member('a', first, { 'f.txt': edit({ 2: 'by a' }) });
    writeFileSync(join(repo, 'later.txt'), 'landed on main\n');
    run('add', '.');
    run('commit', '-qm', 'later');
    const second = run('rev-parse', 'HEAD');
    const b = member('b', second, { 'f.txt': edit({ 10: 'by b' }) });
    const base = await groupBase(repo, [first, second]);
    expect(base).toBe(first);
    const combined = await combine(repo, base, [a, b]);
    expect(combined.files.map((f) => [f.path, f.sessions])).toEqual([
      ['f.txt', ['a', 'b']],
      ['later.txt', []],
    ]);
    expect(combined.files[0]!.hunks.map((h) => h.sessions)).toEqual([['a'], ['b']]);
    expect(combined.files[1]!.hunks[0]!.sessions).toEqual([]);
  });
});
