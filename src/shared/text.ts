/**
 * Terminal output made plain for storing and sending (decision 155): a test run's colours and
 * cursor moves are escape sequences that read as `[31m` noise in an agent's report, an event log
 * and the page. Node's own `stripVTControlCharacters` knows the sequences (CSI, OSC, single-char).
 */
import { stripVTControlCharacters } from 'node:util';

export function plainText(text: string): string {
  // A bare carriage return redraws a progress line: keep what was drawn last on it.
  return stripVTControlCharacters(text)
    .replace(/\r\n/g, '\n')
    .replace(/[^\n]*\r/g, '');
}
