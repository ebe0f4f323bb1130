import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../events/index.js';
import type { AttemptMemberRow, AttemptStore } from '../store/attempts.js';
import { continueNote, finishedItems } from './ledger.js';

/** Sessions whose newest messages are given, as the store would answer `latestEvents`. */
function said(messages: Record<string, { role: 'assistant' | 'user'; text: string }[]>) {
  return {
    latestEvents: (sessionId: string, types: string[]): BatonEvent[] =>
      types.includes('message.added')
        ? (messages[sessionId] ?? []).map(
            (m, i) => ({ type: 'message.added', seq: i + 1, ...m }) as unknown as BatonEvent,
          )
        : [],
  };
}

describe("a fan-out batch's ledger of finished items", () => {
  it('reads `done:` lines in the forms agents write them, and keeps the items’ order', () => {
    const sessions = said({
      s1: [
        { role: 'assistant', text: 'Working.\n- done: src/b.ts\n> `done: src/c.ts`' },
        { role: 'assistant', text: 'DONE:   src/a.ts  ' },
      ],
    });
    expect(finishedItems(sessions, ['s1'], ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts'])).toEqual([
      'src/a.ts',
      'src/b.ts',
      'src/c.ts',
    ]);
  });

  it("counts only the agent's own lines, whole lines only, and only items of the batch", () => {
    const sessions = said({
      s1: [
        { role: 'user', text: 'done: src/a.ts' },
        { role: 'assistant', text: 'I am not done: src/b.ts yet' },
        { role: 'assistant', text: 'done: src/elsewhere.ts' },
      ],
    });
    expect(finishedItems(sessions, ['s1'], ['src/a.ts', 'src/b.ts'])).toEqual([]);
  });

  it('adds up every try of the batch, and tells a resumed batch what is finished and what is left', () => {
    const tries = [
      { group_id: 'g', slot: 1, session_id: 's1', items_json: JSON.stringify(['x', 'y', 'z']) },
      { group_id: 'g', slot: 1, session_id: 's2', items_json: JSON.stringify(['x', 'y', 'z']) },
    ] as unknown as AttemptMemberRow[];
    const store = {
      memberOf: (id: string) => tries.find((t) => t.session_id === id),
      members: () => tries,
      get: () => ({ kind: 'fanout' }),
    } as unknown as Pick<AttemptStore, 'memberOf' | 'members' | 'get'>;
    const sessions = said({
      s1: [{ role: 'assistant', text: 'done: x' }],
      s2: [{ role: 'assistant', text: 'done: z' }],
    });
    expect(continueNote(store, sessions, 's2')).toBe(
      'Items of this batch already finished (do not redo them): x, z. Items left: y.',
    );
    expect(continueNote(store, sessions, 'unknown')).toBeUndefined();
    const bestOf = { ...store, get: () => ({ kind: 'best_of' }) } as unknown as typeof store;
    expect(continueNote(bestOf, sessions, 's1')).toBeUndefined();
  });
});
