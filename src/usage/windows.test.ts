import { describe, expect, it } from 'vitest';
import { AgentWindows } from './windows.js';

const MIN = 60_000;
const T0 = Date.parse('2026-11-23T09:00:00Z');

describe('subscription windows the agents report', () => {
  it('projects when the 5h window runs out from the used-% reports', () => {
    const windows = new AgentWindows();
    windows.add('codex', [{ name: '5h', usedPercent: 40 }], T0);
    windows.add('codex', [{ name: '5h', usedPercent: 50 }], T0 + 10 * MIN);
    const [view] = windows.list(T0 + 10 * MIN);
    // 10 points in 10 minutes: 60 %/h, 50 points left: 50 minutes.
    expect(view?.perHour).toBeCloseTo(60);
    expect(view?.exhaustsInMs).toBe(50 * MIN);
    expect(view?.summary).toBe(
      'codex 5h window 50% used, 50% left; the 5h window runs out in 50 min at this rate',
    );
  });

  it('starts afresh after a reset and says so when the window resets first', () => {
    const windows = new AgentWindows();
    windows.add('codex', [{ name: '5h', usedPercent: 90 }], T0);
    windows.add(
      'codex',
      [{ name: '5h', usedPercent: 5, resetsAt: new Date(T0 + 5 * MIN).toISOString() }],
      T0 + MIN,
    );
    windows.add(
      'codex',
      [{ name: '5h', usedPercent: 6, resetsAt: new Date(T0 + 5 * MIN).toISOString() }],
      T0 + 2 * MIN,
    );
    const [view] = windows.list(T0 + 2 * MIN);
    expect(view?.perHour).toBeCloseTo(60);
    expect(view?.summary).toContain('resets before it runs out');
  });

  it('knows no rate from a single report', () => {
    const windows = new AgentWindows();
    windows.add('codex', [{ name: '7d', usedPercent: 12 }], T0);
    expect(windows.list(T0)[0]).toMatchObject({
      perHour: null,
      exhaustsInMs: null,
      summary: 'codex 7d window 12% used, 88% left',
      remainingPercent: 88,
    });
  });
});
