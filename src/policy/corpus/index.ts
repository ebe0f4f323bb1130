/**
 * The gate's corpus: commands that must be blocked, asked about or allowed, one a line in
 * block.txt, ask.txt and allow.txt. A line `Edit <path>` is a file-edit tool call; `\n` in a
 * line is a newline (heredocs). Every case runs in one fixed place (CORPUS_CONTEXT).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GateAction, GateContext, ToolCall } from '../types.js';

export interface CorpusCase {
  expect: GateAction;
  call: ToolCall;
  /** The line as written, and where. */
  text: string;
  where: string;
}

export const CORPUS_CONTEXT: GateContext = {
  cwd: '/home/dev/wt/repo',
  worktree: '/home/dev/wt/repo',
  home: '/home/dev',
  writable: [],
  baseBranch: 'main',
  branch: 'baton/fix',
};

/** The corpus files sit beside the sources; the build leaves them there, so read from src/. */
function corpusDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes('/dist/') ? here.replace(/\/dist\//, '/src/') : here;
}

export function loadCorpus(dir = corpusDir()): CorpusCase[] {
  const out: CorpusCase[] = [];
  for (const expect of ['block', 'ask', 'allow'] as const) {
    const lines = readFileSync(join(dir, `${expect}.txt`), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '' || line.startsWith('#')) return;
      const text = line.replace(/\\n/g, '\n');
      const edit = /^Edit (.+)$/.exec(text);
      const call: ToolCall = edit === null ? { tool: 'Bash', kind: 'run', command: text } : { tool: 'Edit', kind: 'edit', paths: [edit[1] ?? ''] };
      out.push({ expect, call, text: line, where: `${expect}.txt:${i + 1}` });
    });
  }
  return out;
}
