import { describe, expect, it } from 'vitest';
import { ftsQuery, parseSince } from './query.js';

describe('ftsQuery', () => {
  it('quotes words and prefix-matches them, keeping operators, phrases and groups', () => {
    expect(ftsQuery('onChange signature')).toBe('"onChange"* "signature"*');
    expect(ftsQuery('"old signature" OR (cache AND tenant)')).toBe(
      '"old signature"* OR ( "cache"* AND "tenant"* )',
    );
    expect(ftsQuery('NOT flaky')).toBe('NOT "flaky"*');
  });

  it('keeps parentheses inside words and unbalanced ones literal', () => {
    expect(ftsQuery('onChange()')).toBe('"onChange()"');
    expect(ftsQuery('works( after:')).toBe('"works("' + ' "after:"');
  });

  it('refuses an empty search and an unclosed quote with a clear message', () => {
    expect(() => ftsQuery('  ')).toThrow(/The search is empty/);
    expect(() => ftsQuery('"open phrase')).toThrow(/unclosed quote/);
  });

  it('reads control characters as spaces: a NUL never reaches FTS5, one alone is a clear error', () => {
    expect(ftsQuery('a\u0000b')).toBe('"a"* "b"*');
    expect(ftsQuery('"old\u0000sig"')).toBe('"old sig"*');
    expect(() => ftsQuery('\u0000')).toThrow(/only control characters/);
    expect(() => ftsQuery('\u0001\u007f')).toThrow(/only control characters/);
  });
});

describe('parseSince', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  it('reads ages and dates', () => {
    expect(parseSince('7d', now)).toBe('2026-03-03T12:00:00.000Z');
    expect(parseSince('30m', now)).toBe('2026-03-10T11:30:00.000Z');
    expect(parseSince('2026-01-31', now)).toBe('2026-01-31T00:00:00.000Z');
  });
  it('names what it cannot read', () => {
    expect(() => parseSince('last week', now)).toThrow(/--since "last week" is not a time/);
  });
});
