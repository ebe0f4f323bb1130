/**
 * A terminal program driven as a person drives it: in a tmux pane of a given size, keys sent
 * with `send-keys`, the screen read with `capture-pane`. Each terminal has its own tmux server
 * (its own socket in the test's folder, no user config), stopped by its pid at cleanup. Waiting
 * is on screen content, polled up to a deadline, never a fixed sleep.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from './wait.js';

/** tmux's path, or a clear failure: `npm test` installs Debian's tmux as root (scripts/tmux.mjs). */
export function requireTmux(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const path = join(dir, 'tmux');
    if (dir !== '' && existsSync(path)) return path;
  }
  throw new Error(
    'tmux is not installed; the terminal board tests drive the board in tmux. Install it: sudo apt-get install tmux (npm test does so when run as root).',
  );
}

const POLL_MS = 40;

export class Terminal {
  private readonly socket: string;
  private readonly tmux = requireTmux();
  readonly log: string;
  private serverPid: number | undefined;

  /** Starts `command` (an argument array) in a `columns`×`rows` pane with `env`, in `cwd`. */
  constructor(
    folder: string,
    name: string,
    command: string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; columns?: number; rows?: number },
  ) {
    this.socket = join(folder, `tmux-${name}.sock`);
    this.log = join(folder, `tmux-${name}.log`);
    const env = { ...options.env, TERM: options.env.TERM ?? 'xterm-256color' };
    // The pane's program gets the test's environment: the server is started with it, and -e repeats what tmux would otherwise drop.
    const pass = Object.entries(env).flatMap(([key, value]) =>
      value === undefined ? [] : ['-e', `${key}=${value}`],
    );
    this.run(env, [
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'board',
      '-x',
      String(options.columns ?? 80),
      '-y',
      String(options.rows ?? 24),
      '-c',
      options.cwd,
      ...pass,
      '--',
      ...command,
    ]);
    this.serverPid = Number(this.run(env, ['display-message', '-p', '-t', 'board', '#{pid}']).trim());
    // Everything the program writes, to check what was shown between two looks at the screen.
    this.run(env, ['pipe-pane', '-t', 'board', '-o', `cat >> '${this.log}'`]);
    this.run(env, ['set-option', '-t', 'board', 'remain-on-exit', 'on']);
  }

  private run(env: NodeJS.ProcessEnv, args: string[]): string {
    return execFileSync(this.tmux, ['-S', this.socket, ...args], { env, encoding: 'utf8' });
  }

  private ctl(args: string[]): string {
    return execFileSync(this.tmux, ['-S', this.socket, ...args], { encoding: 'utf8' });
  }

  /**
   * The screen as text, one string per line (trailing spaces kept off). With `escapes`, colours
   * and attributes as ANSI codes; with `history`, the lines scrolled off the top too.
   */
  screen(options: { escapes?: boolean; history?: boolean } = {}): string {
    return this.ctl([
      'capture-pane',
      '-p',
      '-t',
      'board',
      ...(options.escapes === true ? ['-e'] : []),
      ...(options.history === true ? ['-S', '-'] : []),
    ]);
  }

  /** Keys by tmux's names (`Enter`, `Escape`, `Tab`, `Down`, `j`). */
  keys(...keys: string[]): void {
    this.ctl(['send-keys', '-t', 'board', ...keys]);
  }

  /** Text typed literally. */
  type(text: string): void {
    this.ctl(['send-keys', '-t', 'board', '-l', text]);
  }

  resize(columns: number, rows: number): void {
    this.ctl(['resize-window', '-t', 'board', '-x', String(columns), '-y', String(rows)]);
  }

  /** Everything the program has written so far (through pipe-pane). */
  written(): string {
    return existsSync(this.log) ? readFileSync(this.log, 'utf8') : '';
  }

  /** The pane's title, as the program set it (OSC 2). */
  paneTitle(): string {
    return this.ctl(['display-message', '-p', '-t', 'board', '#{pane_title}']).trim();
  }

  /** Whether the pane's program has exited. */
  exited(): boolean {
    return this.ctl(['display-message', '-p', '-t', 'board', '#{pane_dead}']).trim() === '1';
  }

  /** Resolves with the screen once `match` holds; fails after `timeoutMs` showing the last screen. */
  async waitFor(match: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const test =
      typeof match === 'function'
        ? match
        : (s: string) => (typeof match === 'string' ? s.includes(match) : match.test(s));
    return pollUntil(() => this.screen(), test, `the screen shows ${String(match)}`, {
      timeoutMs,
      intervalMs: POLL_MS,
    });
  }

  /** Stops the tmux server (and so the program in it) by its pid. */
  close(): void {
    if (this.serverPid === undefined) return;
    try {
      // A server that ended on its own left its pid free for any process (TestBaton.cleanup).
      if (readFileSync(`/proc/${this.serverPid}/cmdline`, 'utf8').split('\0').includes(this.socket))
        process.kill(this.serverPid, 'SIGKILL');
    } catch {
      // already gone
    }
    this.serverPid = undefined;
  }
}
