import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agents/index.js';
import { EnvironmentPlan } from '../environments/index.js';
import { agentStartOptions, checkedAgentEvent } from './host-agent.js';
import type { HostSpec } from './spec.js';

describe("the host's check of an adapter's events", () => {
  it('records a valid event as it came', () => {
    const event: AgentEvent = { type: 'message.added', role: 'assistant', text: 'hi' };
    expect(checkedAgentEvent(event)).toEqual(event);
  });

  it('turns a malformed event, or one only the host writes, into an error that quotes it', () => {
    for (const raw of [
      { type: 'message.added' },
      { type: 'state.changed', to: 'completed' },
      { type: 'setup.finished', ok: true },
    ]) {
      const checked = checkedAgentEvent(raw as unknown as AgentEvent);
      expect(checked).toMatchObject({
        type: 'error.raised',
        fatal: false,
        message: expect.stringContaining('only the host may write'),
      });
      expect(checked.type === 'error.raised' && checked.detail).toContain(raw.type);
    }
  });
});

describe("the agent's start options", () => {
  const plan = EnvironmentPlan.parse({ source: '/repo' });
  const spec: HostSpec = {
    sessionId: 's1',
    home: '/h',
    agent: 'scripted',
    cwd: '/wt/s1',
    prompt: 'p',
    permissionMode: 'default',
    options: {},
  };

  it("hold Baton's own instructions, and the ones given at dispatch after them", () => {
    const plain = agentStartOptions(spec, '/state', { BATON_BRANCH: 'baton/s1' }, plan).instructions ?? '';
    expect(plain).toContain('/wt/s1');
    expect(plain).toContain('baton/s1');
    const given =
      agentStartOptions(
        { ...spec, instructions: 'Task: fix the watcher. Do not modify files outside src/watcher/**.' },
        '/state',
        {},
        plan,
      ).instructions ?? '';
    expect(given.startsWith(plain.split('\n')[0]!.replace(', on branch baton/s1', ''))).toBe(true);
    expect(given.endsWith('Do not modify files outside src/watcher/**.')).toBe(true);
  });
});
