import { describe, expect, it } from 'vitest';
import { plainDeep, terminalSafe } from './terminal.js';

describe('text for a terminal (decision 400)', () => {
  it("keeps Baton's colours, newlines, tabs and the bell; shows every other control character as text", () => {
    expect(terminalSafe('\x1b[1;33mNeeds input\x1b[0m\tok\n\x07')).toBe(
      '\x1b[1;33mNeeds input\x1b[0m\tok\n\x07',
    );
    expect(terminalSafe('a\x1b]52;c;eA==\x07b')).toBe('a^[]52;c;eA==\x07b');
    expect(terminalSafe('\x1b[2J\x1b[1A\x1b]8;;http://x\x1b\\y')).toBe('^[[2J^[[1A^[]8;;http://x^[\\y');
    expect(terminalSafe('line\r\nover\rwrite\x9b2J\x7f\x00')).toBe('line\nover^Mwrite\\x9b2J^?^@');
    expect(terminalSafe('plain – “text” ✓')).toBe('plain – “text” ✓');
  });

  it('gives the board every string of what it draws, deep, with every control character as text, colours too', () => {
    const update = {
      kind: 'session',
      session: {
        name: 'w\x1b]2;PWNED\x07',
        reason: { question: 'keep?\x1b[2J', turns: [1, 'a\tb\nc'] },
        cost: 0.5,
      },
      seen: null,
    };
    expect(plainDeep(update)).toEqual({
      kind: 'session',
      session: {
        name: 'w^[]2;PWNED^G',
        reason: { question: 'keep?^[[2J', turns: [1, 'a\tb\nc'] },
        cost: 0.5,
      },
      seen: null,
    });
    expect(plainDeep('\x1b[1;33mcolour\x1b[0m \x9b \x7f')).toBe('^[[1;33mcolour^[[0m \\x9b ^?');
    const clean = { a: 'plain – “text” ✓' };
    expect(plainDeep(clean)).toEqual(clean);
  });
});
