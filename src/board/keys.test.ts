import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { splitBurst } from './keys.js';

const plain = { ctrl: false, meta: false, escape: false } as Key;
const flags = (pieces: Array<[string, Key]> | undefined) =>
  pieces?.map(([text, key]) => [
    text,
    Object.entries(key)
      .filter(([, on]) => on)
      .map(([name]) => name),
  ]);

describe('splitBurst', () => {
  it('leaves one key, or one run of text, to the caller', () => {
    expect(splitBurst('a', plain)).toBeUndefined();
    expect(splitBurst('write the notes', plain)).toBeUndefined();
  });

  it('takes returns, tabs and backspaces in a burst one by one, between the runs of text', () => {
    expect(flags(splitBurst('a\r', plain))).toEqual([
      ['a', []],
      ['\r', ['return']],
    ]);
    expect(flags(splitBurst('prompt\tcodex\r', plain))).toEqual([
      ['prompt', []],
      ['\t', ['tab']],
      ['codex', []],
      ['\r', ['return']],
    ]);
    expect(flags(splitBurst('ab\u007fc\n', plain))).toEqual([
      ['ab', []],
      ['\u007f', ['delete']],
      ['c', []],
      ['\n', ['return']],
    ]);
    expect(flags(splitBurst('line one\rline two\r', plain))).toEqual([
      ['line one', []],
      ['\r', ['return']],
      ['line two', []],
      ['\r', ['return']],
    ]);
  });

  it('marks a lone capital as shifted, drops other control characters, and leaves what Ink parsed as a special key alone', () => {
    expect(flags(splitBurst('R\r', plain))).toEqual([
      ['R', ['shift']],
      ['\r', ['return']],
    ]);
    expect(flags(splitBurst('a\u0007b\r', plain))).toEqual([
      ['a', []],
      ['b', []],
      ['\r', ['return']],
    ]);
    expect(splitBurst('\u001b[A', { ...plain, escape: true })).toBeUndefined();
    expect(splitBurst('c\r', { ...plain, ctrl: true })).toBeUndefined();
  });
});
