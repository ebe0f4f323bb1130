/**
 * What actually runs: wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, `find -exec`, …) are
 * peeled off, and scripts handed to a shell (`bash -c`, `sh -c`, `eval`, `… | sh`, a heredoc
 * into `bash`) are parsed and flattened in turn. What is left are the programs that would run,
 * each with its arguments, so a rule never matches on text. Programs that run a command once per
 * item (`xargs`, `parallel`, `find -exec`) are read in per-item.ts, awk's commands in awk.ts.
 */
import { basename } from 'node:path';
import { awk, AWKS } from './awk.js';
import { command, known, skipOptions, STDIN_FILES, type Command, type Reader } from './command.js';
import { variableCommands } from './command-variables.js';
import { findExec, parallel, xargs } from './per-item.js';
import { parseCommands, UNKNOWN, type SimpleCommand, type Word } from './shell.js';

export type { Command } from './command.js';

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

/** How the readers of per-item programs and awk read an inner command: as this module does. */
/** How the inner readers (awk, the per-item programs) read a command they find. */
export const read: Reader = { script: commandsOf, words: unwrap };

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
      simple = {
        ...simple,
        env: [...(simple.env ?? []), assigned[1]],
        values: { ...simple.values, [assigned[1]]: valueOf(head) },
      };
      args = args.slice(1);
      continue;
    }
    const name = basename(head.text);
    if (head.dynamic) return [command(simple, head.text, args.slice(1), chain, moreArgs, cwd)];
    if (name === 'xargs') return xargs(simple, args.slice(1), home, depth, chain, cwd, read);
    if (name === 'alias') return aliases(args.slice(1), cwd, home, depth, chain);
    if (
      (name === 'source' || name === '.') &&
      STDIN_FILES.has(args[1]?.text ?? '') &&
      simple.stdin !== undefined
    )
      return commandsOf(simple.stdin, cwd ?? '/', home, depth + 1, [...chain, `${name} <<`]);
    if (name === 'env') {
      const inner = envArgs(args.slice(1), cwd);
      const assignments = args
        .slice(1, args.length - inner.rest.length)
        .filter((w) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text));
      const named = assignments.map((w) => w.text.slice(0, w.text.indexOf('=')));
      simple = {
        ...simple,
        env: [...(simple.env ?? []), ...named],
        values: {
          ...simple.values,
          ...Object.fromEntries(assignments.map((w) => [w.text.slice(0, w.text.indexOf('=')), valueOf(w)])),
        },
      };
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
    if (name === 'parallel') return parallel(simple, args.slice(1), home, depth, chain, cwd, read);
    if (AWKS.has(name))
      return [
        command(simple, name, args.slice(1), chain, moreArgs, cwd),
        ...awk(simple, name, args.slice(1), home, depth, chain, cwd, read),
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
    const inVariables = variableCommands(found, simple, home, depth, read);
    if (name === 'find') return [found, ...findExec(found, home, depth, read), ...inVariables];
    return [found, ...inVariables];
  }
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
    return inherit(simple, commandsOf(script.text, cwd ?? '/', home, depth + 1, inner));
  }
  const file = args.find((a) => !a.text.startsWith('-'));
  if (file !== undefined && !STDIN_FILES.has(file.text))
    return [command(simple, name, args, via, moreArgs, cwd)];
  if (simple.stdin !== undefined)
    return inherit(simple, commandsOf(simple.stdin, cwd ?? '/', home, depth + 1, [...via, `${name} <<`]));
  return [command(simple, name, args, via, moreArgs, cwd)];
}

/**
 * The commands a shell runs get the variables set for the shell (`BASH_ENV=x.sh bash -c …`,
 * `NODE_OPTIONS=… sh -c "npm test"`): the environment is inherited, and what it loads is judged
 * there (decision 330). Their own settings win.
 */
function inherit(simple: SimpleCommand, commands: Command[]): Command[] {
  if (simple.values === undefined && (simple.env ?? []).length === 0) return commands;
  return commands.map((inner) => ({
    ...inner,
    env: [...new Set([...(simple.env ?? []), ...(inner.env ?? [])])],
    ...(simple.values === undefined ? {} : { values: { ...simple.values, ...inner.values } }),
  }));
}

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

/** The value of a `NAME=value` word (`sudo X=1 …`, `env X=1 …`). */
function valueOf(word: Word): Word {
  return { ...word, text: word.text.slice(word.text.indexOf('=') + 1) };
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
