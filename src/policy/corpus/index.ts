/**
 * The gate's corpus: commands that must be blocked, asked about or allowed, one a line in
 * block*.txt, ask*.txt and allow*.txt. A line `Edit <path>` is a file-edit tool call; `\n` in a
 * line is a newline (heredocs). Every case runs in one fixed place (CORPUS_CONTEXT): a session's
 * worktree beside the repository's main checkout under /tmp, another session's worktree, Baton's
 * state folder, other checkouts in the temporary folders, and the script files under `files/`
 * (each at its absolute path below that folder) that the cases run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within, type Disk, type ScriptFile } from '../paths.js';
import type { GateAction, GateContext, ToolCall } from '../types.js';

export interface CorpusCase {
  expect: GateAction;
  call: ToolCall;
  /** The line as written, and where. */
  text: string;
  where: string;
}

/** Checkouts on the corpus's disk besides the session's worktree. */
const CHECKOUTS = ['/tmp/proj', '/home/dev/wt/other', '/tmp/someone-else', '/var/tmp/clone', '/tmp/nest/deep/repo'];
/** A folder too large to search for a checkout. */
const HUGE = '/tmp/huge';
/** Symbolic links on the corpus's disk, made by the agent in an earlier call (decision 399): link → its text. */
const LINKS = new Map([
  ['/home/dev/wt/repo/main', '/tmp/proj'],
  ['/home/dev/wt/repo/node_modules', '/tmp/proj/node_modules'],
  ['/home/dev/wt/repo/sib', '../other'],
  ['/home/dev/wt/repo/state', '/home/dev/.baton'],
  ['/home/dev/wt/repo/gitdir', '/tmp/proj/.git'],
  ['/home/dev/wt/repo/hop', 'main'],
  ['/home/dev/wt/repo/lib', 'packages/lib'],
  ['/home/dev/wt/repo/loop', 'loop'],
  ['/tmp/here', '/tmp/proj'],
]);

/** The corpus's disk: its checkouts, and script files from `files/` (listed in `files/TRUSTED` when unchanged since the base). */
export function corpusDisk(dir = corpusDir()): Disk {
  const files = join(dir, 'files');
  const trusted = new Set(
    readFileSync(join(files, 'TRUSTED'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('/')),
  );
  return {
    checkoutAt(path) {
      if (path === HUGE || within(path, HUGE)) return 'too-large';
      const at = CHECKOUTS.find((c) => c === path || within(path, c) || within(c, path));
      return at === undefined ? undefined : { at };
    },
    link: (path) => LINKS.get(path),
    script(path): ScriptFile {
      const file = join(files, path);
      if (!existsSync(file)) return { unreadable: 'missing' };
      if (!statSync(file).isFile()) return { unreadable: 'not a file' };
      const content = readFileSync(file);
      if (trusted.has(path)) return { trusted: true, text: content.toString('utf8') };
      if (content.includes(0)) return { binary: true };
      // The corpus reads less than the real disk (1 MiB), so its too-large script stays small.
      if (content.length > 4096) return { unreadable: 'too large' };
      return { text: content.toString('utf8') };
    },
  };
}

export const CORPUS_CONTEXT: GateContext = {
  cwd: '/home/dev/wt/repo',
  worktree: '/home/dev/wt/repo',
  home: '/home/dev',
  writable: [],
  baseBranch: 'main',
  branch: 'baton/fix',
  userPlaces: [
    { path: '/tmp/proj', what: "the repository's main checkout" },
    { path: '/tmp/proj/.git', what: "the repository's git folder, shared by every worktree" },
    { path: '/home/dev/wt/other', what: 'another worktree of the repository' },
    { path: '/home/dev/.baton', what: "Baton's state folder" },
  ],
  disk: corpusDisk(),
};

/** The corpus files sit beside the sources; the build leaves them there, so read from src/. */
function corpusDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes('/dist/') ? here.replace(/\/dist\//, '/src/') : here;
}

export function loadCorpus(dir = corpusDir()): CorpusCase[] {
  const out: CorpusCase[] = [];
  const names = readdirSync(dir).sort();
  for (const expect of ['block', 'ask', 'allow'] as const) {
    for (const name of names.filter((n) => new RegExp(`^${expect}(-[a-z-]+)?\\.txt$`).test(n))) {
      const lines = readFileSync(join(dir, name), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (line.trim() === '' || line.startsWith('#')) return;
        const text = line.replace(/\\n/g, '\n');
        const edit = /^Edit (.+)$/.exec(text);
        const call: ToolCall =
          edit === null
            ? { tool: 'Bash', kind: 'run', command: text }
            : { tool: 'Edit', kind: 'edit', paths: [edit[1] ?? ''] };
        out.push({ expect, call, text: line, where: `${name}:${i + 1}` });
      });
    }
  }
  return out;
}
