/** A scripted agent's script, read from the file given with `--script` (dispatch, task start). */
import { readFileSync } from 'node:fs';
import { InvalidInputError } from '../shared/errors.js';

export function readScriptFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidInputError(
      `Cannot read script ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`Script ${file} is not valid JSON: ${(error as Error).message}`);
  }
}
