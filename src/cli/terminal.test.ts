import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal.js';

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
});
