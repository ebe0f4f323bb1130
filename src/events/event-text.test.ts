import { describe, expect, it } from 'vitest';
import { makeEvent, parseEventText } from './index.js';

const line = (extra: Record<string, unknown>): string =>
  JSON.stringify({ ...makeEvent(1, { type: 'turn.started' }), ...extra });

describe('parseEventText (decision 410)', () => {
  it('lets a line stand for its event only when the check kept every key it has', () => {
    expect(parseEventText(line({})).asWritten).toBe(true);
    expect(parseEventText(line({ prompt: 'p' })).asWritten).toBe(true);
    // A key the schema does not know, at the top, in a nested object, in an array's object.
    expect(parseEventText(line({ prompt: 'p', later: 1 })).asWritten).toBe(false);
    expect(
      parseEventText(
        line({ type: 'state.changed', to: 'failed', reason: { kind: 'error', message: 'm', x: 1 } }),
      ).asWritten,
    ).toBe(false);
    expect(
      parseEventText(
        line({
          type: 'limits.reported',
          windows: [
            { name: '5h', usedPercent: 1 },
            { name: '7d', usedPercent: 2, x: null },
          ],
        }),
      ).asWritten,
    ).toBe(false);
    expect(parseEventText('{"__proto__":{"x":1},' + line({}).slice(1)).asWritten).toBe(false);
  });

  it('checks as parseEventLine does: a line the schema refuses throws', () => {
    expect(() => parseEventText(line({ type: 'state.changed', to: 'nowhere' }))).toThrow();
    expect(() => parseEventText('{"v":1')).toThrow();
  });
});
