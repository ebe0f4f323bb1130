/**
 * One line of typed text and its cursor, edited key by key. The board keeps every field's line in
 * its own state and edits it from the one key handler that is always listening: a field drawn on
 * the screen takes the keys typed right after it appears (a field with its own listener misses
 * them until React has run its effects). A burst of keys is split into its keys first (keys.ts).
 */
import type { Key } from 'ink';

export interface Line {
  value: string;
  /** Characters before the cursor (0 … value.length). */
  cursor: number;
}

export const emptyLine: Line = { value: '', cursor: 0 };

export function lineOf(value: string): Line {
  return { value, cursor: value.length };
}

export type Edit =
  /** The line changed (or the cursor moved). */
  | { kind: 'changed'; line: Line }
  /** Enter: the line as typed so far is sent (text before a return in one burst is typed first). */
  | { kind: 'submit'; line: Line }
  /** Not an editing key: the caller handles it (tab, up, down, escape, ctrl+c …). */
  | { kind: 'other' };

/** What `input` with `key` does to `line`. */
export function editLine(line: Line, input: string, key: Key): Edit {
  const { value, cursor } = line;
  if (key.escape || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown)
    return { kind: 'other' };
  if (key.return) return { kind: 'submit', line };
  if (key.leftArrow) return changed(value, Math.max(0, cursor - 1));
  if (key.rightArrow) return changed(value, Math.min(value.length, cursor + 1));
  if (key.home || (key.ctrl && input === 'a')) return changed(value, 0);
  if (key.end || (key.ctrl && input === 'e')) return changed(value, value.length);
  // Terminals send DEL (0x7f) for the backspace key, which Ink names `delete`: both erase to the left.
  if (key.backspace || key.delete)
    return cursor === 0
      ? { kind: 'changed', line }
      : changed(value.slice(0, cursor - 1) + value.slice(cursor), cursor - 1);
  if (key.ctrl && input === 'u') return changed(value.slice(cursor), 0);
  if (key.ctrl && input === 'k') return changed(value.slice(0, cursor), cursor);
  if (key.ctrl && input === 'w') {
    const start = value.slice(0, cursor).replace(/\S+\s*$/, '').length;
    return changed(value.slice(0, start) + value.slice(cursor), start);
  }
  if (key.ctrl || key.meta || input === '') return { kind: 'other' };
  // A paste, or fast typing over a slow link, arrives as one piece: "yes⏎" is typed, then sent.
  const newline = input.search(/[\r\n]/);
  const typed = [...(newline < 0 ? input : input.slice(0, newline))]
    .filter((c) => c >= ' ' && c !== '\u007f')
    .join('');
  const next = { value: value.slice(0, cursor) + typed + value.slice(cursor), cursor: cursor + typed.length };
  return newline < 0 ? { kind: 'changed', line: next } : { kind: 'submit', line: next };
}

function changed(value: string, cursor: number): Edit {
  return { kind: 'changed', line: { value, cursor } };
}
