import type {
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKRateLimitInfo,
  SDKResultMessage,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { ClaudeNormalizer, limitOf, limitsEvent, turnOutcome } from './normalize.js';
import { toolKind } from './tools.js';

const CWD = '/work/repo';

// Shaped like the stream-json lines the CLI writes (see the e2e tests); only the fields read are set.
function assistant(content: unknown[], parent: string | null = null): SDKAssistantMessage {
  return {
    type: 'assistant',
    message: { role: 'assistant', content },
    parent_tool_use_id: parent,
    uuid: 'u1',
    session_id: 's1',
  } as unknown as SDKAssistantMessage;
}

function toolResult(toolUseId: string, content: unknown, isError = false): SDKUserMessage {
  return {
    type: 'user',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }],
    },
    parent_tool_use_id: null,
  } as unknown as SDKUserMessage;
}

function result(fields: Record<string, unknown>): SDKResultMessage {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: '',
    errors: [],
    ...fields,
  } as unknown as SDKResultMessage;
}

describe('Claude tool kinds', () => {
  it.each([
    ['Write', 'edit'],
    ['Edit', 'edit'],
    ['MultiEdit', 'edit'],
    ['NotebookEdit', 'edit'],
    ['Read', 'read'],
    ['Bash', 'run'],
    ['Glob', 'search'],
    ['Grep', 'search'],
    ['WebFetch', 'web'],
    ['WebSearch', 'web'],
    ['Task', 'other'],
    ['mcp__github__create_issue', 'other'],
    ['toString', 'other'],
  ])('%s is %s', (tool, kind) => {
    expect(toolKind(tool)).toBe(kind);
  });
});

describe('ClaudeNormalizer', () => {
  it('turns a tool_use block into tool.started with its kind, a short input and the files it writes', () => {
    const normalizer = new ClaudeNormalizer(CWD);
    const events = normalizer.assistant(
      assistant([
        { type: 'tool_use', id: 'tu1', name: 'Write', input: { file_path: `${CWD}/src/a.ts`, content: 'x' } },
      ]),
    );
    expect(events).toEqual([
      {
        type: 'tool.started',
        toolId: 'tu1',
        tool: 'Write',
        kind: 'edit',
        input: `${CWD}/src/a.ts`,
        files: ['src/a.ts'],
      },
    ]);
  });

  it('describes a Bash call by its command and names no files', () => {
    const events = new ClaudeNormalizer(CWD).assistant(
      assistant([
        {
          type: 'tool_use',
          id: 'tu2',
          name: 'Bash',
          input: { command: 'npm test', description: 'run tests' },
        },
      ]),
    );
    expect(events).toEqual([
      { type: 'tool.started', toolId: 'tu2', tool: 'Bash', kind: 'run', input: 'npm test' },
    ]);
  });

  it('keeps top-level text and thinking, and drops a sub-agent’s text', () => {
    const normalizer = new ClaudeNormalizer(CWD);
    expect(
      normalizer.assistant(
        assistant([
          { type: 'text', text: 'Done.' },
          { type: 'thinking', thinking: 'hmm', signature: '' },
        ]),
      ),
    ).toEqual([
      { type: 'message.added', role: 'assistant', text: 'Done.' },
      { type: 'thinking.added', text: 'hmm' },
    ]);
    expect(normalizer.assistant(assistant([{ type: 'text', text: 'inner' }], 'tu-task'))).toEqual([]);
    expect(normalizer.assistant(assistant([{ type: 'text', text: '   ' }]))).toEqual([]);
  });

  it('pairs a tool result with its call: files on success, output and exit code on failure', () => {
    const normalizer = new ClaudeNormalizer(CWD);
    normalizer.assistant(
      assistant([
        {
          type: 'tool_use',
          id: 'w',
          name: 'Edit',
          input: { file_path: 'notes.txt', old_string: 'a', new_string: 'b' },
        },
      ]),
    );
    normalizer.assistant(
      assistant([{ type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'false' } }]),
    );
    expect(normalizer.user(toolResult('w', 'The file notes.txt has been updated.'))).toEqual([
      {
        type: 'tool.finished',
        toolId: 'w',
        tool: 'Edit',
        ok: true,
        output: 'The file notes.txt has been updated.',
        files: ['notes.txt'],
      },
    ]);
    expect(normalizer.user(toolResult('b', [{ type: 'text', text: 'Exit code 1\nboom' }], true))).toEqual([
      {
        type: 'tool.finished',
        toolId: 'b',
        tool: 'Bash',
        ok: false,
        output: 'Exit code 1\nboom',
        exitCode: 1,
      },
    ]);
    expect(normalizer.user(toolResult('unknown', 'x'))).toEqual([]);
  });

  it('closes tool calls a turn left open as failed', () => {
    const normalizer = new ClaudeNormalizer(CWD);
    normalizer.assistant(
      assistant([{ type: 'tool_use', id: 'slow', name: 'Bash', input: { command: 'sleep 30' } }]),
    );
    expect(normalizer.closeOpenTools('interrupted')).toEqual([
      { type: 'tool.finished', toolId: 'slow', tool: 'Bash', ok: false, output: 'interrupted' },
    ]);
    expect(normalizer.closeOpenTools('again')).toEqual([]);
  });

  it('reports an API retry as a non-fatal error', () => {
    const retry = {
      type: 'system',
      subtype: 'api_retry',
      error: 'server_error',
      error_status: 500,
      attempt: 1,
      max_retries: 2,
      retry_delay_ms: 499.6,
    } as unknown as SDKAPIRetryMessage;
    expect(new ClaudeNormalizer(CWD).apiRetry(retry)).toEqual({
      type: 'error.raised',
      message: 'Model API error 500 (server_error); retry 1 of 2 in 500 ms',
      fatal: false,
    });
  });
});

describe('turnOutcome', () => {
  it('is success for a clean result, interrupted when asked, and error when is_error says so despite subtype success', () => {
    expect(turnOutcome(result({}), false)).toEqual({ type: 'turn.completed', outcome: 'success' });
    expect(turnOutcome(result({}), true)).toEqual({ type: 'turn.completed', outcome: 'interrupted' });
    expect(
      turnOutcome(result({ is_error: true, result: 'API Error: 500', api_error_status: 500 }), false),
    ).toEqual({
      type: 'turn.completed',
      outcome: 'error',
      error: 'API error 500: API Error: 500',
    });
    expect(
      turnOutcome(
        result({
          subtype: 'error_during_execution',
          is_error: true,
          errors: [],
          terminal_reason: 'aborted_tools',
        }),
        false,
      ),
    ).toEqual({
      type: 'turn.completed',
      outcome: 'error',
      error: 'error_during_execution (aborted_tools)',
    });
  });
});

describe("Claude's subscription windows", () => {
  const at = (seconds: number) => new Date(seconds * 1000).toISOString();

  it('reports every window the CLI read from the rate-limit headers, named as Codex names them', () => {
    // As the real CLI sent it for a claude.ai login (see test/agents/watchdog.e2e.test.ts).
    const info = {
      status: 'allowed',
      resetsAt: 1_795_473_293,
      rateLimitType: 'five_hour',
      isUsingOverage: false,
      unifiedWindows: {
        five_hour: { utilization: 0.42, resetsAt: 1_795_473_293 },
        seven_day: { utilization: 0.13, resetsAt: 1_795_728_893 },
        something_new: { utilization: 0.5 },
      },
    } as SDKRateLimitInfo;
    expect(limitsEvent(info)).toEqual({
      type: 'limits.reported',
      windows: [
        { name: '5h', usedPercent: 42, windowMinutes: 300, resetsAt: at(1_795_473_293) },
        { name: '7d', usedPercent: 13, windowMinutes: 10_080, resetsAt: at(1_795_728_893) },
      ],
    });
  });

  it("reports the event's own window from the SDK's documented fields, and nothing when it does not say how much is used", () => {
    expect(
      limitsEvent({
        status: 'allowed_warning',
        rateLimitType: 'seven_day_opus',
        utilization: 0.915,
        resetsAt: 1_795_728_893,
      }),
    ).toEqual({
      type: 'limits.reported',
      windows: [{ name: '7d-opus', usedPercent: 91.5, windowMinutes: 10_080, resetsAt: at(1_795_728_893) }],
    });
    expect(limitsEvent({ status: 'rejected', rateLimitType: 'overage', utilization: 1.2 })).toEqual({
      type: 'limits.reported',
      windows: [{ name: 'overage', usedPercent: 120 }],
    });
    expect(
      limitsEvent({ status: 'allowed', rateLimitType: 'five_hour', resetsAt: 1_795_473_293 }),
    ).toBeUndefined();
    expect(limitsEvent({ status: 'allowed' })).toBeUndefined();
  });
});

describe('a usage limit ending the turn (decision 262)', () => {
  const failed = result({ is_error: true, result: 'Claude usage limit reached', api_error_status: 429 });
  it('is the rejected window and its reset, from the rate-limit event of the turn', () => {
    const rejected = {
      status: 'rejected',
      rateLimitType: 'five_hour',
      resetsAt: 1_795_000_000,
    } as SDKRateLimitInfo;
    expect(limitOf(failed, rejected)).toEqual({
      window: '5h',
      resetsAt: new Date(1_795_000_000_000).toISOString(),
    });
  });
  it('is a limit without a reset on a bare 429, and no limit on another error', () => {
    expect(limitOf(failed, undefined)).toEqual({});
    expect(
      limitOf(result({ is_error: true, result: 'boom', api_error_status: 500 }), undefined),
    ).toBeUndefined();
  });
});
