import { describe, expect, it } from 'vitest';
import { attemptAgents, batchPrompt, batches, memberName } from './plan.js';

describe('attemptAgents', () => {
  it('repeats one agent n times and takes one agent per attempt as given', () => {
    expect(attemptAgents(['claude'], 3, {})).toEqual(['claude', 'claude', 'claude']);
    expect(attemptAgents(['claude', 'codex', 'claude'], undefined, {})).toEqual([
      'claude',
      'codex',
      'claude',
    ]);
    expect(attemptAgents(['claude', 'codex', 'claude'], 3, {})).toEqual(['claude', 'codex', 'claude']);
  });

  it("refuses a count over the cap (default 8, or the repository's), under 2, or not matching the agents", () => {
    expect(() => attemptAgents(['claude'], 9, {})).toThrow(
      /--best-of 9 is over this repository's cap of 8 attempts/,
    );
    expect(attemptAgents(['codex'], 8, {})).toHaveLength(8);
    expect(() => attemptAgents(['claude'], 3, { attempts: { maxAttempts: 2 } })).toThrow(
      /cap of 2 attempts; .*attempts\.maxAttempts/,
    );
    expect(() => attemptAgents(['claude'], 1, {})).toThrow(/at least 2 attempts/);
    expect(() => attemptAgents(['claude', 'codex'], 3, {})).toThrow(/names 2 agents for 3 attempts/);
  });
});

describe('batches', () => {
  it('splits items in order, the last batch the rest', () => {
    const items = Array.from({ length: 25 }, (_, i) => `i${i + 1}`);
    const split = batches(items, 10, {});
    expect(split.map((b) => b.length)).toEqual([10, 10, 5]);
    expect(split[2]).toEqual(['i21', 'i22', 'i23', 'i24', 'i25']);
    expect(batches(['a'], 10, {})).toEqual([['a']]);
  });

  it('refuses a batch size under 1 and more batches than the cap', () => {
    expect(() => batches(['a'], 0, {})).toThrow(/at least 1/);
    expect(() => batches(['a', 'b', 'c'], 1, { attempts: { maxBatches: 2 } })).toThrow(
      /3 items in batches of 1 make 3 batches, over this repository's cap of 2/,
    );
    expect(batches(Array.from({ length: 50 }, String), 1, {})).toHaveLength(50);
    expect(() => batches(Array.from({ length: 51 }, String), 1, {})).toThrow(/cap of 50/);
  });
});

describe('prompts and names', () => {
  it('a batch prompt holds the instruction, its place and only its items', () => {
    const prompt = batchPrompt('update the import', ['a.ts', 'b.ts'], 2, 3);
    expect(prompt).toMatch(/^update the import\n\nDo this for each of the 2 items below \(batch 2 of 3;/);
    expect(prompt.endsWith('- a.ts\n- b.ts\n')).toBe(true);
  });

  it('names attempts a1…, batches b1…, and a retry after its batch', () => {
    expect(memberName('fix', 'best_of', 2)).toBe('fix-a2');
    expect(memberName('imp', 'fanout', 3)).toBe('imp-b3');
    expect(memberName('imp', 'fanout', 3, 2)).toBe('imp-b3-retry');
  });
});
