/**
 * Instructions a session carries beyond Baton's own: a handoff pack (src/context) written beside
 * the session's log at dispatch, read by its host at every start, so a respawn keeps them too.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'instructions.md';

export function writeSessionInstructions(sessionDir: string, text: string): void {
  writeFileSync(join(sessionDir, FILE), text, { mode: 0o600 });
}

export function readSessionInstructions(sessionDir: string): string | undefined {
  const path = join(sessionDir, FILE);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
