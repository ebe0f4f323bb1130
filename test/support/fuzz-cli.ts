/**
 * Generated argument vectors for every command and flag of `bin/baton`. The commands and their
 * flags are read from the binary's own `--help`, so a command added later is fuzzed too.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { Rng } from './fuzz.js';

export interface CliOption {
  /** `--name`, and the short form when there is one. */
  long: string;
  short?: string;
  /** The flag takes a value. */
  value: boolean;
  choices: string[];
}

export interface CliCommand {
  words: string[];
  /** `<prompt>`, `[session]`, `<text...>`. */
  args: { name: string; required: boolean; variadic: boolean }[];
  options: CliOption[];
}

/** Every command (with subcommands, e.g. `daemon logs`), parsed from `--help`. */
export function readCommands(bin: string, env: NodeJS.ProcessEnv, words: string[] = []): CliCommand[] {
  const help = execFileSync(process.execPath, [bin, ...words, '--help'], { env, encoding: 'utf8' });
  const section = (title: string): string[] => {
    const start = help.indexOf(`\n${title}:\n`);
    if (start < 0) return [];
    const lines: string[] = [];
    for (const line of help.slice(start + title.length + 3).split('\n')) {
      if (line.trim() === '' || !line.startsWith(' ')) break;
      lines.push(line);
    }
    return lines;
  };
  const commands: CliCommand[] = [];
  const sub = section('Commands')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => (line.trim().split(/\s+/)[0] as string).split('|')[0] as string)
    .filter((name) => name !== 'help');
  if (words.length > 0) {
    const usage = /^Usage: .*?(?:\[options\])?((?: [<[][^\]>]+[\]>])*)\s*$/m.exec(help)?.[1] ?? '';
    const args = [...usage.matchAll(/([<[])([^\]>]+)[\]>]/g)].map(([, open, name]) => ({
      name: (name as string).replace('...', ''),
      required: open === '<',
      variadic: (name as string).endsWith('...'),
    }));
    const options: CliOption[] = section('Options')
      .filter((line) => /^ {2}-/.test(line))
      .map((line) => {
        const [, short, long, value] = /^ {2}(?:(-\w), )?(--[\w-]+)( <[^>]+>)?/.exec(line) ?? [];
        const choices = [
          ...(/choices: ((?:"[^"]*",?\s*)+)/.exec(line)?.[1] ?? '').matchAll(/"([^"]*)"/g),
        ].map((m) => m[1] as string);
        return { long: long as string, short, value: value !== undefined, choices };
      })
      .filter((option) => option.long !== '--help');
    if (sub.length === 0 || args.length > 0 || options.length > 0) commands.push({ words, args, options });
  }
  for (const name of sub) commands.push(...readCommands(bin, env, [...words, name]));
  return commands;
}

export interface CliFuzzContext {
  rng: Rng;
  strings: string[];
  refs: string[];
  /** A script file the scripted agent can run, for `--script`. */
  script: string;
}

/** One argument vector for `command`: its arguments and flags, with good, bad and odd values, and now and then an unknown flag. */
export function argv(ctx: CliFuzzContext, command: CliCommand): string[] {
  const { rng } = ctx;
  const out = [...command.words];
  const value = (option?: CliOption): string => {
    const roll = rng.next();
    if (option !== undefined && option.choices.length > 0 && roll < 0.5) return rng.pick(option.choices);
    if (option?.long === '--script' && roll < 0.6) return ctx.script;
    if (roll < 0.75 && ctx.refs.length > 0 && option === undefined) return rng.pick(ctx.refs);
    return rng.pick(ctx.strings);
  };
  for (const arg of command.args) {
    if (!arg.required && rng.chance(0.5)) continue;
    if (rng.chance(0.05)) continue; // a required one left out
    out.push(value());
    if (arg.variadic) for (let i = rng.int(0, 2); i > 0; i--) out.push(value());
  }
  for (const option of command.options) {
    if (!rng.chance(0.4)) continue;
    const flag = option.short !== undefined && rng.chance(0.3) ? option.short : option.long;
    if (!option.value) out.push(flag);
    else if (rng.chance(0.1))
      out.push(flag); // the value left out
    else if (rng.chance(0.2)) out.push(`${option.long}=${value(option)}`);
    else out.push(flag, value(option));
  }
  if (rng.chance(0.08))
    out.splice(
      rng.int(command.words.length, out.length),
      0,
      rng.pick(['--nope', '-z', '---', '--json=3', '--', '-', `--${'x'.repeat(2000)}`, '--🙂']),
    );
  // Arguments with a NUL cannot be passed to a process at all; that is the OS's refusal, not ours.
  return out.map((arg) => arg.split(String.fromCharCode(0)).join(''));
}

export interface CliOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Still running after the time given (a follower), and so stopped. */
  timedOut: boolean;
}

/** Runs the binary with stdin closed; a command still running after `timeoutMs` is stopped and reported. */
export function runCli(
  bin: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<CliOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout
      .setEncoding('utf8')
      .on('data', (s: string) => (stdout += s.length > 100_000 ? s.slice(0, 100_000) : s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
