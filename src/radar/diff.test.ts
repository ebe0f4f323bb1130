import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffArgs, hunksCollide, parseDiff, rangesCollide } from './diff.js';

let repo: string;
const run = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
const lines = (n: number, change: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-radar-diff-'));
  run('init', '-q', '-b', 'main');
  run('config', 'user.email', 't@example.com');
  run('config', 'user.name', 'T');
  writeFileSync(join(repo, 'a.txt'), lines(30));
  writeFileSync(join(repo, 'bin.dat'), Buffer.from([0, 1, 2, 3]));
  run('add', '.');
  run('commit', '-qm', 'first');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** The real git diff of the working tree's files (all added to a tree) against the first commit. */
function diffOfWork(): ReturnType<typeof parseDiff> {
  run('add', '--all');
  const tree = run('write-tree').trim();
  return parseDiff(run(...diffArgs('HEAD', tree)));
}

describe('parseDiff on real git output', () => {
  it('reads exact changed ranges, not the context around them, and keeps the diff text', () => {
    // Line 5 replaced, two lines inserted after 12, lines 20-21 removed.
    const text = lines(30, { 5: 'five' }).split('\n');
    text.splice(12, 0, 'new a', 'new b');
    text.splice(21, 2);
    writeFileSync(join(repo, 'a.txt'), text.join('\n'));
    const file = diffOfWork().get('a.txt')!;
    expect(file.hunks).toEqual([
      { start: 5, count: 1 },
      { start: 12, count: 0 },
      { start: 20, count: 2 },
    ]);
    expect(file.diff).toContain('+five');
    expect(file.binary).toBe(false);
  });

  it('names new, deleted, binary and unusually named files', () => {
    mkdirSync(join(repo, 'dir with space'));
    writeFileSync(join(repo, 'dir with space', 'ünï "q".txt'), 'x\n');
    rmSync(join(repo, 'a.txt'));
    writeFileSync(join(repo, 'bin.dat'), Buffer.from([0, 9, 9]));
    const diff = diffOfWork();
    expect([...diff.keys()].sort()).toEqual(['a.txt', 'bin.dat', 'dir with space/ünï "q".txt']);
    expect(diff.get('a.txt')!.hunks).toEqual([{ start: 1, count: 30 }]);
    expect(diff.get('dir with space/ünï "q".txt')!.hunks).toEqual([{ start: 0, count: 0 }]);
    expect(diff.get('bin.dat')!.binary).toBe(true);
  });

  it('tells a file changed in place from one added or deleted, with its mode after, even when a line of it reads like a header', () => {
    writeFileSync(join(repo, 'a.txt'), lines(30, { 3: 'new file mode 100755' }));
    writeFileSync(join(repo, 'run.sh'), 'deleted file mode 100644\n', { mode: 0o755 });
    rmSync(join(repo, 'bin.dat'));
    const diff = diffOfWork();
    expect(diff.get('a.txt')).toMatchObject({ kind: 'changed', mode: '100644' });
    expect(diff.get('run.sh')).toMatchObject({ kind: 'added', mode: '100755' });
    expect(diff.get('bin.dat')).toMatchObject({ kind: 'deleted' });

    run('commit', '-qm', 'second');
    chmodSync(join(repo, 'a.txt'), 0o755);
    expect(diffOfWork().get('a.txt')).toMatchObject({ kind: 'changed', mode: '100755' });
  });
});

describe('collisions between ranges', () => {
  it('counts overlapping and adjacent ranges and insertions at the same place, not ranges a line apart', () => {
    expect(rangesCollide({ start: 5, count: 3 }, { start: 7, count: 1 })).toBe(true);
    expect(rangesCollide({ start: 5, count: 1 }, { start: 6, count: 1 })).toBe(true);
    expect(rangesCollide({ start: 5, count: 0 }, { start: 5, count: 0 })).toBe(true);
    expect(rangesCollide({ start: 5, count: 0 }, { start: 6, count: 1 })).toBe(true);
    expect(rangesCollide({ start: 5, count: 1 }, { start: 7, count: 1 })).toBe(false);
    expect(rangesCollide({ start: 5, count: 0 }, { start: 7, count: 1 })).toBe(false);
    expect(
      hunksCollide(
        [
          { start: 1, count: 1 },
          { start: 20, count: 2 },
        ],
        [
          { start: 10, count: 1 },
          { start: 21, count: 5 },
        ],
      ),
    ).toBe(true);
    expect(hunksCollide([{ start: 1, count: 1 }], [{ start: 10, count: 1 }])).toBe(false);
  });
});
