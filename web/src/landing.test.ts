/**
 * The page's merge store: merge.* events move a merge through its phases; the supervisor's list
 * corrects positions and results without ever taking a merge back; a merge the supervisor forgot
 * (restarted) is dropped. The supervisor is replaced by a stand-in only at fetch, the page's
 * network edge; the browser test (test/web/landing.test.ts) runs all of it against a real one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MergeListView, MergeResult, MergeView } from '../../src/api/merge.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { landingSnapshot, latestMergeOf, refreshMerges, trackWorkspaceEvent } from './landing.js';

const member = { sessionId: 's1', name: 'feat' };
const ref = (mergeId: string) => ({
  mergeId,
  project: 'shop',
  base: 'main',
  sessions: [member],
  squash: false,
});
const check = {
  outcome: 'passed' as const,
  command: 'npm test',
  durationMs: 1200,
  exitCode: 0,
  outputTail: '',
};
let seq = 0;
const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

function event(e: { type: WorkspaceEvent['type']; data: unknown }, second = seq): void {
  trackWorkspaceEvent({ seq: ++seq, ts: at(second), ...e } as WorkspaceEvent);
}

function serve(list: MergeListView): void {
  vi.stubGlobal('fetch', async () => new Response(JSON.stringify(list), { status: 200 }));
}

function queued(mergeId: string, state: MergeView['state'], position: number): MergeView {
  return { ...ref(mergeId), root: '/r', state, position, queuedAt: at(0) };
}

function landed(mergeId: string): MergeResult {
  return {
    ...ref(mergeId),
    outcome: 'landed',
    reason: 'landed',
    message: 'Landed feat on main at 0123456789ab; the check passed in 1.2 s.',
    commit: '0123456789abcdef',
    previous: 'fedcba9876543210',
    check,
    culprit: null,
    files: [],
    replied: false,
    checkoutUpdated: null,
    durationMs: 1500,
    finishedAt: at(9),
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the landing store', () => {
  it('follows a merge through its events, then takes the supervisor’s result', async () => {
    event({ type: 'merge.queued', data: { ...ref('m1'), position: 2 } }, 1);
    expect(landingSnapshot().tracks.get('m1')).toMatchObject({ phase: 'queued', position: 2, result: null });
    event({ type: 'merge.started', data: { ...ref('m1'), baseCommit: 'abc' } });
    event({ type: 'merge.checking', data: { ...ref('m1'), command: 'npm test', commit: 'def', members: 1 } });
    expect(landingSnapshot().tracks.get('m1')).toMatchObject({
      phase: 'checking',
      position: 1,
      baseCommit: 'abc',
      command: 'npm test',
      checked: 1,
    });
    event({
      type: 'merge.landed',
      data: {
        ...ref('m1'),
        commit: '0123456789abcdef',
        previous: 'fedcba9876543210',
        check,
        durationMs: 1500,
        checkoutUpdated: null,
      },
    });
    expect(landingSnapshot().tracks.get('m1')?.result).toMatchObject({
      outcome: 'landed',
      message: 'Landed feat on main at 0123456789ab.',
    });

    serve({ queue: [], recent: [landed('m1')] });
    await refreshMerges();
    expect(landingSnapshot().tracks.get('m1')).toMatchObject({
      phase: 'landed',
      result: { message: 'Landed feat on main at 0123456789ab; the check passed in 1.2 s.' },
    });
    // Other events leave it alone.
    trackWorkspaceEvent({
      seq: ++seq,
      ts: at(10),
      type: 'session.pinned',
      data: { sessionId: 's1', name: 'feat', project: 'shop', pinned: true },
    });
    expect(landingSnapshot().tracks.get('m1')?.phase).toBe('landed');
  });

  it('never takes a merge back a phase from an older list, and moves its position forward', async () => {
    event({ type: 'merge.queued', data: { ...ref('m2'), position: 3 } }, 20);
    serve({ queue: [queued('m2', 'queued', 2)], recent: [] });
    await refreshMerges();
    expect(landingSnapshot().tracks.get('m2')).toMatchObject({ phase: 'queued', position: 2 });
    event({ type: 'merge.checking', data: { ...ref('m2'), command: 'npm test', commit: 'def', members: 1 } });
    serve({ queue: [queued('m2', 'merging', 1)], recent: [] });
    await refreshMerges();
    expect(landingSnapshot().tracks.get('m2')).toMatchObject({
      phase: 'checking',
      position: 1,
      command: 'npm test',
    });
  });

  it('drops a running merge the supervisor no longer lists, but only after two lists without it', async () => {
    event({ type: 'merge.started', data: { ...ref('m3'), baseCommit: 'abc' } }, 30);
    serve({ queue: [], recent: [] });
    await refreshMerges();
    expect(landingSnapshot().tracks.get('m3')?.phase).toBe('merging');
    await refreshMerges();
    expect(landingSnapshot().tracks.has('m3')).toBe(false);
  });

  it('knows merges it never saw an event of from the list, and finds the latest of a session', async () => {
    serve({ queue: [{ ...queued('m4', 'checking', 1), queuedAt: at(40) }], recent: [] });
    await refreshMerges();
    expect(landingSnapshot().tracks.get('m4')).toMatchObject({ phase: 'checking', command: null });
    expect(latestMergeOf(landingSnapshot().tracks, 's1')?.mergeId).toBe('m4');
    expect(latestMergeOf(landingSnapshot().tracks, 'nobody')).toBeUndefined();
  });
});
