import { describe, expect, it } from 'vitest';
import { colorize, renderStat } from './diff.js';

const stat = (
  files: { path: string; status?: string; additions: number; deletions: number; binary?: boolean }[],
) => ({
  session: 's',
  branch: 'baton/s',
  baseRef: 'main',
  baseCommit: '0123456789abcdef',
  files: files.map((f) => ({ status: 'M', binary: false, ...f })),
  additions: files.reduce((n, f) => n + f.additions, 0),
  deletions: files.reduce((n, f) => n + f.deletions, 0),
});

describe('renderStat', () => {
  it('scales the bars to the widest change and marks binary, new and deleted files', () => {
    const text = renderStat(
      stat([
        { path: 'big.ts', additions: 300, deletions: 100 },
        { path: 'img.png', status: 'A', additions: 0, deletions: 0, binary: true },
        { path: 'old.ts', status: 'D', additions: 0, deletions: 10 },
      ]),
      40,
    );
    expect(text).toBe(
      ` big.ts  | 400 ${'+'.repeat(30)}${'-'.repeat(10)}\n` +
        ' img.png | Bin\n' +
        ' old.ts  |  10 - (deleted)\n' +
        ' 3 files changed, 300 insertions(+), 110 deletions(-) against main (0123456789)\n',
    );
  });

  it('shortens a very long path from the left, keeping the file name', () => {
    const long = `${'deep/'.repeat(20)}file.ts`;
    const line = renderStat(stat([{ path: long, additions: 1, deletions: 0 }])).split('\n')[0] ?? '';
    expect(line).toMatch(/^ ….*\/file\.ts \| 1 \+$/);
    expect(line.length).toBeLessThan(75);
  });
});

describe('colorize', () => {
  it('colours additions, deletions and hunk headers, leaving context alone', () => {
    expect(colorize('@@ -1 +1 @@\n-a\n+b\n c')).toBe(
      '\x1b[36m@@ -1 +1 @@\x1b[0m\n\x1b[31m-a\x1b[0m\n\x1b[32m+b\x1b[0m\n c',
    );
  });
});
