/**
 * A program that would run, as the gate reads it once its wrappers are peeled (unwrap.ts), and the
 * small pieces every reader of wrappers shares: making one, a known word, skipping options.
 */
import type { Redirect, SimpleCommand, Word } from './shell.js';

/** A program that would run, after its wrappers. */
export interface Command {
  /** The program's name (`rm`, `git`), without its folder. */
  name: string;
  /** The program as written (`./nuke.sh`, `/usr/bin/rm`): a path runs that file. */
  program?: string | undefined;
  args: Word[];
  redirects: Redirect[];
  stdin?: string | undefined;
  stdinUnknown: boolean;
  cwd: string | undefined;
  /** `xargs` or `find -exec` adds arguments only known at run time. */
  moreArgs: boolean;
  /** The wrappers it was found in, outermost first (`sudo`, `bash -c`). */
  via: string[];
  /** Variables the script sets for it (`GIT_DIR=… git`, `env GIT_DIR=… git`, an earlier `export`). */
  env?: string[] | undefined;
  /** The values the script gives those variables, where it gives one (decision 330). */
  values?: Record<string, Word> | undefined;
}

/** Files that are the script's own stdin: `. /dev/stdin <<< "…"`, `bash /dev/stdin`. */
export const STDIN_FILES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-']);

/**
 * How an inner command is read in turn (unwrap.ts): a script's text parsed and peeled, or words
 * already split. The readers of `xargs`, `parallel`, `find -exec` and awk are handed it, so they
 * recurse without importing the module that calls them.
 */
export interface Reader {
  script(script: string, cwd: string, home: string, depth: number, via: string[]): Command[];
  words(simple: SimpleCommand, home: string, depth: number, via: string[]): Command[];
}

export function command(
  simple: SimpleCommand,
  name: string,
  args: Word[],
  via: string[],
  moreArgs: boolean,
  cwd: string | undefined,
): Command {
  return {
    name,
    args,
    redirects: simple.redirects,
    stdin: simple.stdin,
    stdinUnknown: simple.stdinUnknown,
    cwd,
    moreArgs,
    via,
    env: simple.env ?? [],
    ...(simple.values === undefined ? {} : { values: simple.values }),
  };
}

export function known(text: string): Word {
  return { text, dynamic: false, glob: false };
}

export function skipOptions(args: Word[], withValue: Set<string>): Word[] {
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') return args.slice(i + 1);
    if (!text.startsWith('-') || text === '-') break;
    if (withValue.has(text)) i++;
  }
  return args.slice(i);
}
