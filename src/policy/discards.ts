/**
 * Commands that throw away a worktree's uncommitted work: `git reset --hard`, `git checkout -- .`,
 * `git restore .`, `git stash`, `git clean -f`, a forced `checkout`/`switch`, `git rm -f`. Agents
 * use them legitimately, so they are not refused: the session host takes a checkpoint of the
 * work first (decision 160, "A command that discards uncommitted work runs after a checkpoint").
 * The command is read as the gate reads it (wrappers peeled, `bash -c` and `cd … &&` followed),
 * and only a git that works in the session's own worktree counts: another repository's work is
 * not this session's to keep (the gate's rules judge that).
 *
 * A checkpoint of unchanged work costs a few git calls and no new ref, so an ambiguous command
 * (`git checkout x.ts` may name a file) leans towards one; a plain branch switch does not.
 */
import { tmpdir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { Disk } from './paths.js';
import { isGitSubcommand } from './rules-git-config.js';
import { scriptCommands, type Written } from './scripts.js';
import { commandsOf, type Command } from './unwrap.js';
import type { Word } from './shell.js';

export interface Discard {
  /** The git command as read (`git reset --hard`). */
  command: string;
  /** What it throws away, for the session's log. */
  why: string;
}

/** Git's options before the subcommand that take a value. */
const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);

/**
 * The first command in `line` that would discard uncommitted work in `worktree`, or undefined.
 * A line the shell reader cannot read counts when it mentions a discarding git subcommand at all.
 */
export function discardsWork(line: string, worktree: string, home: string, disk?: Disk): Discard | undefined {
  let commands: Command[];
  try {
    commands = commandsOf(line, worktree, home);
    // With the disk, the scripts the line runs are read as the gate reads them (`./reset.sh`,
    // `make reset`, `npm run reset`): their discards take a checkpoint too (decision 177).
    if (disk !== undefined) commands = withScripts(commands, worktree, home, disk);
  } catch {
    return /\bgit\b[^\n]*\b(reset|checkout|restore|stash|clean|switch|rm)\b/.test(line)
      ? { command: line, why: 'a command Baton cannot read fully that may discard uncommitted work' }
      : undefined;
  }
  for (const command of commands) {
    if (command.name !== 'git') continue;
    const found = gitDiscard(command, worktree);
    if (found !== undefined) return found;
  }
  return undefined;
}

function withScripts(commands: Command[], worktree: string, home: string, disk: Disk): Command[] {
  const context = { cwd: worktree, worktree, home, writable: [tmpdir()], disk };
  const written: Written = { files: new Map(), earlier: 0 };
  const out: Command[] = [];
  const visit = (command: Command, level: number): void => {
    out.push(command);
    // The user's own scripts too: `make fresh` discards the session's work whoever wrote it.
    for (const inner of scriptCommands(command, context, written, level, { trustedWhole: true }).commands)
      visit(inner, level + 1);
    written.earlier++;
  };
  for (const command of commands) visit(command, 1);
  return out;
}

function gitDiscard(command: Command, worktree: string): Discard | undefined {
  const args = command.args;
  let cwd = command.cwd;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.text.startsWith('-')) break;
    if (arg.text === '-C') {
      const dir = args[i + 1];
      cwd = dir === undefined || dir.dynamic ? undefined : resolvedDir(cwd, dir.text);
    }
    const tree = arg.text === '--work-tree' ? args[i + 1] : undefined;
    if (tree !== undefined) cwd = tree.dynamic ? undefined : resolvedDir(cwd, tree.text);
    if (arg.text.startsWith('--work-tree=')) cwd = resolvedDir(cwd, arg.text.slice('--work-tree='.length));
    if (GIT_VALUE_OPTIONS.has(arg.text)) i++;
  }
  if (cwd !== undefined && !inside(cwd, worktree)) return undefined;
  const sub = args[i];
  if (sub === undefined) return undefined;
  const rest = args.slice(i + 1);
  // A subcommand git does not ship is an alias (`git config alias.x 'reset --hard'`, or `-c
  // alias.x=…` on the line), and one built at run time may be anything: both may discard, and a
  // checkpoint of unchanged work costs no new ref (decision 204).
  if (sub.dynamic || !isGitSubcommand(sub.text))
    return {
      command: ['git', sub.text, ...rest.map((w) => w.text)].join(' '),
      why: sub.dynamic
        ? 'runs a git subcommand known only when it runs, which may discard uncommitted work'
        : `runs \`git ${sub.text}\`, not a git command (an alias?), which may discard uncommitted work`,
    };
  const why = WHAT[sub.text]?.(rest);
  if (why === undefined) return undefined;
  return { command: ['git', sub.text, ...rest.map((w) => w.text)].join(' '), why };
}

const flag = (rest: Word[], ...names: string[]): boolean =>
  rest.some(
    (w) =>
      names.includes(w.text) ||
      (/^-[a-zA-Z]+$/.test(w.text) && names.some((n) => n.length === 2 && w.text.includes(n[1]!))),
  );

/** Each subcommand's test: what it discards, or undefined when it keeps the work. */
const WHAT: Record<string, (rest: Word[]) => string | undefined> = {
  reset: (rest) =>
    rest.some((w) => w.text === '--hard' || w.text === '--merge')
      ? 'resets the files to a commit, dropping uncommitted changes'
      : undefined,
  checkout: (rest) => {
    if (flag(rest, '-f') || rest.some((w) => w.text === '--force'))
      return 'a forced checkout overwrites uncommitted changes';
    if (rest.some((w) => w.text === '--ours' || w.text === '--theirs'))
      return 'checks files out over their uncommitted changes';
    const dashes = rest.findIndex((w) => w.text === '--');
    if (dashes !== -1 && dashes < rest.length - 1) return 'checks files out over their uncommitted changes';
    if (rest.some((w) => ['-b', '-B', '--orphan', '--detach'].includes(w.text))) return undefined;
    const operands = rest.filter((w) => !w.text.startsWith('-'));
    if (operands.length >= 2) return 'checks files out of a commit over their uncommitted changes';
    const only = operands[0];
    if (only !== undefined && (only.dynamic || only.glob || looksLikePath(only.text)))
      return 'checks files out over their uncommitted changes';
    return undefined;
  },
  restore: (rest) => {
    const staged = rest.some((w) => w.text === '--staged' || w.text === '-S');
    const worktree = rest.some((w) => w.text === '--worktree' || w.text === '-W');
    return staged && !worktree ? undefined : "restores files over the worktree's uncommitted changes";
  },
  stash: (rest) => {
    const action = rest.find((w) => !w.text.startsWith('-'))?.text;
    if (action !== undefined && action !== 'push' && action !== 'save') return undefined;
    return 'moves uncommitted changes into the repository-wide stash, where another command can drop them';
  },
  clean: (rest) => {
    if (flag(rest, '-n', '-i') || rest.some((w) => w.text === '--dry-run' || w.text === '--interactive'))
      return undefined;
    if (!(flag(rest, '-f') || rest.some((w) => w.text === '--force'))) return undefined;
    return 'deletes untracked files (ignored ones too with -x, which no checkpoint keeps)';
  },
  switch: (rest) =>
    rest.some((w) => w.text === '--discard-changes' || w.text === '--force' || w.text === '-f')
      ? 'switches branch dropping uncommitted changes'
      : undefined,
  rm: (rest) =>
    flag(rest, '-f') || rest.some((w) => w.text === '--force')
      ? 'removes files with their uncommitted changes'
      : undefined,
};

/** `.`, `src/x.ts`, `README.md`: a path rather than a branch (`main`, `fix-1`). */
function looksLikePath(text: string): boolean {
  return (
    text === '.' ||
    text === '..' ||
    text.startsWith('./') ||
    text.startsWith('/') ||
    /\.[A-Za-z0-9]{1,8}$/.test(text)
  );
}

function resolvedDir(cwd: string | undefined, dir: string): string | undefined {
  if (isAbsolute(dir)) return resolve(dir);
  return cwd === undefined ? undefined : resolve(cwd, dir);
}

function inside(dir: string, worktree: string): boolean {
  const root = resolve(worktree);
  const path = resolve(dir);
  return path === root || path.startsWith(root + '/');
}
