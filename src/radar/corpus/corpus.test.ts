import { describe, expect, it } from 'vitest';
import { RADAR_CASES, runRadarCase } from './index.js';

describe("the radar's corpus: collisions reported both ways", () => {
  it('has cases that must fire and cases that must stay quiet', () => {
    expect(RADAR_CASES.filter((c) => c.expect.length > 0).length).toBeGreaterThanOrEqual(8);
    expect(
      RADAR_CASES.filter((c) => c.expect.every((e) => e.between[1] === 'base')).length,
    ).toBeGreaterThanOrEqual(8);
  });

  for (const c of RADAR_CASES)
    it(`${c.name}: ${c.why}`, async () => {
      const result = await runRadarCase(c);
      // Every pair, with what was expected and found, so a failure says which and how.
      expect({ falseAlarms: result.falseAlarms, misses: result.misses }).toEqual({
        falseAlarms: [],
        misses: [],
      });
    });
});
