/**
 * Which lines of a session's log continue its sequence (decision 167). The host numbers its
 * events 1, 2, 3… and never leaves a hole; so a line is taken only under the seq it claims, and
 * only when it is the next one. A repeat of a seq already taken is dropped. A line that claims a
 * seq further on is out of place when the log carries on from the expected seq after it (it is
 * dropped); when it does not yet, the gap is waited on: nothing from there is taken until the
 * log shows which way it goes. Only a writer seen going on past the gap (the line after it is
 * its successor) makes the gap a hole for good, taken as such and reported. Nothing is ever
 * renumbered, so the store's seq is always the file's.
 */
import type { BatonEvent } from '../events/index.js';

export interface Skipped {
  /** The seq the line claimed, and the one the sequence expected there. */
  seq: number;
  expected: number;
  why: 'duplicate' | 'out_of_place';
  index: number;
}

export interface Followed {
  /** The events that continue the sequence, in order. */
  taken: BatonEvent[];
  skipped: Skipped[];
  /** Holes the writer went on past: seqs `from`..`to` were never written. */
  holes: { from: number; to: number }[];
  /** The index of the first event not taken because a gap is waited on; undefined when all were decided. */
  waitAt: number | undefined;
  /** The last seq taken (`lastSeq` when none was). */
  lastSeq: number;
}

/** Follows `events` (read in file order) on from `lastSeq`. Linear: the lookup is built only at the first line out of order. */
export function followSequence(events: readonly BatonEvent[], lastSeq: number): Followed {
  const out: Followed = { taken: [], skipped: [], holes: [], waitAt: undefined, lastSeq };
  let lastIndexOf: Map<number, number> | undefined;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const expected = out.lastSeq + 1;
    if (event.seq === expected) {
      out.taken.push(event);
      out.lastSeq = expected;
      continue;
    }
    if (event.seq < expected) {
      out.skipped.push({ seq: event.seq, expected, why: 'duplicate', index: i });
      continue;
    }
    if (lastIndexOf === undefined) {
      lastIndexOf = new Map();
      for (let j = 0; j < events.length; j++) lastIndexOf.set(events[j]!.seq, j);
    }
    if ((lastIndexOf.get(expected) ?? -1) > i) {
      out.skipped.push({ seq: event.seq, expected, why: 'out_of_place', index: i });
      continue;
    }
    if (events[i + 1]?.seq === event.seq + 1) {
      out.holes.push({ from: expected, to: event.seq - 1 });
      out.taken.push(event);
      out.lastSeq = event.seq;
      continue;
    }
    out.waitAt = i;
    break;
  }
  return out;
}
