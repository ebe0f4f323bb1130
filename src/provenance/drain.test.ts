import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WorkspaceBus } from '../bus/index.js';
import { makeEvent } from '../events/index.js';
import type { EvidenceStore } from '../store/evidence.js';
import type { SessionWithProject } from '../store/sessions.js';
import { ProvenanceService, type ProvenanceSessions } from './service.js';

/**
 * A stop's wait for the turn records under way (decisions 427 and 429): each record is held at the
 * session's hold until the test lets it go, so what the wait covers is seen without a timer.
 */
function service() {
  const released = new Map<string, () => void>();
  const held = new Map<string, Promise<void>>();
  const hold = (id: string) => {
    let release!: () => void;
    held.set(id, new Promise<void>((resolve) => (release = resolve)));
    released.set(id, release);
  };
  const sessions: ProvenanceSessions = {
    get: (id) => ({ id, name: id, worktree: tmpdir(), project_root: tmpdir() }) as SessionWithProject,
    resolve: () => {
      throw new Error('not asked');
    },
    list: () => [],
    eventsAfter: () => [],
    // The record waits here until released; the work itself (a snapshot and a commit) is not run.
    whileHeld: async (id) => (await held.get(id)) as never,
  };
  const provenance = new ProvenanceService({
    bus: {} as WorkspaceBus,
    store: { claimed: () => undefined } as unknown as EvidenceStore,
    sessions,
    onEvent: () => () => undefined,
  });
  const endTurn = (id: string): void => {
    hold(id);
    provenance.observe(id, makeEvent(1, { type: 'turn.started', prompt: 'go' }));
    provenance.observe(id, makeEvent(2, { type: 'turn.completed', outcome: 'success' }));
  };
  return { provenance, endTurn, release: (id: string) => released.get(id)?.() };
}

/** Whether `promise` has settled once the callbacks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

afterEach(() => vi.useRealTimers());

describe("a stop's wait for the turn records under way", () => {
  it('also waits for a record a turn ending during the wait started', async () => {
    const { provenance, endTurn, release } = service();
    endTurn('s1');
    expect(provenance.pending()).toBe(1);
    const draining = provenance.drain(60_000);
    // The supervisor still ingests while it waits: another session's turn ends now.
    endTurn('s2');
    release('s1');
    expect(await settled(draining)).toBe(false);
    release('s2');
    expect(await draining).toBe(2);
    expect(provenance.pending()).toBe(0);
  });

  it('ends at its bound however many turns an agent ends meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { provenance, endTurn, release } = service();
    endTurn('s0');
    const draining = provenance.drain(10_000);
    // Turns ended in a tight loop, each record released as the next starts: the wait never empties.
    for (let i = 1; i <= 50; i++) {
      endTurn(`s${i}`);
      release(`s${i - 1}`);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(await settled(draining)).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await draining).toBeGreaterThan(1);
  });

  it('returns at once when no record is under way', async () => {
    expect(await service().provenance.drain(10_000)).toBe(0);
  });
});
