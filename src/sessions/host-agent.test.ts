import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agents/index.js';
import { checkedAgentEvent } from './host-agent.js';

describe("the host's check of an adapter's events", () => {
  it('records a valid event as it came', () => {
    const event: AgentEvent = { type: 'message.added', role: 'assistant', text: 'hi' };
    expect(checkedAgentEvent(event)).toEqual(event);
  });

  it('turns a malformed event, or one only the host writes, into an error that quotes it', () => {
    for (const raw of [{ type: 'message.added' }, { type: 'state.changed', to: 'completed' }, { type: 'setup.finished', ok: true }]) {
      const checked = checkedAgentEvent(raw as unknown as AgentEvent);
      expect(checked).toMatchObject({ type: 'error.raised', fatal: false, message: expect.stringContaining('only the host may write') });
      expect(checked.type === 'error.raised' && checked.detail).toContain(raw.type);
    }
  });
});
