import { describe, expect, it } from 'vitest';
import { AcpNormalizer, batonKind, commandOf, filesOf, planText } from './normalize.js';

const CWD = '/work/tree';

describe('ACP session updates in Baton’s vocabulary', () => {
  it('gathers streamed chunks into one message, and thoughts before it into one thought', () => {
    const n = new AcpNormalizer(CWD);
    const chunk = (sessionUpdate: string, text: string) => ({
      sessionUpdate,
      content: { type: 'text', text },
    });
    expect(n.update(chunk('agent_thought_chunk', 'Let me '))).toEqual([]);
    expect(n.update(chunk('agent_thought_chunk', 'think.'))).toEqual([]);
    expect(n.update(chunk('agent_message_chunk', 'Hel'))).toEqual([]);
    expect(n.update(chunk('agent_message_chunk', 'lo.'))).toEqual([]);
    expect(n.flush()).toEqual([
      { type: 'thinking.added', text: 'Let me think.' },
      { type: 'message.added', role: 'assistant', text: 'Hello.' },
    ]);
    expect(n.flush()).toEqual([]);
  });

  it('drops the empty subject line Gemini CLI puts before a thought that has none, and keeps a real one', () => {
    const n = new AcpNormalizer(CWD);
    const thought = (text: string) => ({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text },
    });
    n.update(thought('****\nThe column must exist first.'));
    expect(n.flush()).toEqual([{ type: 'thinking.added', text: 'The column must exist first.' }]);
    n.update(thought('**Ordering the migration**\nThe column must exist first.'));
    expect(n.flush()).toEqual([
      { type: 'thinking.added', text: '**Ordering the migration**\nThe column must exist first.' },
    ]);
  });

  it('starts a tool call once, whether first seen in an update or a permission request, and finishes it once', () => {
    const n = new AcpNormalizer(CWD);
    const call = {
      toolCallId: 't1',
      kind: 'edit',
      title: 'Writing to a.txt',
      locations: [{ path: `${CWD}/a.txt` }],
    };
    expect(n.toolAsked(call)).toEqual([
      {
        type: 'tool.started',
        toolId: 't1',
        tool: 'edit',
        kind: 'edit',
        input: 'Writing to a.txt',
        files: ['a.txt'],
      },
    ]);
    expect(n.update({ sessionUpdate: 'tool_call_update', ...call, status: 'in_progress' })).toEqual([]);
    const done = n.update({
      sessionUpdate: 'tool_call_update',
      ...call,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'wrote it' } }],
    });
    expect(done).toEqual([
      { type: 'tool.finished', toolId: 't1', tool: 'edit', ok: true, output: 'wrote it', files: ['a.txt'] },
    ]);
    expect(n.update({ sessionUpdate: 'tool_call_update', ...call, status: 'completed' })).toEqual([]);
  });

  it('flushes the message before a tool call, so the order is kept', () => {
    const n = new AcpNormalizer(CWD);
    n.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'First.' } });
    const events = n.update({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      kind: 'execute',
      title: 'ls',
      status: 'pending',
    });
    expect(events.map((e) => e.type)).toEqual(['message.added', 'tool.started']);
  });

  it('closes the calls a turn left open as failed', () => {
    const n = new AcpNormalizer(CWD);
    n.update({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      kind: 'execute',
      title: 'sleep 9',
      status: 'in_progress',
    });
    expect(n.closeOpenTools('stopped')).toEqual([
      { type: 'tool.finished', toolId: 't', tool: 'execute', ok: false, output: 'stopped' },
    ]);
    expect(n.closeOpenTools('again')).toEqual([]);
  });

  it('tells a plan as a checklist', () => {
    expect(
      planText([
        { content: 'read', status: 'completed' },
        { content: 'write', status: 'in_progress' },
        { content: 'test', status: 'pending' },
      ]),
    ).toBe('Plan:\n[x] read\n[~] write\n[ ] test');
  });

  it('maps ACP tool kinds to Baton’s, and anything unknown to other', () => {
    expect(
      ['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'think', 'bogus', null].map(batonKind),
    ).toEqual(['read', 'edit', 'edit', 'edit', 'search', 'run', 'web', 'other', 'other', 'other']);
  });

  it('finds the command line in raw input, else in the title of an execute call only', () => {
    expect(
      commandOf({ toolCallId: 'a', kind: 'execute', rawInput: { command: 'rm -rf x' }, title: 'Remove' }),
    ).toBe('rm -rf x');
    expect(commandOf({ toolCallId: 'b', kind: 'execute', title: 'rm -rf src' })).toBe('rm -rf src');
    expect(commandOf({ toolCallId: 'c', kind: 'edit', title: 'rm -rf src' })).toBeUndefined();
  });

  it('keeps paths outside the worktree absolute, so the gate sees an escape', () => {
    expect(
      filesOf(
        { toolCallId: 'a', rawInput: { filePath: '/etc/passwd' }, locations: [{ path: `${CWD}/b.txt` }] },
        CWD,
      ),
    ).toEqual(['b.txt', '/etc/passwd']);
    expect(filesOf({ toolCallId: 'a', rawInput: { filePath: '../x' } }, CWD)).toEqual(['/work/x']);
  });
});
