import { describe, expect, it } from 'vitest';
import { describeActivity, toolKindOf } from './format.js';
import { parseEventLine, type EventBody } from './index.js';

const started = (fields: Partial<Extract<EventBody, { type: 'tool.started' }>>): EventBody => ({
  type: 'tool.started',
  toolId: 't1',
  tool: 'Whatever',
  input: 'x',
  ...fields,
});

describe('tool kinds in events', () => {
  it('an event log line written before tool kinds existed still parses, and reads as kind other', () => {
    const line =
      '{"v":1,"seq":7,"ts":"2025-01-01T00:00:00.000Z","type":"tool.started","toolId":"t1","tool":"Write","input":"a.txt","files":["a.txt"]}';
    const event = parseEventLine(line);
    expect(event.type === 'tool.started' && toolKindOf(event)).toBe('other');
    const approval = parseEventLine(
      '{"v":1,"seq":8,"ts":"2025-01-01T00:00:00.000Z","type":"approval.requested","requestId":"r1","tool":"Bash","input":"ls"}',
    );
    expect(approval.type === 'approval.requested' && toolKindOf(approval)).toBe('other');
  });

  it('a kind outside the vocabulary is refused', () => {
    expect(() =>
      parseEventLine(
        '{"v":1,"seq":1,"ts":"t","type":"tool.started","toolId":"t1","tool":"x","kind":"teleport","input":""}',
      ),
    ).toThrow();
  });

  it('the activity line follows the kind, not the tool name', () => {
    expect(
      describeActivity(
        started({ tool: 'apply_patch', kind: 'edit', input: 'a.ts, b.ts', files: ['a.ts', 'b.ts'] }),
      ),
    ).toBe('editing a.ts');
    expect(describeActivity(started({ tool: 'Read', kind: 'read', input: 'src/x.ts' }))).toBe(
      'reading src/x.ts',
    );
    expect(describeActivity(started({ tool: 'Grep', kind: 'search', input: 'TODO' }))).toBe('searching TODO');
    expect(describeActivity(started({ tool: 'shell', kind: 'run', input: 'npm test' }))).toBe(
      'running shell: npm test',
    );
    // A vendor's edit tool named in an old log, without a kind, is no longer guessed at.
    expect(describeActivity(started({ tool: 'Write', input: 'a.txt' }))).toBe('running Write: a.txt');
  });
});
