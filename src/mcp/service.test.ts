import { describe, expect, it } from 'vitest';
import { snippet } from './service.js';

describe('search snippets', () => {
  it("show the words around the match from the event's text, not its JSON", () => {
    const body = JSON.stringify({
      type: 'tool.finished',
      tool: 'Bash',
      ok: true,
      output: `${'a '.repeat(100)}the needle here${' b'.repeat(100)}`,
    });
    const text = snippet(body, 'NEEDLE');
    expect(text).toMatch(/^….*the needle here.*…$/);
    expect(text.length).toBeLessThan(200);
    expect(snippet(JSON.stringify({ type: 'message.added', text: 'short one' }), 'short')).toBe('short one');
  });
});
