import { describe, expect, it } from 'vitest';
import type { SessionView } from '../api/index.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import {
  applyUpdate,
  boardRows,
  cursorOrder,
  emptyBoard,
  feedInScope,
  KEPT_WORKSPACE_EVENTS,
  matchesFilter,
  moveCursor,
  scrollTop,
  type BoardData,
} from './model.js';

function session(id: string, fields: Partial<SessionView> = {}): SessionView {
  return {
    id,
    name: id,
    project: 'repo',
    projectRoot: '/r/repo',
    agent: 'scripted',
    model: null,
    permissionMode: 'default',
    prompt: `task ${id}`,
    state: 'working',
    reason: null,
    pinned: false,
    branch: `baton/${id}`,
    baseRef: 'main',
    baseCommit: 'c0',
    worktree: `/w/${id}`,
    hostPid: null,
    running: true,
    activity: null,
    lastSeq: 1,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    lastEventAt: '2026-01-01T00:00:00.000Z',
    queuePosition: null,
    ...fields,
  };
}

function event(
  seq: number,
  type = 'session.pinned',
  data: unknown = { id: 'a', name: 'a', pinned: true },
): WorkspaceEvent {
  return { seq, ts: '2026-01-01T00:00:00.000Z', type, data } as WorkspaceEvent;
}

describe('the board model', () => {
  it('takes the snapshot, then session changes and removals', () => {
    let board: BoardData = applyUpdate(emptyBoard, {
      kind: 'snapshot',
      sessions: [session('a'), session('b')],
    });
    expect(board.loaded).toBe(true);
    expect(board.status.kind).toBe('live');
    board = applyUpdate(board, { kind: 'session', session: session('a', { state: 'needs_input' }) });
    board = applyUpdate(board, { kind: 'removed', id: 'b' });
    expect([...board.sessions.values()].map((s) => [s.id, s.state])).toEqual([['a', 'needs_input']]);
  });

  it("keeps another machine's events in the feed on the same cursor as this machine's", () => {
    let board = applyUpdate(emptyBoard, { kind: 'workspace', event: event(3) });
    board = applyUpdate(board, {
      kind: 'workspace',
      event: {
        seq: 4,
        ts: '2026-01-01T00:00:00.000Z',
        type: 'budget.removed',
        data: { scope: 'day' },
        machine: 'beta',
        logSeq: 90,
      },
    });
    board = applyUpdate(board, { kind: 'workspace', event: event(4) });
    expect(board.events.map((e) => [e.seq, 'machine' in e ? e.machine : 'here'])).toEqual([
      [3, 'here'],
      [4, 'beta'],
    ]);
    expect(board.lastSeq).toBe(4);
  });

  it('keeps workspace events in order, never one it has already seen, and only the latest few', () => {
    let board = applyUpdate(emptyBoard, { kind: 'position', lastSeq: 10 });
    board = applyUpdate(board, { kind: 'workspace', event: event(9) });
    expect(board.events).toEqual([]);
    board = applyUpdate(board, { kind: 'workspace', event: event(11) });
    board = applyUpdate(board, { kind: 'workspace', event: event(11) });
    expect(board.events.map((e) => e.seq)).toEqual([11]);
    expect(board.lastSeq).toBe(11);
    for (let seq = 12; seq < 12 + KEPT_WORKSPACE_EVENTS + 5; seq++)
      board = applyUpdate(board, { kind: 'workspace', event: event(seq) });
    expect(board.events.length).toBe(KEPT_WORKSPACE_EVENTS);
    expect(board.events.at(-1)!.seq).toBe(11 + KEPT_WORKSPACE_EVENTS + 5);
  });

  it('keeps an event type it does not know (a domain that landed later)', () => {
    const board = applyUpdate(emptyBoard, {
      kind: 'workspace',
      event: event(1, 'alert.raised', { name: 'w3', message: 'over budget' }),
    });
    expect(board.events.map((e) => e.type)).toEqual(['alert.raised']);
  });

  it('groups like the page: pinned first, then needs input, working (starting too), review, queued, completed, failed, stopped', () => {
    const sessions = [
      session('s1', { state: 'stopped' }),
      session('f1', { state: 'failed' }),
      session('c1', { state: 'completed' }),
      session('q2', { state: 'queued', queuePosition: 2 }),
      session('q1', { state: 'queued', queuePosition: 1 }),
      session('r1', { state: 'ready_for_review' }),
      session('st', { state: 'starting' }),
      session('w1', { state: 'working' }),
      session('n1', { state: 'needs_input' }),
      session('p1', { state: 'completed', pinned: true }),
    ];
    const rows = boardRows(sessions, { filter: '' });
    expect(rows.filter((r) => r.kind === 'group').map((r) => r.title)).toEqual([
      'Pinned (1)',
      'Needs input (1)',
      'Working (2)',
      'Ready for review (1)',
      'Queued (2)',
      'Completed (1)',
      'Failed (1)',
      'Stopped (1)',
    ]);
    expect(cursorOrder(rows).slice(5, 7)).toEqual(['q1', 'q2']);
  });

  it('shows one repository or every one, and filters by name, task, agent and state', () => {
    const sessions = [session('a'), session('b', { projectRoot: '/r/other', state: 'needs_input' })];
    expect(cursorOrder(boardRows(sessions, { projectRoot: '/r/repo', filter: '' }))).toEqual(['a']);
    expect(cursorOrder(boardRows(sessions, { filter: '' }))).toEqual(['b', 'a']);
    expect(matchesFilter(session('x', { state: 'needs_input' }), 'needs input')).toBe(true);
    expect(matchesFilter(session('x', { prompt: 'Fix the watcher' }), 'watcher')).toBe(true);
    expect(matchesFilter(session('x'), 'codex')).toBe(false);
  });

  it("shows one repository's events in its view, every event in the view of every repository", () => {
    const sessions = [session('a'), session('b', { project: 'other', projectRoot: '/r/other' })];
    const events = [
      event(1, 'session.pinned', { sessionId: 'a', name: 'a', project: 'repo', pinned: true }),
      event(2, 'session.pinned', { sessionId: 'b', name: 'b', project: 'other', pinned: true }),
      // The workspace's own: no project named.
      event(3, 'budget.set', { scope: 'day', limitUsd: 5 }),
    ];
    expect(feedInScope(events, sessions, '/r/repo').map((e) => e.seq)).toEqual([1, 3]);
    expect(feedInScope(events, sessions, '/r/other').map((e) => e.seq)).toEqual([2, 3]);
    expect(feedInScope(events, sessions, undefined).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('moves the cursor within the list and scrolls as little as it must', () => {
    const order = ['a', 'b', 'c'];
    expect(moveCursor(order, undefined, 1)).toBe('a');
    expect(moveCursor(order, 'a', 1)).toBe('b');
    expect(moveCursor(order, 'c', 5)).toBe('c');
    expect(moveCursor(order, 'gone', 1)).toBe('a');
    expect(moveCursor([], 'a', 1)).toBeUndefined();
    expect(scrollTop(0, 5, 10, 40)).toBe(0);
    expect(scrollTop(0, 12, 10, 40)).toBe(3);
    expect(scrollTop(20, 4, 10, 40)).toBe(4);
    expect(scrollTop(35, 39, 10, 40)).toBe(30);
  });
});
