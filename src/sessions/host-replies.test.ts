import { describe, expect, it } from 'vitest';
import { messagePrompt, ReplyQueue } from './host-replies.js';
import type { SessionStatus } from './state.js';

/** A queue over a status the test sets, recording deliveries; each settles when the test says. */
function harness(initial: SessionStatus) {
  let status = initial;
  const delivered: { text: string; answering: boolean }[] = [];
  const failures: string[] = [];
  const settle: (() => void)[] = [];
  const queue = new ReplyQueue({
    status: () => status,
    deliver: (text, answering) => {
      delivered.push({ text, answering });
      return new Promise<void>((resolve, reject) =>
        settle.push(() => (text === 'bad' ? reject(new Error('no')) : resolve())),
      );
    },
    failed: (text) => failures.push(text),
  });
  const set = (next: SessionStatus): void => {
    status = next;
    queue.stateChanged();
  };
  const settleNext = async (): Promise<void> => {
    settle.shift()?.();
    // Let the delivery's promise callbacks run.
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return { queue, delivered, failures, set, settleNext };
}

const question: SessionStatus = { state: 'needs_input', reason: { kind: 'question', text: 'which?' } };

describe('replies held by a host', () => {
  it('go to an idle agent at once, and answer a pending question as such', () => {
    const idle = harness({ state: 'ready_for_review' });
    idle.queue.accept('next');
    expect(idle.delivered).toEqual([{ text: 'next', answering: false }]);
    const asked = harness(question);
    asked.queue.accept('the second one');
    expect(asked.delivered).toEqual([{ text: 'the second one', answering: true }]);
  });

  it('wait while the supervisor holds the session at rest; a hold is refused while a turn runs or a reply is handed over', async () => {
    const h = harness({ state: 'working' });
    expect(h.queue.hold()).toBe(false);
    h.set({ state: 'ready_for_review' });
    expect(h.queue.hold()).toBe(true);
    h.queue.accept('during the rebase');
    expect(h.delivered).toEqual([]);
    h.queue.resume();
    expect(h.delivered.map((d) => d.text)).toEqual(['during the rebase']);
    // Being handed over: its turn is about to run, the session is not the supervisor's to hold.
    expect(h.queue.hold()).toBe(false);
    await h.settleNext();
    expect(h.queue.hold()).toBe(true);
    h.queue.resume();
    const approval = { kind: 'approval', requestId: 'r', tool: 'Bash', input: 'true' } as const;
    expect(harness({ state: 'needs_input', reason: approval }).queue.hold()).toBe(false);
    expect(harness(question).queue.hold()).toBe(true);
  });

  it('wait while a turn runs, then go one turn at a time, in order', async () => {
    const h = harness({ state: 'working' });
    for (const text of ['a', 'b', 'c']) h.queue.accept(text);
    expect(h.delivered).toEqual([]);
    h.set({ state: 'ready_for_review' });
    expect(h.delivered.map((d) => d.text)).toEqual(['a']);
    // The agent starts a's turn before the delivery settles; b waits for that turn to end.
    h.set({ state: 'working' });
    await h.settleNext();
    expect(h.delivered.map((d) => d.text)).toEqual(['a']);
    h.set({ state: 'ready_for_review' });
    expect(h.delivered.map((d) => d.text)).toEqual(['a', 'b']);
    h.set({ state: 'working' });
    await h.settleNext();
    h.set({ state: 'ready_for_review' });
    expect(h.delivered.map((d) => d.text)).toEqual(['a', 'b', 'c']);
  });

  it('wait while an approval is pending', () => {
    const h = harness({
      state: 'needs_input',
      reason: { kind: 'approval', requestId: 'r', tool: 'Bash', input: 'ls' },
    });
    h.queue.accept('later');
    expect(h.delivered).toEqual([]);
    expect(h.queue.size).toBe(1);
  });

  it('apply a retry with the same client id once', () => {
    const h = harness({ state: 'working' });
    expect(h.queue.accept('x', 'c1')).toBe(true);
    expect(h.queue.accept('x', 'c1')).toBe(false);
    h.queue.remember('c0');
    expect(h.queue.accept('y', 'c0')).toBe(false);
    expect(h.queue.size).toBe(1);
  });

  it('go on with the next reply after a delivery fails', async () => {
    const h = harness({ state: 'ready_for_review' });
    h.queue.accept('bad');
    h.queue.accept('good');
    await h.settleNext();
    expect(h.failures).toEqual(['bad']);
    expect(h.delivered.map((d) => d.text)).toEqual(['bad', 'good']);
  });

  it('drop what was not handed over when cleared', () => {
    const h = harness({ state: 'working' });
    h.queue.accept('a');
    expect(h.queue.clear()).toEqual(['a']);
    h.set({ state: 'ready_for_review' });
    expect(h.delivered).toEqual([]);
  });
});

describe('messages from other sessions', () => {
  const QUESTION: SessionStatus = { state: 'needs_input', reason: { kind: 'question', text: 'keep it?' } };

  it('never answer a question meant for the user: they wait behind the answer for the next turn', async () => {
    const h = harness(QUESTION);
    h.queue.accept('rebase please', undefined, true);
    expect(h.delivered).toEqual([]);
    h.queue.accept('yes, keep it');
    expect(h.delivered).toEqual([{ text: 'yes, keep it', answering: true }]);
    await h.settleNext();
    h.set({ state: 'working' });
    expect(h.delivered).toHaveLength(1);
    h.set({ state: 'ready_for_review' });
    expect(h.delivered).toEqual([
      { text: 'yes, keep it', answering: true },
      { text: 'rebase please', answering: false },
    ]);
  });

  it('start a turn at once when the session is idle, and wait while it works', () => {
    const h = harness({ state: 'working' });
    h.queue.accept('news', undefined, true);
    expect(h.delivered).toEqual([]);
    h.set({ state: 'ready_for_review' });
    expect(h.delivered).toEqual([{ text: 'news', answering: false }]);
  });
});

describe('messagePrompt', () => {
  it('tells the agent who sent the message and how it came', () => {
    expect(messagePrompt({ name: 'alpha' }, 'rebase on main')).toBe(
      "Message from alpha (another agent's session in this workspace), sent through Baton:\n\nrebase on main",
    );
  });
});
