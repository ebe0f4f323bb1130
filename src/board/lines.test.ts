import { describe, expect, it } from 'vitest';
import type { WorkspaceEvent } from '../events/workspace.js';
import {
  colorsWanted,
  columnsFor,
  conflictWord,
  fit,
  keyHints,
  sessionLine,
  windowsLine,
  workspaceLine,
} from './lines.js';
import type { SessionView } from '../api/index.js';

const base = {
  id: 'a1',
  name: 'refactor-watcher',
  project: 'repo',
  projectRoot: '/r',
  agent: 'claude',
  model: null,
  permissionMode: 'default',
  prompt: 'p',
  state: 'needs_input',
  reason: {
    kind: 'question',
    text: 'Which of the two watcher APIs should the new code use, and should the old one stay?',
  },
  pinned: false,
  branch: 'b',
  baseRef: 'main',
  baseCommit: 'c',
  worktree: '/w',
  hostPid: 1,
  running: true,
  activity: null,
  lastSeq: 3,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  lastEventAt: '2026-01-01T00:00:00.000Z',
  queuePosition: null,
} as SessionView;

describe('board lines', () => {
  it('fits a session into 80 columns, the question cut and never the name', () => {
    const line = sessionLine(
      base,
      true,
      { name: 20, agent: 8, machine: 0 },
      false,
      Date.parse('2026-01-01T00:01:00.000Z'),
      80,
    );
    expect([...line].length).toBe(80);
    expect(line.startsWith('› refactor-watcher')).toBe(true);
    expect(line).toContain('claude');
    expect(line).toContain('1m  asks: Which of the two watcher APIs');
    expect(line.endsWith('…')).toBe(true);
  });

  it('names the machine running each session when the workspace is shared', () => {
    const sessions = [
      { ...base, machine: 'alpha' },
      { ...base, id: 'b2', name: 'other', machine: 'build-box' },
    ];
    const columns = columnsFor(sessions, 100, false);
    expect(columns.machine).toBe('build-box'.length);
    expect(
      sessionLine(sessions[1]!, false, columns, false, Date.parse('2026-01-01T00:01:00.000Z'), 100),
    ).toMatch(/^ {2}other\s+claude\s+build-box\s+1m {2}asks:/);
    expect(columnsFor([base], 100, false).machine).toBe(0);
  });

  it('describes a workspace event of a domain it does not know by its type and its words', () => {
    const event = {
      seq: 4,
      ts: '2026-01-01T12:34:56.000Z',
      type: 'alert.raised',
      data: { id: 'x', name: 'w3', message: 'over budget', spent: 2.5, nested: { a: 1 } },
    } as unknown as WorkspaceEvent;
    expect(workspaceLine(event, 200)).toBe('12:34:56 alert.raised w3, message: over budget, spent: 2.5');
  });

  it("marks another machine's event with its name, and reads it as that machine's own would", () => {
    const relayed = {
      seq: 5,
      ts: '2026-01-01T12:34:56.000Z',
      type: 'budget.set',
      data: { scope: 'day', windowMs: null, limitUsd: 40, warnRatio: 0.8 },
      machine: 'beta',
      logSeq: 88,
    };
    expect(workspaceLine(relayed, 200)).toBe('12:34:56 [beta] budget.set budget day: $40 (warn at 80%)');
    expect(workspaceLine({ ...relayed, type: 'gadget.made', data: { name: 'g1' } }, 200)).toBe(
      '12:34:56 [beta] gadget.made g1',
    );
    // A known type whose data another version shaped otherwise reads by its fields, not as a crash.
    expect(workspaceLine({ ...relayed, type: 'task.added', data: { title: 'renamed field' } }, 200)).toBe(
      '12:34:56 [beta] task.added renamed field',
    );
    expect(workspaceLine({ ...relayed, type: 'budget.set', data: { scope: 'day' } }, 200)).toBe(
      '12:34:56 [beta] budget.set scope: day',
    );
  });

  it('colours only a colour terminal without NO_COLOR', () => {
    const tty = { isTTY: true, hasColors: () => true };
    expect(colorsWanted({}, tty)).toBe(true);
    expect(colorsWanted({ NO_COLOR: '1' }, tty)).toBe(false);
    expect(colorsWanted({ NO_COLOR: '' }, tty)).toBe(true);
    expect(colorsWanted({ TERM: 'dumb' }, tty)).toBe(false);
    expect(colorsWanted({}, { isTTY: true, hasColors: () => false })).toBe(false);
  });

  it('cuts with an ellipsis, pads on request, and shortens the key hints to the width', () => {
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(fit('ab', 4, true)).toBe('ab  ');
    expect(keyHints(80).length).toBeLessThanOrEqual(80);
    expect(keyHints(200)).toContain('x remove');
  });

  it("puts the radar's badge before the activity, the base named as such", () => {
    expect(conflictWord(undefined)).toBe('');
    expect(
      conflictWord({
        level: 'hot',
        with: [
          { name: 'beta', level: 'hot', base: false },
          { name: 'main', level: 'soft', base: true },
        ],
      }),
    ).toBe('⚠ hot: beta · soft: base · ');
    expect(
      conflictWord({
        level: 'soft',
        with: [
          { name: 'beta', level: 'soft', base: false },
          { name: 'gamma', level: 'soft', base: false },
        ],
      }),
    ).toBe('⚠ soft: beta, gamma · ');
    const line = sessionLine(
      { ...base, state: 'working', reason: null, activity: 'editing a.ts' },
      false,
      { name: 20, agent: 8, machine: 0 },
      false,
      Date.parse('2026-01-01T00:00:10.000Z'),
      120,
      { level: 'soft', with: [{ name: 'beta', level: 'soft', base: false }] },
    );
    expect(line).toContain('10s  ⚠ soft: beta · editing a.ts');
  });
});

describe('the windows line', () => {
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  it('shows each window used and left, its reset, and when it runs out first at this rate', () => {
    const line = windowsLine(
      [
        {
          agent: 'claude',
          name: '5h',
          usedPercent: 80,
          remainingPercent: 20,
          resetsAt: new Date(NOW + 2 * 3600_000).toISOString(),
          exhaustsInMs: 40 * 60_000,
        },
        {
          agent: 'codex',
          name: '7d',
          usedPercent: 13.4,
          remainingPercent: 86.6,
          resetsAt: new Date(NOW + 3 * 86_400_000).toISOString(),
          exhaustsInMs: null,
        },
      ],
      NOW,
      200,
    );
    expect(line).toBe(
      'Windows: claude 5h 80% used, 20% left, resets in 2h (runs out in 40m at this rate) · codex 7d 13% used, 87% left, resets in 3d',
    );
  });

  it('says nothing with no window, or only windows past their reset', () => {
    expect(windowsLine([], NOW, 80)).toBe('');
    const old = {
      agent: 'claude',
      name: '5h',
      usedPercent: 100,
      remainingPercent: 0,
      resetsAt: new Date(NOW - 60_000).toISOString(),
      exhaustsInMs: 0,
    };
    expect(windowsLine([old], NOW, 80)).toBe('');
  });
});
