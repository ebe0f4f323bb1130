/**
 * Keys typed faster than the board reads them reach it as one piece: Ink hands a run of plain
 * characters over as one input, with the key flags of the whole. The board takes such a burst as
 * the keys a person pressed, in order, so "yes⏎" is typed then sent, "a⏎" approves, "j⏎" attaches
 * the next session, and a backspace in it erases.
 */
import type { Key } from 'ink';

/** The keys that open a text field: in a burst that starts with one, the rest is what is typed in it. */
export const OPENS_FIELD = new Set(['n', '/', 'r', 'd']);

const NONE: Key = {
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

/** What each control character in a burst is, as Ink would have named it pressed alone. */
const CONTROL: Record<string, Partial<Key>> = {
  '\r': { return: true },
  '\n': { return: true },
  '\t': { tab: true },
  '\u007f': { delete: true },
  '\b': { backspace: true },
};

/**
 * The burst as [input, key] pairs — runs of text, and each return, tab and backspace on its own —
 * or undefined when it is one key, one run of text, or something Ink parsed as a special key
 * (an arrow, escape, ctrl or meta with a letter). Other control characters are dropped.
 */
export function splitBurst(input: string, key: Key): Array<[string, Key]> | undefined {
  const chars = [...input];
  if (chars.length <= 1 || key.ctrl || key.meta || key.escape) return undefined;
  if (!chars.some((c) => c < ' ' || c === '\u007f')) return undefined;
  const pieces: Array<[string, Key]> = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') pieces.push([text, { ...NONE, shift: [...text].length === 1 && /[A-Z]/.test(text) }]);
    text = '';
  };
  for (const c of chars) {
    if (c >= ' ' && c !== '\u007f') {
      text += c;
      continue;
    }
    flush();
    const flags = CONTROL[c];
    if (flags !== undefined) pieces.push([c, { ...NONE, ...flags }]);
  }
  flush();
  return pieces;
}
