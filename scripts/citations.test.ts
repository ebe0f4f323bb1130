import { describe, expect, it } from 'vitest';
import { citations } from './citations.mjs';

describe('citations of the tracker', () => {
  // Written in pieces so that this file does not cite the tracker itself.
  const issue = (shape: string, n: number) => `${shape} ${n}`;

  it('finds "issue N" in any of its shapes, by line', () => {
    const a = ` * Tasks (${issue('issue', 12)}): work items.`;
    const b = ` * See ${issue('Issue', 20).replace(' ', ' #')} and ${issue('issues', 14)}.`;
    expect(citations(['/**', a, b, ' */'].join('\n'))).toEqual([`2: ${a.trim()}`, `3: ${b.trim()}`]);
  });

  it('lets decisions, other projects’ trackers and the word alone pass', () => {
    const text = [
      '// Tasks (decision 71, "Tasks are their own domain beside sessions").',
      '// mulder #148 tripped at $5; Backlog.md #1034.',
      '// An issue with the parser, tissue 3.',
    ].join('\n');
    expect(citations(text)).toEqual([]);
  });
});
