import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkspaceEvent, isWorkspaceEventDefinition } from './define.js';
import * as merge from './merge.js';
import * as sessions from './sessions.js';

describe('a workspace event definition', () => {
  it('is told apart from the other exports of its module by its mark alone', () => {
    const defined = defineWorkspaceEvent('thing.happened', z.object({ n: z.number() }));
    expect(isWorkspaceEventDefinition(defined)).toBe(true);
    expect(isWorkspaceEventDefinition({ type: 'thing.happened', schema: z.object({}) })).toBe(false);
    expect(isWorkspaceEventDefinition(null)).toBe(false);
    expect(isWorkspaceEventDefinition('thing.happened')).toBe(false);
    const found = Object.values({ ...merge, ...sessions }).filter(isWorkspaceEventDefinition);
    expect(found.map((d) => d.type)).toContain('merge.landed');
    expect(found.map((d) => d.type)).toContain('session.state_changed');
    // MergeCheckOutcome is a schema the events share, not an event.
    expect(found).not.toContain(merge.MergeCheckOutcome);
  });

  it("validates an event's data by its schema: a landing needs its commit, and its check's outcome is one of four", () => {
    const landed = {
      mergeId: 'm1',
      project: 'shop',
      base: 'main',
      sessions: [{ sessionId: 's1', name: 'alpha' }],
      squash: false,
      commit: 'abc',
      previous: 'def',
      check: { outcome: 'passed', command: 'npm test', durationMs: 10, exitCode: 0, outputTail: '' },
      durationMs: 20,
      checkoutUpdated: null,
    };
    expect(merge.MergeLanded.schema.safeParse(landed).success).toBe(true);
    const noCommit: Partial<typeof landed> = { ...landed };
    delete noCommit.commit;
    expect(merge.MergeLanded.schema.safeParse(noCommit).success).toBe(false);
    const badOutcome = { ...landed, check: { ...landed.check, outcome: 'green' } };
    expect(merge.MergeLanded.schema.safeParse(badOutcome).success).toBe(false);
  });

  it('names every event with a dotted lowercase name: its domain, then what happened', () => {
    for (const definition of Object.values({ ...merge, ...sessions }).filter(isWorkspaceEventDefinition))
      expect(definition.type).toMatch(/^[a-z]+\.[a-z_]+$/);
  });
});
