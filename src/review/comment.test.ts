import { describe, expect, it } from 'vitest';
import type { GroupReview, ReviewFile } from '../api/review.js';
import { buildComment } from './comment.js';

const members = ['a', 'b'].map((name) => ({
  id: `id-${name}`,
  name,
  state: 'ready_for_review',
  branch: `baton/${name}`,
  filesChanged: 1,
}));
const line = (
  kind: '+' | '-' | ' ',
  text: string,
  old: number | null,
  neu: number | null,
  by: string[] = [],
) => ({ kind, text, old, new: neu, by });

// Lines 1–4 of x.ts: a rewrote line 2, b added line 4; a second hunk only deletes (b).
const file: ReviewFile = {
  path: 'x.ts',
  oldPath: null,
  status: 'modified',
  binary: false,
  sessions: ['a', 'b'],
  conflict: null,
  state: 'none',
  omittedLines: 0,
  hunks: [
    {
      header: '@@ -1,3 +1,4 @@',
      oldStart: 1,
      oldCount: 3,
      newStart: 1,
      newCount: 4,
      sessions: ['a', 'b'],
      lines: [
        line(' ', 'one', 1, 1),
        line('-', 'two', 2, null, ['a']),
        line('+', 'TWO', null, 2, ['a']),
        line(' ', 'three', 3, 3),
        line('+', 'four', null, 4, ['b']),
      ],
    },
    {
      header: '@@ -20,2 +20,0 @@',
      oldStart: 20,
      oldCount: 2,
      newStart: 20,
      newCount: 0,
      sessions: ['b'],
      lines: [line('-', 'gone', 20, null, ['b']), line('-', 'gone too', 21, null, ['b'])],
    },
  ],
};
const review = {
  project: 'p',
  root: '/r',
  number: 2,
  base: 'b',
  members,
  reasons: [],
  conflicts: [],
  files: [file],
} satisfies GroupReview;
const request = (line: number, extra: Record<string, unknown> = {}) => ({
  path: 'x.ts',
  line,
  text: ' please rename ',
  ...extra,
});

describe('buildComment', () => {
  it('goes to the writer of the commented line, quoting it with its number', () => {
    const built = buildComment(review, file, request(2));
    expect(built.recipients.map((m) => m.name)).toEqual(['a']);
    expect(built.reply).toBe(
      [
        'Review comment on x.ts, line 2 (from the combined review of your work with b).',
        '',
        `${' '.repeat(8)} - two`,
        `${' '.repeat(7)}2 + TWO`,
        '',
        'please rename',
      ].join('\n'),
    );
  });

  it('goes to every writer in a range, or to the one chosen among them', () => {
    expect(buildComment(review, file, request(2, { endLine: 4 })).recipients.map((m) => m.name)).toEqual([
      'a',
      'b',
    ]);
    expect(
      buildComment(review, file, request(2, { endLine: 4, session: 'b' })).recipients.map((m) => m.name),
    ).toEqual(['b']);
    expect(() => buildComment(review, file, request(4, { session: 'a' }))).toThrow(
      'x.ts:4 was written by b, not a.',
    );
    expect(() => buildComment(review, file, request(4, { session: 'c' }))).toThrow(
      'c is not in group 2 (a, b).',
    );
  });

  it('takes a context line to mean the hunk, and finds a hunk that only deletes', () => {
    expect(buildComment(review, file, request(3)).recipients.map((m) => m.name)).toEqual(['a', 'b']);
    expect(buildComment(review, file, request(20)).recipients.map((m) => m.name)).toEqual(['b']);
  });

  it('refuses lines outside the hunks and backwards ranges, saying what is changed', () => {
    expect(() => buildComment(review, file, request(10))).toThrow(
      'x.ts:10 is outside the changed lines of x.ts (changed hunks cover lines 1–4, 20 (deleted lines))',
    );
    expect(() => buildComment(review, file, request(4, { endLine: 2 }))).toThrow(
      'The range 4–2 ends before it starts.',
    );
  });
});
