import { describe, expect, it } from 'vitest';
import { burnPerHour, formatDuration, projectWindow, spentWithin, wouldExhaust, type Spend } from './burn.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.parse('2026-11-23T09:00:00Z');

/** A recorded series: $0.50 every 5 minutes for the last 30 minutes, and an old $100 spend 6 hours ago. */
const recorded: Spend[] = [
  { at: T0 - 6 * HOUR, amount: 100 },
  ...Array.from({ length: 6 }, (_, i) => ({ at: T0 - 25 * MIN + i * 5 * MIN, amount: 0.5 })),
];

describe('burn-rate projection from a recorded usage series', () => {
  it('sums only what falls inside the window', () => {
    expect(spentWithin(recorded, T0, 5 * HOUR)).toBeCloseTo(3);
    expect(spentWithin(recorded, T0, 7 * HOUR)).toBeCloseTo(103);
  });

  it('measures the rate from the first spend of the recent stretch', () => {
    // $3 over 25 minutes is $7.20 an hour.
    expect(burnPerHour(recorded, T0)).toBeCloseTo(7.2);
  });

  it('says when the 5 h window runs out at this rate', () => {
    const projection = projectWindow(recorded, T0, 5 * HOUR, 10);
    expect(projection.used).toBeCloseTo(3);
    // $7 left at $7.20/h: 58.3 minutes.
    expect(projection.exhaustsInMs).toBe(Math.round((7 / 7.2) * HOUR));
    expect(formatDuration(projection.exhaustsInMs ?? 0)).toBe('58 min');
    expect(wouldExhaust(projection, HOUR)).toBe(true);
    expect(wouldExhaust(projection, 30 * MIN)).toBe(false);
  });

  it('is exhausted now when the limit is already spent, and never when nothing burns', () => {
    expect(projectWindow(recorded, T0, 5 * HOUR, 2).exhaustsInMs).toBe(0);
    expect(projectWindow(recorded, T0 + 2 * HOUR, 5 * HOUR, 10).exhaustsInMs).toBeNull();
  });

  it('does not read one fresh report as an infinite rate', () => {
    expect(burnPerHour([{ at: T0 - 1000, amount: 1 }], T0)).toBeCloseTo(60);
  });

  it('writes durations for people', () => {
    expect(formatDuration(40_000)).toBe('40 s');
    expect(formatDuration(125 * MIN)).toBe('2 h 5 min');
    expect(formatDuration(3 * HOUR)).toBe('3 h');
  });
});
