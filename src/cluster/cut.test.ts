import { describe, expect, test } from 'vitest';
import { capEvent, CUT_MARK } from './cut.js';

const size = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
const envelope = { v: 1, seq: 4, ts: '2026-01-01T00:00:00.000Z', type: 'tool.finished' };

describe('the size cap on a mirrored event', () => {
  test('an event under the cap is left as it is', () => {
    const event = { ...envelope, output: 'short' };
    expect(capEvent(event, 1_000)).toEqual({ event });
  });

  test('the longest strings are cut and marked until it fits; the envelope and short fields stay', () => {
    const event = {
      ...envelope,
      tool: 'Bash',
      output: 'o'.repeat(50_000),
      input: { command: 'c'.repeat(20_000) },
    };
    const { event: capped, originalBytes } = capEvent(event, 8_192);
    expect(originalBytes).toBe(size(event));
    expect(size(capped)).toBeLessThanOrEqual(8_192);
    expect(capped).toMatchObject({ ...envelope, tool: 'Bash' });
    expect(String(capped.output).endsWith(CUT_MARK)).toBe(true);
    expect(event.output).toHaveLength(50_000);
  });

  test('multi-byte text is cut to the byte cap without leaving half a surrogate pair', () => {
    const event = { ...envelope, text: '😀'.repeat(10_000) };
    const { event: capped } = capEvent(event, 4_096);
    expect(size(capped)).toBeLessThanOrEqual(4_096);
    const text = String(capped.text).slice(0, -CUT_MARK.length);
    expect(text).toBe('😀'.repeat(text.length / 2));
  });

  test('an event that no cut of its strings can shrink enough keeps only its envelope', () => {
    const event = { ...envelope, files: Array.from({ length: 5_000 }, (_, i) => `f${i}`) };
    expect(capEvent(event, 2_048)).toEqual({ event: envelope, originalBytes: size(event) });
  });
});
