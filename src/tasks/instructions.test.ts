import { describe, expect, it } from 'vitest';
import { taskInstructions } from './instructions.js';
import { renderStatus } from './status-file.js';
import { columnFromSessions } from './columns.js';

describe("a task's instructions", () => {
  it('hold the task, its scope, decisions, notes, the other sessions and the rules', () => {
    const text = taskInstructions({
      task: {
        id: 3,
        title: 'refactor the watcher',
        description: 'make it poll less',
        scope: ['src/watcher/**', 'test/watcher/**'],
        tracker: '#432',
        trackerUrl: null,
      },
      decisions: [
        {
          kind: 'decisions',
          file: '.baton/decisions/3-1-keep.md',
          task: 3,
          date: '2026-01-01T00:00:00.000Z',
          text: 'keep onChange',
        },
      ],
      notes: [
        {
          kind: 'notes',
          file: '.baton/notes/3-1-fixtures.md',
          task: 3,
          date: '2026-01-01T00:00:00.000Z',
          text: 'fixtures\nconflict',
        },
      ],
      others: [
        {
          name: 'ipc',
          agent: 'codex',
          state: 'working',
          task: { id: 4, title: 'IPC handlers', scope: ['src/ipc/**'] },
        },
      ],
    });
    expect(text).toContain('## Your task: 3. refactor the watcher (tracker: #432)');
    expect(text).toContain('make it poll less');
    expect(text).toContain('Do not modify files outside src/watcher/**, test/watcher/**');
    expect(text).toContain('- keep onChange (.baton/decisions/3-1-keep.md)');
    expect(text).toContain('- fixtures conflict (.baton/notes/3-1-fixtures.md)');
    expect(text).toContain('- ipc (codex, working): task 4. IPC handlers (scope src/ipc/**)');
    expect(text).toMatch(/error in a file you did not touch may be another agent mid-edit/);
    expect(text).toMatch(/No unrelated refactors/);
  });
});

describe('status.md', () => {
  it('is a table of agent, task, state and last update, safe for pipes in titles', () => {
    const text = renderStatus(
      [
        {
          session: 'w1',
          agent: 'claude',
          task: { id: 1, title: 'a | b', tracker: '#1' },
          state: 'needs_input',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
      new Date('2026-01-01T00:00:01.000Z'),
    );
    expect(text).toContain('| w1 | claude | 1. a \\| b (#1) | needs input | 2026-01-01T00:00:00.000Z |');
  });
});

describe("a task's column from its sessions", () => {
  it('follows the most urgent session, and is left to the person without sessions', () => {
    expect(columnFromSessions([])).toBeUndefined();
    expect(columnFromSessions(['working', 'needs_input'])).toBe('needs_input');
    expect(columnFromSessions(['ready_for_review', 'queued'])).toBe('running');
    expect(columnFromSessions(['ready_for_review', 'failed'])).toBe('review');
    expect(columnFromSessions(['stopped'])).toBe('ready');
  });
});
