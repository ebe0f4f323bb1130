/**
 * What actually runs: wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, `find -exec`, …) are
 * peeled off, and scripts handed to a shell (`bash -c`, `sh -c`, `eval`, `… | sh`, a heredoc
 * into `bash`) are parsed and flattened in turn. What is left are the programs that would run,
 * each with its arguments, so a rule never matches on text.
 */
import { basename } from 'node:path';
import { parseCommands, type Redirect, type SimpleCommand, type Word } from './shell.js';

/** A program that would run, after its wrappers. */
export interface Command {
  /** The program's name (`rm`, `git`), without its folder. */
  name: string;
  args: Word[];
  redirects: Redirect[];
  stdin?: string | undefined;
  stdinUnknown: boolean;
  cwd: string | undefined;
  /** `xargs` or `find -exec` adds arguments only known at run time. */
  moreArgs: boolean;
  /** The wrappers it was found in, outermost first (`sudo`, `bash -c`). */
  via: string[];
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox-sh']);
/** Wrappers that run the rest of their arguments as a command, and their options that take a value. */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set([
    '-u',
    '-g',
    '-C',
    '-D',
    '-h',
    '-p',
    '-r',
    '-t',
    '-U',
    '-T',
    '--user',
    '--group',
    '--chdir',
    '--host',
    '--prompt',
  ]),
  doas: new Set(['-u', '-C']),
  nice: new Set(['-n', '--adjustment']),
  nohup: new Set(),
  time: new Set(['-f', '-o']),
  timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
  stdbuf: new Set(['-i', '-o', '-e']),
  ionice: new Set(['-c', '-n', '-p']),
  chrt: new Set(),
  command: new Set(),
  exec: new Set(['-a']),
  builtin: new Set(),
  unbuffer: new Set(),
  setsid: new Set(),
  flock: new Set(['-w', '-E', '--timeout', '--conflict-exit-code']),
  xargs: new Set([
    '-I',
    '-L',
    '-n',
    '-P',
    '-s',
    '-d',
    '-E',
    '-a',
    '--max-args',
    '--max-procs',
    '--delimiter',
    '--arg-file',
    '--replace',
    '-i',
  ]),
  strace: new Set(['-o', '-e', '-p']),
};
/** Wrappers whose first non-option argument is theirs (timeout's duration, flock's file), not the command. */
const TAKES_ONE = new Set(['timeout', 'flock', 'chrt']);
const MAX_DEPTH = 8;

/** Every program a script would run, wrappers peeled and inner scripts parsed. Throws ShellSyntaxError. */
export function commandsOf(
  script: string,
  cwd: string,
  home: string,
  depth = 0,
  via: string[] = [],
): Command[] {
  if (depth > MAX_DEPTH) throw new Error('the command nests shells too deeply to read');
  return parseCommands(script, cwd, home).flatMap((simple) => unwrap(simple, home, depth, via));
}

function unwrap(simple: SimpleCommand, home: string, depth: number, via: string[]): Command[] {
  let args = simple.words;
  let moreArgs = false;
  let cwd = simple.cwd;
  const chain = [...via];
  for (;;) {
    const head = args[0];
    if (head === undefined) return [];
    const name = basename(head.text);
    if (head.dynamic) return [command(simple, head.text, args.slice(1), chain, moreArgs, cwd)];
    if (name === 'env') {
      const inner = envArgs(args.slice(1), cwd);
      if (inner.split !== undefined)
        return commandsOf(inner.split, cwd ?? '/', home, depth + 1, [...chain, 'env -S']);
      args = inner.rest;
      cwd = inner.cwd;
      chain.push('env');
      continue;
    }
    const options = WRAPPERS[name];
    if (options !== undefined) {
      if (name === 'command' && args.slice(1).some((a) => a.text === '-v' || a.text === '-V'))
        return [command(simple, name, args.slice(1), chain, moreArgs, cwd)];
      let rest = skipOptions(args.slice(1), options);
      if (TAKES_ONE.has(name)) rest = rest.slice(1);
      if (name === 'xargs') moreArgs = true;
      if (name === 'sudo' && rest.length === 0)
        return [command(simple, name, args.slice(1), chain, moreArgs, cwd)];
      chain.push(name);
      args = rest.length === 0 && name === 'xargs' ? [{ text: 'echo', dynamic: false, glob: false }] : rest;
      continue;
    }
    if (name === 'watch') {
      const rest = skipOptions(args.slice(1), new Set(['-n', '-d', '--interval']));
      return commandsOf(rest.map((w) => w.text).join(' '), cwd ?? '/', home, depth + 1, [...chain, 'watch']);
    }
    const inContainer = containerCommand(name, args.slice(1));
    if (inContainer !== undefined && inContainer.length > 0) {
      chain.push(`${name} exec`);
      args = inContainer;
      continue;
    }
    // `python -m twine upload`: the module is the program.
    if (/^python[0-9.]*$/.test(name) && args[1]?.text === '-m' && args[2] !== undefined) {
      chain.push(`${name} -m`);
      args = args.slice(2);
      continue;
    }
    if (SHELLS.has(name)) return shell(simple, name, args.slice(1), home, depth, chain, cwd, moreArgs);
    if (name === 'eval') {
      const script = args.slice(1);
      if (script.some((w) => w.dynamic)) return [command(simple, name, script, chain, moreArgs, cwd)];
      return commandsOf(script.map((w) => w.text).join(' '), cwd ?? '/', home, depth + 1, [...chain, 'eval']);
    }
    const found = command(simple, name, args.slice(1), chain, moreArgs, cwd);
    if (name === 'find') return [found, ...findExec(found, home, depth)];
    return [found];
  }
}

function command(
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
  };
}

/** `bash -c SCRIPT`, `bash` reading a heredoc or a pipe, `bash -lc`: the script, parsed. */
function shell(
  simple: SimpleCommand,
  name: string,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
  moreArgs: boolean,
): Command[] {
  const inner = [...via, `${name} -c`];
  const flagIndex = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text) && !a.text.startsWith('--'));
  if (flagIndex >= 0) {
    const script = args[flagIndex + 1];
    if (script === undefined || script.dynamic)
      return [command(simple, name, args, via, moreArgs || script === undefined, cwd)];
    return commandsOf(script.text, cwd ?? '/', home, depth + 1, inner);
  }
  const file = args.find((a) => !a.text.startsWith('-'));
  if (file !== undefined && file.text !== '-') return [command(simple, name, args, via, moreArgs, cwd)];
  if (simple.stdin !== undefined)
    return commandsOf(simple.stdin, cwd ?? '/', home, depth + 1, [...via, `${name} <<`]);
  return [command(simple, name, args, via, moreArgs, cwd)];
}

/** `find … -exec rm -rf {} \;`: the command run on each match, with `{}` unknown. */
function findExec(find: Command, home: string, depth: number): Command[] {
  const out: Command[] = [];
  const args = find.args;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]?.text;
    if (flag !== '-exec' && flag !== '-execdir' && flag !== '-ok' && flag !== '-okdir') continue;
    const end = args.findIndex((a, j) => j > i && (a.text === ';' || a.text === '+'));
    // `{}` is some entry below one of find's starting points: one command per starting point.
    for (const root of findRoots(args)) {
      const inner = args
        .slice(i + 1, end < 0 ? undefined : end)
        .map((w) =>
          w.text === '{}'
            ? { text: `${root.text.replace(/\/+$/, '')}/*`, dynamic: root.dynamic, glob: true }
            : w,
        );
      const simple: SimpleCommand = { words: inner, redirects: [], stdinUnknown: false, cwd: find.cwd };
      out.push(...unwrap(simple, home, depth + 1, [...find.via, `find ${flag}`]));
    }
    if (end < 0) break;
    i = end;
  }
  return out;
}

/** find's starting points: the operands before the first test or action (`.` when none). */
export function findRoots(args: Word[]): Word[] {
  const first = args.findIndex(
    (a) => !a.dynamic && (a.text.startsWith('-') || a.text === '!' || a.text === '('),
  );
  const roots = first < 0 ? args : args.slice(0, first);
  return roots.length === 0 ? [{ text: '.', dynamic: false, glob: false }] : roots;
}

/** `docker exec [options] container command…`, `kubectl exec pod -- command…`: the command run inside. */
function containerCommand(name: string, args: Word[]): Word[] | undefined {
  if ((name === 'docker' || name === 'podman') && args[0]?.text === 'exec') {
    const rest = skipOptions(
      args.slice(1),
      new Set(['-e', '--env', '-u', '--user', '-w', '--workdir', '--env-file']),
    );
    return rest.slice(1);
  }
  if ((name === 'kubectl' || name === 'oc') && args[0]?.text === 'exec') {
    const dashes = args.findIndex((a) => a.text === '--');
    return dashes < 0 ? undefined : args.slice(dashes + 1);
  }
  return undefined;
}

function envArgs(
  args: Word[],
  cwd: string | undefined,
): { rest: Word[]; cwd: string | undefined; split?: string } {
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '-S' || text === '--split-string')
      return {
        rest: [],
        cwd,
        split: args
          .slice(i + 1)
          .map((w) => w.text)
          .join(' '),
      };
    if (text === '-u' || text === '--unset') i++;
    else if (text === '-C' || text === '--chdir') {
      const dir = args[i + 1];
      cwd =
        dir === undefined || dir.dynamic || cwd === undefined
          ? undefined
          : dir.text.startsWith('/')
            ? dir.text
            : `${cwd}/${dir.text}`;
      i++;
    } else if (text.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) continue;
    else break;
  }
  return { rest: args.slice(i), cwd };
}

function skipOptions(args: Word[], withValue: Set<string>): Word[] {
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') return args.slice(i + 1);
    if (!text.startsWith('-') || text === '-') break;
    if (withValue.has(text)) i++;
  }
  return args.slice(i);
}
