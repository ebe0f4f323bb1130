/**
 * The corpus of the discard classifier (discards.ts): command lines that must take a checkpoint
 * first (checkpoint.txt) and lines that must not (quiet.txt), one a line, `\n` a newline. Every
 * case runs in the gate corpus's place: the worktree /home/dev/wt/repo.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DiscardCase {
  checkpoint: boolean;
  command: string;
  where: string;
}

export const DISCARD_CONTEXT = { worktree: '/home/dev/wt/repo', home: '/home/dev' };

function corpusDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes('/dist/') ? here.replace(/\/dist\//, '/src/') : here;
}

export function loadDiscardCorpus(dir = corpusDir()): DiscardCase[] {
  const out: DiscardCase[] = [];
  for (const [file, checkpoint] of [
    ['checkpoint.txt', true],
    ['quiet.txt', false],
  ] as const) {
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '' || line.startsWith('#')) return;
        out.push({ checkpoint, command: line.replace(/\\n/g, '\n'), where: `${file}:${i + 1}` });
      });
  }
  return out;
}
