import { describe, expect, it } from 'vitest';
import { COUPLING_CASES, runCouplingCase } from './index.js';

describe("review coupling's corpus: grouped and kept apart", () => {
  it('has cases that must be grouped and cases that must stay apart', () => {
    expect(COUPLING_CASES.filter((c) => c.coupled.length > 0).length).toBeGreaterThanOrEqual(6);
    expect(COUPLING_CASES.filter((c) => c.coupled.length === 0).length).toBeGreaterThanOrEqual(6);
  });

  for (const c of COUPLING_CASES)
    it(`${c.name}: ${c.why}`, async () => {
      const result = await runCouplingCase(c);
      expect({ falseAlarms: result.falseAlarms, misses: result.misses }).toEqual({
        falseAlarms: [],
        misses: [],
      });
    });
});
