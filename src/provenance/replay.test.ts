import { describe, expect, it } from 'vitest';
import type { WorkspaceBus } from '../bus/index.js';
import { makeEvent, type BatonEvent } from '../events/index.js';
import type { EvidenceStore } from '../store/evidence.js';
import { ProvenanceService, type ProvenanceSessions } from './service.js';

describe("a session's turn rebuilt after a restart (decision 410)", () => {
  it('reads from the store only the events before the first one it is handed, not the whole log', () => {
    // A restart's ingestion stores a session's whole backlog, then hands its first new event: seq 6.
    const stored: BatonEvent[] = Array.from({ length: 2_000 }, (_, i) =>
      makeEvent(i + 1, { type: 'message.added', role: 'assistant', text: `line ${i + 1}` }),
    );
    let read = 0;
    const sessions: ProvenanceSessions = {
      get: () => undefined,
      resolve: () => {
        throw new Error('not asked');
      },
      list: () => [],
      whileHeld: () => {
        throw new Error('not asked');
      },
      eventsAfter: (_id, after, limit = 10_000) => {
        const page = stored.filter((e) => e.seq > after).slice(0, limit);
        read += page.length;
        return page;
      },
    };
    const service = new ProvenanceService({
      bus: {} as WorkspaceBus,
      store: {} as EvidenceStore,
      sessions,
      onEvent: () => () => undefined,
    });
    service.observe('s1', stored[5]!);
    expect(read).toBe(5);
  });
});
