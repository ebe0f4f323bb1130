import { describe, expect, it } from 'vitest';
import type { SessionView } from '../api/index.js';
import { needsYouSequences, signalsBetween, titleSequence } from './signals.js';

const session = (
  id: string,
  state: SessionView['state'],
  reason: SessionView['reason'] = null,
): SessionView => ({ id, name: id, state, reason }) as SessionView;

describe('the board’s terminal signals', () => {
  it('rings and notifies (BEL, OSC 9, OSC 777) once for a session that comes to need input, and counts it in the title', () => {
    const first = signalsBetween(undefined, new Map([['a', session('a', 'working')]]), true);
    expect(first.write).toBe('\u001b]2;Baton\u0007');
    const asked = session('a', 'needs_input', { kind: 'question', text: 'Which database?' });
    const second = signalsBetween(first.waiting, new Map([['a', asked]]), true);
    expect(second.write).toBe(
      '\u001b]2;Baton — 1 needs you\u0007' +
        '\u0007\u001b]9;a needs input: Which database?\u0007\u001b]777;notify;a needs input;Which database?\u0007',
    );
    // Still waiting: nothing again.
    expect(signalsBetween(second.waiting, new Map([['a', asked]]), true).write).toBe('');
  });

  it('rings for nothing already waiting when the board opens, and not at all with the bell off', () => {
    const waiting = new Map([['a', session('a', 'needs_input')]]);
    expect(signalsBetween(undefined, waiting, true).write).toBe(titleSequence(1));
    expect(signalsBetween(new Set(), waiting, false).write).toBe(titleSequence(1));
  });

  it('keeps an agent’s text from ending the sequence early or adding fields', () => {
    const hostile = session('a', 'needs_input', { kind: 'question', text: 'x\u0007\u001b]2;pwned\u0007;y' });
    expect(needsYouSequences(hostile)).toBe(
      '\u0007\u001b]9;a needs input: x  ]2,pwned ,y\u0007\u001b]777;notify;a needs input;x  ]2,pwned ,y\u0007',
    );
  });
});
