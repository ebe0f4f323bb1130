/** The streaming prompt handed to `query()`: user messages are pushed in as the session goes on. */
import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

export class InputQueue implements AsyncIterable<SDKUserMessage> {
  private readonly queued: SDKUserMessage[] = [];
  private waiting: ((result: IteratorResult<SDKUserMessage>) => void) | undefined;
  private ended = false;

  push(text: string): void {
    if (this.ended) return;
    const message: SDKUserMessage = {
      type: 'user',
      message: { role: 'user', content: text },
      parent_tool_use_id: null,
    };
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting !== undefined) waiting({ value: message, done: false });
    else this.queued.push(message);
  }

  /** Ending the input lets the CLI finish and exit. */
  end(): void {
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    return {
      next: () => {
        const message = this.queued.shift();
        if (message !== undefined) return Promise.resolve({ value: message, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
