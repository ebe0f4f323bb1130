import { describe, expect, it } from 'vitest';
import { makeEvent, type EventBody } from '../events/index.js';
import { recordOf, TurnTracker, turnMessage, turnRecord } from './record.js';

const FACTS = { sessionId: 'id-1', name: 'w1', agent: 'scripted', model: null, task: null, prompt: 'do it' };

function feed(tracker: TurnTracker, bodies: EventBody[], from = 1): ReturnType<TurnTracker['add']>[] {
  return bodies.map((body, i) => tracker.add(makeEvent(from + i, body)));
}

describe('following a session’s turns', () => {
  it('gives each finished turn its number, prompt, reply, files, model and cited decisions', () => {
    const tracker = new TurnTracker();
    const ends = feed(tracker, [
      { type: 'session.started', agent: 'scripted', cwd: '/w', hostPid: 1, resumed: false, model: 'm-1' },
      { type: 'turn.started', prompt: 'first prompt' },
      { type: 'tool.started', toolId: 't1', tool: 'Write', input: 'a.ts', files: ['a.ts'] },
      { type: 'tool.started', toolId: 't2', tool: 'Bash', input: 'ls' },
      {
        type: 'message.added',
        role: 'assistant',
        text: 'Done; see decision 7 and .baton/decisions/cache.md',
      },
      { type: 'turn.completed', outcome: 'success' },
      { type: 'message.added', role: 'user', text: 'now the reply' },
      { type: 'turn.started' },
      { type: 'usage.reported', inputTokens: 1, outputTokens: 1, model: 'm-2' },
      { type: 'tool.started', toolId: 't3', tool: 'Edit', input: 'b.ts', files: ['b.ts'] },
      { type: 'turn.completed', outcome: 'error', error: 'x' },
    ]);
    const [first, second] = ends.filter((e) => e !== undefined);
    expect(first).toMatchObject({
      turn: 1,
      startSeq: 2,
      endSeq: 6,
      prompt: 'first prompt',
      reply: 'Done; see decision 7 and .baton/decisions/cache.md',
      model: 'm-1',
      tools: [{ tool: 'Write', files: ['a.ts'] }],
      decisions: ['decision 7', '.baton/decisions/cache.md'],
      outcome: 'success',
    });
    expect(second).toMatchObject({ turn: 2, prompt: 'now the reply', model: 'm-2', outcome: 'error' });
    expect(second!.tools).toEqual([{ tool: 'Edit', files: ['b.ts'] }]);
  });

  it('goes on numbering from the turns already seen, and ignores a turn end with no start', () => {
    const tracker = new TurnTracker(4);
    const ends = feed(tracker, [
      { type: 'turn.completed', outcome: 'success' },
      { type: 'turn.started', prompt: 'p' },
      { type: 'turn.completed', outcome: 'interrupted' },
    ]);
    expect(ends[0]).toBeUndefined();
    expect(ends[2]).toMatchObject({ turn: 5, outcome: 'interrupted' });
  });

  it('writes a record into a commit message and reads it back, and reads nothing from another message', () => {
    const tracker = new TurnTracker();
    const [, end] = feed(tracker, [
      { type: 'turn.started', prompt: 'line one\nline two' },
      { type: 'turn.completed', outcome: 'success' },
    ]);
    const record = turnRecord(FACTS, end!, 'w0', new Date('2026-01-01T00:00:00Z'));
    const message = turnMessage(record);
    expect(message.split('\n')[0]).toBe('baton: turn 1 of session w1');
    expect(recordOf(message)).toEqual(record);
    expect(recordOf('a plain commit\n\nBaton-Session: w1')).toBeUndefined();
    expect(recordOf('x\n\nBaton-Provenance: {not json')).toBeUndefined();
  });
});
