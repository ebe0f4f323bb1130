/**
 * A one-line input as drawn: the text with the cursor shown in reverse video. It listens to no
 * keys itself; the board's one key handler edits its line (line-edit.ts), so keys typed the moment
 * a field appears are not lost.
 */
import { Text } from 'ink';
import type { Line } from './line-edit.js';

export function Field({ line }: { line: Line }) {
  const { value, cursor } = line;
  const under = value[cursor] ?? ' ';
  return (
    <Text wrap="truncate">
      {value.slice(0, cursor)}
      <Text inverse>{under}</Text>
      {value.slice(cursor + 1)}
    </Text>
  );
}
