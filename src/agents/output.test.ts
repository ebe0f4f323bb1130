import { describe, expect, it } from 'vitest';
import { clipOutput, MAX_OUTPUT, OutputClip } from './output.js';

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i}\n`).join('');

describe('a tool output as an event keeps it', () => {
  it('keeps a short output whole', () => {
    expect(clipOutput('3 failed, 12 passed\n')).toBe('3 failed, 12 passed\n');
  });

  it('keeps the beginning and the end of a long one, says how much was left out, and stays within the limit', () => {
    const text = `${numbered(5000)} Tests  3 failed | 12 passed (15)\n`;
    const clipped = clipOutput(text);
    expect(clipped.length).toBe(MAX_OUTPUT);
    expect(clipped.startsWith('line 0\nline 1\n')).toBe(true);
    expect(clipped.endsWith(' Tests  3 failed | 12 passed (15)\n')).toBe(true);
    const left = Number(/… (\d+) characters left out …/.exec(clipped)?.[1]);
    expect(clipped.length - `\n… ${left} characters left out …\n`.length + left).toBe(text.length);
  });

  it('gives the same text when collected chunk by chunk, however long the output', () => {
    for (const lines of [10, 1500, 40_000]) {
      const text = numbered(lines);
      const clip = new OutputClip();
      for (let i = 0; i < text.length; i += 997) clip.add(text.slice(i, i + 997));
      expect(clip.toString()).toBe(clipOutput(text));
    }
  });
});
