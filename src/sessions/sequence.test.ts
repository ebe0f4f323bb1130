import { describe, expect, it } from 'vitest';
import { makeEvent, type BatonEvent } from '../events/index.js';
import { followSequence } from './sequence.js';

const at = (...seqs: number[]): BatonEvent[] => seqs.map((seq) => makeEvent(seq, { type: 'turn.started' }));
const seqs = (events: BatonEvent[]): number[] => events.map((e) => e.seq);

describe('the sequence of a log', () => {
  it('takes a log in order as it is', () => {
    const followed = followSequence(at(4, 5, 6), 3);
    expect(seqs(followed.taken)).toEqual([4, 5, 6]);
    expect(followed).toMatchObject({ skipped: [], holes: [], waitAt: undefined, lastSeq: 6 });
  });

  it('drops repeats, whether of the line before or of one stored long ago', () => {
    const followed = followSequence(at(1, 2, 2, 1, 3), 0);
    expect(seqs(followed.taken)).toEqual([1, 2, 3]);
    expect(followed.skipped.map((s) => [s.seq, s.why])).toEqual([
      [2, 'duplicate'],
      [1, 'duplicate'],
    ]);
  });

  it('drops a line ahead of its place when the expected seq comes after it', () => {
    const followed = followSequence(at(1, 51, 2, 3), 0);
    expect(seqs(followed.taken)).toEqual([1, 2, 3]);
    expect(followed.skipped).toEqual([{ seq: 51, expected: 2, why: 'out_of_place', index: 1 }]);
  });

  it('waits on a gap the log has not yet shown the way past', () => {
    expect(followSequence(at(1, 51), 0)).toMatchObject({ waitAt: 1, lastSeq: 1 });
    expect(followSequence(at(51), 0)).toMatchObject({ waitAt: 0, lastSeq: 0, taken: [] });
  });

  it('takes a hole the writer went on past, without renumbering', () => {
    const followed = followSequence(at(1, 4, 5), 0);
    expect(seqs(followed.taken)).toEqual([1, 4, 5]);
    expect(followed.holes).toEqual([{ from: 2, to: 3 }]);
  });

  it('stays linear on a log full of stray lines', () => {
    const events = at(...Array.from({ length: 20_000 }, (_, i) => (i % 2 === 0 ? i / 2 + 1 : 1_000_000 + i)));
    const started = performance.now();
    const followed = followSequence(events, 0);
    expect(followed.taken).toHaveLength(10_000);
    expect(followed.skipped).toHaveLength(9_999);
    // A quadratic scan would take seconds here; a linear one, milliseconds.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
