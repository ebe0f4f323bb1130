import { describe, expect, it } from 'vitest';
import { parseItems } from './items.js';

describe('parseItems', () => {
  it('takes one item per line, trimmed, skipping blank lines and # comments (CRLF too)', () => {
    expect(parseItems('# header\n\n a.ts \r\nb.ts\n   \n# c.ts\nd e.ts\n')).toEqual([
      'a.ts',
      'b.ts',
      'd e.ts',
    ]);
  });

  it('refuses a file with no items, naming it', () => {
    expect(() => parseItems('', 'items.txt')).toThrow(/^items\.txt has no items: put one item per line/);
    expect(() => parseItems('# only\n\n  \n', 'items.txt')).toThrow(/has no items/);
  });
});
