import { describe, expect, it } from 'vitest';
import { addedLines, mapLine, parseBlame, parseDiff } from './diff.js';

const DIFF = [
  'diff --git a/app.txt b/app.txt',
  'index 1111111..2222222 100644',
  '--- a/app.txt',
  '+++ b/app.txt',
  '@@ -2 +2 @@',
  '-two',
  '+TWO',
  '@@ -4,0 +5,2 @@',
  '+new a',
  '+new b',
  '@@ -7,2 +9 @@',
  '-seven',
  '-eight',
  '+SEVEN',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
  '--- "a/caf\\303\\251.txt"',
  '+++ "b/caf\\303\\251.txt"',
  '@@ -0,0 +1 @@',
  '+hello',
].join('\n');

describe('reading git diff -U0', () => {
  it('keeps each file by its new path and leaves a deleted one out, reading quoted names', () => {
    const files = parseDiff(DIFF);
    expect([...files.keys()]).toEqual(['app.txt', 'café.txt']);
    expect(addedLines(files.get('app.txt')!)).toEqual([2, 5, 6, 9]);
    expect(addedLines(files.get('café.txt')!)).toEqual([1]);
  });

  it('maps an unchanged line across insertions and removals, and a changed one to nothing', () => {
    const hunks = parseDiff(DIFF).get('app.txt')!;
    expect(mapLine(hunks, 1)).toBe(1);
    expect(mapLine(hunks, 2)).toBeUndefined();
    expect(mapLine(hunks, 3)).toBe(3);
    expect(mapLine(hunks, 4)).toBe(4);
    // Two lines were inserted after line 4.
    expect(mapLine(hunks, 5)).toBe(7);
    expect(mapLine(hunks, 6)).toBe(8);
    expect(mapLine(hunks, 7)).toBeUndefined();
    expect(mapLine(hunks, 8)).toBeUndefined();
    // Two lines became one.
    expect(mapLine(hunks, 9)).toBe(10);
    expect(mapLine([], 12)).toBe(12);
  });
});

describe('reading git blame --porcelain', () => {
  it('gives every line its commit, number there, path, author and boundary', () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const text = [
      `${a} 1 1 2`,
      'author Pat',
      'author-mail <pat@example.com>',
      'author-time 1700000000',
      'summary first',
      'boundary',
      'filename old.txt',
      '\tone',
      `${a} 2 2`,
      'filename old.txt',
      '\ttwo',
      `${b} 5 3 1`,
      'author Sam',
      'author-mail <sam@example.com>',
      'author-time 1700000100',
      'summary second',
      'previous ' + a + ' old.txt',
      'filename new.txt',
      '\tthree',
      '',
    ].join('\n');
    const lines = parseBlame(text);
    expect(lines.map((l) => [l.line, l.origLine, l.commit[0], l.path, l.text, l.boundary, l.author])).toEqual(
      [
        [1, 1, 'a', 'old.txt', 'one', true, 'Pat'],
        [2, 2, 'a', 'old.txt', 'two', true, 'Pat'],
        [3, 5, 'b', 'new.txt', 'three', false, 'Sam'],
      ],
    );
    expect(lines[2]!.authorMail).toBe('sam@example.com');
  });
});
