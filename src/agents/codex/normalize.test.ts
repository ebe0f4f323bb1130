import { describe, expect, it } from 'vitest';
import {
  CodexNormalizer,
  describeError,
  limitOf,
  limitsEvent,
  unwrapShell,
  usageDelta,
  windowName,
} from './normalize.js';

const CWD = '/work/repo';

// Items shaped like the app-server's item/started and item/completed notifications.
const command = (status: string, extra: Record<string, unknown> = {}) => ({
  type: 'commandExecution',
  id: 'c1',
  command: "/bin/bash -lc 'ls -la'",
  status,
  ...extra,
});
const patch = (status: string) => ({
  type: 'fileChange',
  id: 'p1',
  changes: [{ path: `${CWD}/notes.txt`, kind: { type: 'add' } }],
  status,
});

describe('CodexNormalizer', () => {
  it('starts a command execution as a run tool with the unwrapped command', () => {
    expect(new CodexNormalizer(CWD).itemStarted(command('inProgress'))).toEqual([
      { type: 'tool.started', toolId: 'c1', tool: 'shell', kind: 'run', input: 'ls -la' },
    ]);
  });

  it('finishes a command with its output and exit code; a non-zero exit is a failure', () => {
    const normalizer = new CodexNormalizer(CWD);
    normalizer.itemStarted(command('inProgress'));
    expect(
      normalizer.itemCompleted(command('completed', { aggregatedOutput: 'a\nb\n', exitCode: 0 })),
    ).toEqual([
      { type: 'tool.finished', toolId: 'c1', tool: 'shell', ok: true, output: 'a\nb\n', exitCode: 0 },
    ]);
    expect(normalizer.itemCompleted(command('failed', { aggregatedOutput: '', exitCode: 2 }))).toEqual([
      { type: 'tool.finished', toolId: 'c1', tool: 'shell', ok: false, exitCode: 2 },
    ]);
    expect(normalizer.itemCompleted(command('declined'))).toEqual([
      { type: 'tool.finished', toolId: 'c1', tool: 'shell', ok: false, output: 'declined by the user' },
    ]);
  });

  it('starts a file change as an edit naming its files relative to the worktree, and remembers them for approvals', () => {
    const normalizer = new CodexNormalizer(CWD);
    expect(normalizer.itemStarted(patch('inProgress'))).toEqual([
      {
        type: 'tool.started',
        toolId: 'p1',
        tool: 'apply_patch',
        kind: 'edit',
        input: 'notes.txt',
        files: ['notes.txt'],
      },
    ]);
    expect(normalizer.filesOf('p1')).toEqual(['notes.txt']);
    expect(normalizer.itemCompleted(patch('completed'))).toEqual([
      { type: 'tool.finished', toolId: 'p1', tool: 'apply_patch', ok: true, files: ['notes.txt'] },
    ]);
    expect(normalizer.itemCompleted(patch('declined'))).toEqual([
      { type: 'tool.finished', toolId: 'p1', tool: 'apply_patch', ok: false, output: 'declined by the user' },
    ]);
  });

  it('names an MCP tool by server and tool, of kind other, and a web search of kind web', () => {
    const normalizer = new CodexNormalizer(CWD);
    const mcp = {
      type: 'mcpToolCall',
      id: 'm1',
      server: 'github',
      tool: 'create_issue',
      status: 'inProgress',
    };
    expect(normalizer.itemStarted(mcp)).toEqual([
      { type: 'tool.started', toolId: 'm1', tool: 'github.create_issue', kind: 'other', input: '' },
    ]);
    expect(normalizer.itemCompleted({ ...mcp, status: 'completed' })).toEqual([
      { type: 'tool.finished', toolId: 'm1', tool: 'github.create_issue', ok: true },
    ]);
    const search = { type: 'webSearch', id: 'w1', query: 'zod enum', action: null };
    expect(normalizer.itemStarted(search)).toEqual([
      { type: 'tool.started', toolId: 'w1', tool: 'web_search', kind: 'web', input: 'zod enum' },
    ]);
    expect(normalizer.itemCompleted(search)).toEqual([
      { type: 'tool.finished', toolId: 'w1', tool: 'web_search', ok: true },
    ]);
  });

  it('turns agent messages and reasoning into messages and thinking, skipping empty ones', () => {
    const normalizer = new CodexNormalizer(CWD);
    expect(normalizer.itemCompleted({ type: 'agentMessage', id: 'a1', text: 'Done.' })).toEqual([
      { type: 'message.added', role: 'assistant', text: 'Done.' },
    ]);
    expect(normalizer.itemCompleted({ type: 'agentMessage', id: 'a2', text: ' ' })).toEqual([]);
    expect(
      normalizer.itemCompleted({ type: 'reasoning', id: 'r1', summary: ['plan'], content: ['step'] }),
    ).toEqual([{ type: 'thinking.added', text: 'plan\nstep' }]);
  });

  it('ignores item types it does not know, and reports a known type with an unexpected shape', () => {
    const normalizer = new CodexNormalizer(CWD);
    expect(normalizer.itemStarted({ type: 'contextCompaction', id: 'x' })).toEqual([]);
    expect(normalizer.itemStarted({ type: 'commandExecution', id: 'c2' })).toMatch(/^unexpected item shape/);
  });

  it('closes tool items a turn left open as failed', () => {
    const normalizer = new CodexNormalizer(CWD);
    normalizer.itemStarted(command('inProgress'));
    expect(normalizer.closeOpenTools('interrupted')).toEqual([
      { type: 'tool.finished', toolId: 'c1', tool: 'shell', ok: false, output: 'interrupted' },
    ]);
  });
});

describe('codex usage and errors', () => {
  it('reports the difference of thread totals, with cached input on its own', () => {
    const first = usageDelta(
      { input: 0, cached: 0, output: 0 },
      { inputTokens: 100, cachedInputTokens: 40, outputTokens: 10 },
    );
    expect(first.event).toEqual({
      type: 'usage.reported',
      inputTokens: 60,
      outputTokens: 10,
      cacheReadTokens: 40,
    });
    const same = usageDelta(first.total, { inputTokens: 100, cachedInputTokens: 40, outputTokens: 10 });
    expect(same.event).toBeUndefined();
    const next = usageDelta(first.total, { inputTokens: 150, cachedInputTokens: 40, outputTokens: 15 });
    expect(next.event).toEqual({ type: 'usage.reported', inputTokens: 50, outputTokens: 5 });
  });

  it('unwraps a login shell command and describes an error with its details', () => {
    expect(unwrapShell("/bin/bash -lc 'echo '\\''hi'\\'''")).toBe("echo 'hi'");
    expect(unwrapShell('ls')).toBe('ls');
    expect(
      describeError({
        message: 'stream error',
        additionalDetails: 'HTTP 500',
        codexErrorInfo: 'internalServerError',
      }),
    ).toBe('stream error HTTP 500 [internalServerError]');
  });
});

describe('codex usage for pricing and windows', () => {
  it('names the model on its usage so the price table can price it', () => {
    const { event } = usageDelta(
      { input: 0, cached: 0, output: 0 },
      { inputTokens: 1000, cachedInputTokens: 0, outputTokens: 50 },
      'gpt-5.5',
    );
    expect(event).toEqual({ type: 'usage.reported', inputTokens: 1000, outputTokens: 50, model: 'gpt-5.5' });
  });

  it('turns the account rate limits into named windows with their reset times', () => {
    const event = limitsEvent({
      primary: { usedPercent: 42.5, windowDurationMins: 300, resetsAt: 1_800_000_000 },
      secondary: { usedPercent: 7, windowDurationMins: 10080, resetsAt: null },
    });
    expect(event).toEqual({
      type: 'limits.reported',
      windows: [
        {
          name: '5h',
          usedPercent: 42.5,
          windowMinutes: 300,
          resetsAt: new Date(1_800_000_000_000).toISOString(),
        },
        { name: '7d', usedPercent: 7, windowMinutes: 10080 },
      ],
    });
  });

  it('says nothing for a sparse update without windows', () => {
    expect(limitsEvent({ primary: null, secondary: null })).toBeUndefined();
    expect(windowName(45)).toBe('45m');
  });
});

describe('a usage limit ending the turn (decision 262)', () => {
  const windows = [
    { name: '5h', usedPercent: 100, resetsAt: '2026-11-23T15:00:00.000Z' },
    { name: '7d', usedPercent: 40, resetsAt: '2026-11-27T10:00:00.000Z' },
  ];
  it('is the fullest window codex last reported, with its reset', () => {
    expect(limitOf({ codexErrorInfo: 'usageLimitExceeded' }, windows)).toEqual({
      window: '5h',
      resetsAt: '2026-11-23T15:00:00.000Z',
    });
    expect(limitOf({ codexErrorInfo: 'usageLimitExceeded' }, [])).toEqual({});
  });
  it('is no limit for another error', () => {
    expect(limitOf({ codexErrorInfo: 'internalServerError' }, windows)).toBeUndefined();
    expect(
      limitOf({ codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 502 } } }, windows),
    ).toBeUndefined();
    expect(limitOf(null, windows)).toBeUndefined();
  });
});
