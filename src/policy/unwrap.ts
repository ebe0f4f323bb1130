/**
 * What actually runs: wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, `find -exec`, …) are
 * peeled off, and scripts handed to a shell (`bash -c`, `sh -c`, `eval`, `… | sh`, a heredoc
 * into `bash`) are parsed and flattened in turn. What is left are the programs that would run,
 * each with its arguments, so a rule never matches on text.
 */
import { basename } from 'node:path';
import { parseCommands, UNKNOWN, type Redirect, type SimpleCommand, type Word } from './shell.js';

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
  strace: new Set(['-o', '-e', '-p']),
  // Multi-call binaries: the first argument is the program (`busybox rm -rf /`).
  busybox: new Set(),
  toybox: new Set(),
  // chroot runs the command under a new root: its paths are read as written (the worst case is `/`).
  chroot: new Set(['--userspec', '--groups']),
};
/** Wrappers whose first non-option argument is theirs (timeout's duration, flock's file), not the command. */
const TAKES_ONE = new Set(['timeout', 'flock', 'chrt', 'chroot']);
/** Files that are the script's own stdin: `. /dev/stdin <<< "…"`, `bash /dev/stdin`. */
export const STDIN_FILES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-']);
/** How many items of a known input an `xargs -I` is judged for, one command each. */
const XARGS_ITEMS = 32;
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
  const moreArgs = false;
  let cwd = simple.cwd;
  const chain = [...via];
  for (;;) {
    const head = args[0];
    // No program left (`> /etc/passwd`, `exec > log`): its redirections still write.
    if (head === undefined)
      return simple.redirects.length === 0 ? [] : [command(simple, ':', [], chain, moreArgs, cwd)];
    // `sudo GIT_DIR=… git …`: after a wrapper, leading assignments set the command's environment.
    const assigned = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(head.text);
    if (assigned?.[1] !== undefined && chain.length > via.length) {
      simple = { ...simple, env: [...(simple.env ?? []), assigned[1]] };
      args = args.slice(1);
      continue;
    }
    const name = basename(head.text);
    if (head.dynamic) return [command(simple, head.text, args.slice(1), chain, moreArgs, cwd)];
    if (name === 'xargs') return xargs(simple, args.slice(1), home, depth, chain, cwd);
    if (name === 'alias') return aliases(args.slice(1), cwd, home, depth, chain);
    if (
      (name === 'source' || name === '.') &&
      STDIN_FILES.has(args[1]?.text ?? '') &&
      simple.stdin !== undefined
    )
      return commandsOf(simple.stdin, cwd ?? '/', home, depth + 1, [...chain, `${name} <<`]);
    if (name === 'env') {
      const inner = envArgs(args.slice(1), cwd);
      const named = args
        .slice(1, args.length - inner.rest.length)
        .flatMap((w) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(w.text)?.[1] ?? []);
      simple = { ...simple, env: [...(simple.env ?? []), ...named] };
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
      // `flock FILE -c "cmd"` hands the command to a shell, as `bash -c` does.
      if (name === 'flock' && (rest[0]?.text === '-c' || rest[0]?.text === '--command'))
        return shell(simple, 'sh', rest, home, depth, [...chain, 'flock'], cwd, moreArgs);
      if (name === 'sudo' && rest.length === 0)
        return [command(simple, name, args.slice(1), chain, moreArgs, cwd)];
      chain.push(name);
      args = rest;
      continue;
    }
    // `script -qc "cmd" /dev/null` runs cmd in a shell, as `bash -c` does.
    if (name === 'script') {
      const flag = args.findIndex(
        (a, i) => i > 0 && (/^-[a-zA-Z]*c$/.test(a.text) || a.text === '--command'),
      );
      if (flag > 0)
        return shell(
          simple,
          'sh',
          [known('-c'), ...args.slice(flag + 1)],
          home,
          depth,
          [...chain, 'script'],
          cwd,
          moreArgs,
        );
    }
    if (name === 'parallel') return parallel(simple, args.slice(1), home, depth, chain, cwd);
    if (AWKS.has(name))
      return [
        command(simple, name, args.slice(1), chain, moreArgs, cwd),
        ...awk(simple, name, args.slice(1), home, depth, chain, cwd),
      ];
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
    if (head.text.includes('/')) found.program = head.text;
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
    env: simple.env ?? [],
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
  if (file !== undefined && !STDIN_FILES.has(file.text))
    return [command(simple, name, args, via, moreArgs, cwd)];
  if (simple.stdin !== undefined)
    return commandsOf(simple.stdin, cwd ?? '/', home, depth + 1, [...via, `${name} <<`]);
  return [command(simple, name, args, via, moreArgs, cwd)];
}

/**
 * `xargs [options] command…`: the command with the items it is given. When the script says what
 * is piped in (`printf "/\n" | xargs -I{} rm -rf {}`) the items are put in; otherwise `-I`'s
 * placeholder and the added arguments are only known at run time.
 */
function xargs(
  simple: SimpleCommand,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
): Command[] {
  let replace: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') {
      i++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (text === '-I' || text === '--replace') replace = args[++i]?.text ?? '{}';
    else if (text === '-i') replace = '{}';
    else if (text.startsWith('-I')) replace = text.slice(2);
    else if (text.startsWith('--replace=')) replace = text.slice('--replace='.length);
    else if (text.startsWith('-i')) replace = text.slice(2);
    else if (XARGS_VALUE.has(text)) i++;
  }
  const rest = args.slice(i);
  const inner = rest.length === 0 ? [known('echo')] : rest;
  const chain = [...via, 'xargs'];
  const stdin = simple.stdin;
  const again = (words: Word[], more: boolean): Command[] =>
    unwrap({ ...simple, words, stdin: undefined, stdinUnknown: false, cwd }, home, depth + 1, chain).map(
      (c) => ({ ...c, moreArgs: c.moreArgs || more }),
    );
  if (replace !== undefined) {
    const marker = replace;
    if (stdin === undefined)
      return again(
        inner.map((w) =>
          w.text.includes(marker) ? { ...w, text: w.text.replaceAll(marker, UNKNOWN), dynamic: true } : w,
        ),
        false,
      );
    const items = stdin
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(0, XARGS_ITEMS);
    return items.flatMap((item) =>
      again(
        inner.map((w) => (w.text.includes(marker) ? { ...w, text: w.text.replaceAll(marker, item) } : w)),
        false,
      ),
    );
  }
  if (stdin === undefined) return again(inner, true);
  const items = stdin.split(/\s+/).filter((item) => item !== '');
  return again([...inner, ...items.map(known)], false);
}

const XARGS_VALUE = new Set([
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
  '--max-lines',
]);

/** `alias ls='rm -rf /'`: what an alias will run is judged where it is defined. */
function aliases(
  args: Word[],
  cwd: string | undefined,
  home: string,
  depth: number,
  via: string[],
): Command[] {
  return args.flatMap((arg) => {
    const eq = arg.text.indexOf('=');
    if (eq <= 0) return [];
    const body = arg.text.slice(eq + 1);
    // An alias whose text is only known at run time is an eval of unknown text.
    if (arg.dynamic) {
      const unknown: SimpleCommand = { words: [], redirects: [], stdinUnknown: false, cwd };
      return [command(unknown, 'eval', [{ ...arg, text: UNKNOWN }], via, false, cwd)];
    }
    return commandsOf(body, cwd ?? '/', home, depth + 1, [...via, `alias ${arg.text.slice(0, eq)}`]);
  });
}

export const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'original-awk']);
const AWK_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** `system("…")`, `print … | "…"`, `"…" | getline`: a literal string (group 1) or an expression (group 2). */
const AWK_RUNS = [
  new RegExp(String.raw`\bsystem\s*\(\s*(?:(${AWK_STRING})\s*\)|([^)]*))`, 'g'),
  new RegExp(
    String.raw`\bprintf?\b[^;}\n|]*\|&?\s*(?:(${AWK_STRING})\s*(?=[;}\n]|$)|([^|;}\n][^;}\n]*))`,
    'g',
  ),
  new RegExp(String.raw`(?:(${AWK_STRING})|([\w$)\]]+))\s*\|&?\s*getline\b`, 'g'),
];

/**
 * awk's `system(…)` and pipes run shell commands: a literal one is judged as a script; one built
 * at run time (`system("rm -rf " $1)`) is an eval of unknown text.
 */
function awk(
  simple: SimpleCommand,
  name: string,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
): Command[] {
  const rest = skipOptions(args, new Set(['-F', '-v', '-f', '--field-separator', '--assign', '--file']));
  // A program file (`awk -f prog.awk`) is read where scripts are (scripts.ts).
  if (args.some((a) => a.text === '-f' || a.text === '--file' || /^(-f.|--file=)/.test(a.text))) return [];
  return awkProgram(rest[0]?.text ?? '', rest[0]?.dynamic ?? false, name, home, depth, via, cwd).map((c) => ({
    ...c,
    env: c.env ?? simple.env,
  }));
}

/** The commands an awk program runs (its `system(…)`, pipes and `getline`), inline or read from its file. */
export function awkProgram(
  program: string,
  dynamic: boolean,
  name: string,
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
): Command[] {
  const out: Command[] = [];
  const chain = [...via, `${name} system`];
  AWK_RUNS.forEach((pattern, kind) => {
    for (const match of program.matchAll(pattern)) {
      const literal = match[1];
      const text = literal === undefined || dynamic ? undefined : awkString(literal);
      if (text !== undefined) {
        // `print … | "sh"`: the command reads what awk prints, which the gate cannot know.
        const found = commandsOf(text, cwd ?? '/', home, depth + 1, chain);
        out.push(
          ...(kind === 1 ? found.map((c) => ({ ...c, stdin: undefined, stdinUnknown: true })) : found),
        );
      } else {
        const unknown: SimpleCommand = { words: [], redirects: [], stdinUnknown: false, cwd };
        out.push(
          command(unknown, 'eval', [{ text: UNKNOWN, dynamic: true, glob: false }], chain, false, cwd),
        );
      }
    }
  });
  return out;
}

/** An awk string literal's text; undefined when its escapes are not JSON's. */
function awkString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** `parallel [options] command ::: items`: the command once per item ({} replaced, or appended). */
function parallel(
  simple: SimpleCommand,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
): Command[] {
  const rest = skipOptions(
    args,
    new Set(['-j', '-S', '--jobs', '--sshlogin', '-a', '--arg-file', '--delay', '--joblog']),
  );
  const sep = rest.findIndex((a) => a.text === ':::' || a.text === '::::' || a.text === ':::+');
  const words = sep < 0 ? rest : rest.slice(0, sep);
  const items =
    sep < 0 || rest[sep]?.text === '::::'
      ? undefined
      : rest.slice(sep + 1).filter((a) => !a.text.startsWith(':::'));
  const chain = [...via, 'parallel'];
  const run = (item: Word): Command[] => {
    const has = words.some((w) => w.text.includes('{}'));
    const filled = has
      ? words.map((w) =>
          w.text.includes('{}')
            ? { ...w, text: w.text.replaceAll('{}', item.text), dynamic: w.dynamic || item.dynamic }
            : w,
        )
      : [...words, item];
    if (filled.some((w) => w.dynamic))
      return unwrap(
        { ...simple, words: filled, stdin: undefined, stdinUnknown: false, cwd },
        home,
        depth + 1,
        chain,
      );
    // parallel hands its command line to a shell.
    return commandsOf(filled.map((w) => w.text).join(' '), cwd ?? '/', home, depth + 1, chain);
  };
  if (items === undefined || items.length === 0)
    return run({ text: UNKNOWN, dynamic: true, glob: false }).map((c) => ({ ...c, moreArgs: true }));
  return items.slice(0, XARGS_ITEMS).flatMap(run);
}

function known(text: string): Word {
  return { text, dynamic: false, glob: false };
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
