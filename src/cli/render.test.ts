import { describe, expect, it } from 'vitest';
import type { SessionView } from '../api/index.js';
import { renderList } from './render.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const session = (over: Partial<SessionView>): SessionView =>
  ({
    id: 'abcdef123456',
    name: 'flaky',
    project: 'repo',
    agent: 'claude',
    state: 'working',
    reason: null,
    pinned: false,
    activity: 'running Bash: npm test',
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    queuePosition: null,
    createdAt: '2026-11-23T11:59:00Z',
    lastEventAt: '2026-11-23T11:59:30Z',
    ...over,
  }) as SessionView;

describe('renderList', () => {
  const long =
    'Should the watcher keep the old onChange signature, given three callers outside src/ depend on it and the new one batches events?';
  const sessions = [
    session({
      name: 'a-very-long-session-name-that-stays-whole',
      state: 'needs_input',
      reason: { kind: 'question', text: long },
    }),
    session({
      id: 'zzzzzz999',
      name: 'deny-me',
      state: 'needs_input',
      reason: { kind: 'approval', requestId: 'r', tool: 'Bash', input: 'rm -rf build' },
    }),
  ];

  it('fits every line in the width by cutting the activity, never the name, under a header row', () => {
    const lines = renderList(sessions, NOW, undefined, { width: 80 }).trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ {2}ID {6}NAME +AGENT +AGE +ACTIVITY$/);
    expect(lines[2]).toContain('a-very-long-session-name-that-stays-whole');
    expect(lines[2]).toMatch(/asks: Should.*…$/);
  });

  it('says an approval once, and keeps whole lines without a width', () => {
    const text = renderList(sessions, NOW);
    expect(text).toContain('waiting: approve Bash: rm -rf build');
    expect(text).not.toMatch(/approve\? approve/);
    expect(text).toContain(long.slice(0, 60));
  });

  it('colours the group titles only when asked', () => {
    expect(renderList(sessions, NOW, undefined, { color: true })).toContain(
      '\x1b[1;33mNeeds input (2)\x1b[0m',
    );
    expect(renderList(sessions, NOW)).not.toContain('\x1b[');
  });

  const busy = [
    session({
      name: 'a-rather-long-session-name-for-80-columns',
      state: 'working',
      inputTokens: 120_000,
      outputTokens: 9_000,
      costUsd: 1.2345,
      activity: 'running Bash: npx vitest run src/parser.test.ts --reporter verbose',
    }),
    session({
      id: 'qqqqqq111',
      name: 'second',
      state: 'queued',
      queuePosition: 1,
      heldBy: 'waits for task 2 (parser rewrite) to merge',
    }),
  ];

  it('fits the terminal at 80 and at 40 columns, the usage column giving way before the name', () => {
    const wide = renderList(busy, NOW, undefined, { width: 80 }).trimEnd().split('\n');
    for (const line of wide) expect(line.length).toBeLessThanOrEqual(80);
    expect(wide.join('\n')).toContain('a-rather-long-session-name-for-80-columns');
    const narrow = renderList(busy, NOW, undefined, { width: 40 }).trimEnd().split('\n');
    for (const line of narrow) expect(line.length).toBeLessThanOrEqual(40);
    expect(narrow[0]).not.toContain('USAGE');
    expect(narrow.join('\n')).toMatch(/a-rather-…/);
  });

  it('says why a queued session waits', () => {
    expect(renderList(busy, NOW)).toMatch(/second .*queued #1: waits for task 2 \(parser rewrite\) to merge/);
  });
});
