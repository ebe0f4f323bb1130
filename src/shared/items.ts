/** The item-file format of `baton fanout`: one item per line. */
import { InvalidInputError } from './errors.js';

/**
 * The items of an item file: one per line, surrounding blanks trimmed; blank lines and lines
 * starting with `#` are skipped. No item at all is an error: a fan-out over nothing is a mistake.
 */
export function parseItems(text: string, source = 'the item file'): string[] {
  const items = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (items.length === 0)
    throw new InvalidInputError(
      `${source} has no items: put one item per line (blank lines and # comments are skipped).`,
      { reason: 'no_items' },
    );
  return items;
}
