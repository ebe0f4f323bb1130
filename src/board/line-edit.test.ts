import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { editLine, emptyLine, lineOf, type Line } from './line-edit.js';

const none: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const key = (k: Partial<Key>): Key => ({ ...none, ...k });

/** Applies inputs in order, as the board's handler does, and returns the last edit's line. */
function type(line: Line, ...steps: Array<string | Partial<Key> | [string, Partial<Key>]>): Line {
  let current = line;
  for (const step of steps) {
    const [input, k] =
      typeof step === 'string'
        ? [step, none]
        : Array.isArray(step)
          ? [step[0], key(step[1])]
          : ['', key(step)];
    const edit = editLine(current, input, k);
    if (edit.kind !== 'other') current = edit.line;
  }
  return current;
}

describe('editLine', () => {
  it('inserts at the cursor, moves it with the arrows, home and end', () => {
    expect(type(emptyLine, 'helo', { leftArrow: true }, 'l')).toEqual({ value: 'hello', cursor: 4 });
    expect(type(lineOf('world'), { home: true }, 'hello ', { end: true }, '!')).toEqual({
      value: 'hello world!',
      cursor: 12,
    });
    expect(type(lineOf('ab'), ['a', { ctrl: true }], 'x', ['e', { ctrl: true }], 'y')).toEqual({
      value: 'xaby',
      cursor: 4,
    });
    expect(type(lineOf('ab'), { rightArrow: true }, { rightArrow: true })).toEqual({
      value: 'ab',
      cursor: 2,
    });
    expect(type(lineOf('ab'), { leftArrow: true }, { leftArrow: true }, { leftArrow: true })).toEqual({
      value: 'ab',
      cursor: 0,
    });
  });

  it('erases left with backspace or DEL, and words and line ends with ctrl+w, ctrl+u, ctrl+k', () => {
    expect(type(lineOf('scriptedx'), { backspace: true })).toEqual(lineOf('scripted'));
    expect(type(lineOf('scriptedx'), { delete: true })).toEqual(lineOf('scripted'));
    expect(type(lineOf('abc'), { home: true }, { backspace: true })).toEqual({ value: 'abc', cursor: 0 });
    expect(type(lineOf('keep the old  '), ['w', { ctrl: true }])).toEqual(lineOf('keep the '));
    expect(
      type(lineOf('one two'), { leftArrow: true }, { leftArrow: true }, { leftArrow: true }, [
        'u',
        { ctrl: true },
      ]),
    ).toEqual({ value: 'two', cursor: 0 });
    expect(type(lineOf('one two'), { home: true }, { rightArrow: true }, ['k', { ctrl: true }])).toEqual({
      value: 'o',
      cursor: 1,
    });
  });

  it('sends on enter, and types a pasted line before the return inside it', () => {
    expect(editLine(lineOf('yes'), '', key({ return: true }))).toEqual({
      kind: 'submit',
      line: lineOf('yes'),
    });
    expect(editLine(emptyLine, 'postgres\r', none)).toEqual({ kind: 'submit', line: lineOf('postgres') });
    expect(editLine(lineOf('a'), 'b\nc', none)).toEqual({ kind: 'submit', line: lineOf('ab') });
  });

  it('leaves tab, the vertical arrows, escape and other control keys to the caller, and types no control characters', () => {
    for (const k of [
      { tab: true },
      { upArrow: true },
      { downArrow: true },
      { escape: true },
      { pageUp: true },
    ])
      expect(editLine(lineOf('x'), '', key(k)).kind).toBe('other');
    expect(editLine(lineOf('x'), 'c', key({ ctrl: true })).kind).toBe('other');
    expect(editLine(lineOf('x'), 'f', key({ meta: true })).kind).toBe('other');
    expect(type(emptyLine, 'a\u0007b\u001bc')).toEqual(lineOf('abc'));
  });
});
