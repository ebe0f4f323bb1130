import { describe, expect, it } from 'vitest';
import type { EventBody } from '../events/index.js';
import { AgentQuestion } from './host-ask.js';

function harness() {
  const recorded: EventBody[] = [];
  return { recorded, question: new AgentQuestion((body) => recorded.push(body)) };
}

describe("the agent's question to its user (ask_user)", () => {
  it('is recorded as question.asked, and the next answer is taken for it once', () => {
    const { recorded, question } = harness();
    question.ask('Which port?', 'working');
    expect(recorded).toEqual([{ type: 'question.asked', text: 'Which port?' }]);
    expect(question.take()).toBe(true);
    expect(question.take()).toBe(false);
  });

  it('is asked one at a time, and only mid-turn', () => {
    const { recorded, question } = harness();
    expect(() => question.ask('Now?', 'ready_for_review')).toThrow(
      'The session can ask only during a turn of its agent (it is ready for review).',
    );
    question.ask('First?', 'working');
    expect(() => question.ask('Second?', 'needs_input')).toThrow(
      'The agent already asked the user a question that is not answered yet.',
    );
    expect(recorded).toHaveLength(1);
  });

  it('is dropped when the turn ends unanswered: a later reply is a new turn, not its answer', () => {
    const { question } = harness();
    question.ask('Which port?', 'working');
    question.drop();
    expect(question.take()).toBe(false);
  });
});
