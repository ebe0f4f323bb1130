import { describe, expect, it } from 'vitest';
import { nameFromPrompt, validateSessionName } from './names.js';

describe('session names', () => {
  it.each(['verbose', 'fix-432', 'a.b_c', 'X1'])('accepts %j', (name) => {
    expect(validateSessionName(name)).toBe(name);
  });

  it.each(['', 'a b', '..', 'a..b', '-x', 'a;b', 'a/b', 'x.lock', 'é', 'n'.repeat(49)])(
    'rejects %j',
    (name) => {
      expect(() => validateSessionName(name)).toThrow(/Invalid session name/);
    },
  );

  it('derives a valid name from the prompt', () => {
    expect(nameFromPrompt('Refactor the file watcher, please!')).toBe('refactor-the-file-watcher');
    expect(nameFromPrompt('???')).toBe('session');
    expect(() => validateSessionName(nameFromPrompt('x'.repeat(500)))).not.toThrow();
  });
});
