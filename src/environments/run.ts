/**
 * Running a setup or teardown command in a worktree: an argument list as is, a string through
 * `sh -c` (as a package.json script is; the command is the repository's own, not input from a
 * request). Its own process group, so a time limit or a stop ends everything it started;
 * output streamed to the caller as it comes.
 */
import { spawn } from 'node:child_process';
import { NO_SANDBOX, type CommandSandbox } from '../sandbox/index.js';
import type { Command } from './plan.js';

export interface CommandResult {
  ok: boolean;
  exitCode: number | null;
  /** Set when the time limit or the abort ended it. */
  ended?: 'timeout' | 'aborted' | undefined;
  error?: string | undefined;
}

/** How long a command has after SIGTERM before SIGKILL. */
const GRACE_MS = 3_000;

export function commandLabel(command: Command): string {
  return typeof command === 'string'
    ? command
    : command.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

export function runCommand(
  command: Command,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    onOutput: (text: string) => void;
    /** Runs it as an agent's commands run (teardown: the worktree holds what the agent wrote). */
    sandbox?: CommandSandbox | undefined;
  },
): Promise<CommandResult> {
  const [plainFile, ...plainArgs] = typeof command === 'string' ? ['sh', '-c', command] : command;
  const sandbox = options.sandbox ?? NO_SANDBOX;
  const { command: file, args } = sandbox.wrap(plainFile!, plainArgs);
  const signalGroup = (pid: number | undefined, signal: NodeJS.Signals): void => {
    if (pid !== undefined) sandbox.signalGroup(pid, signal);
  };
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let ended: CommandResult['ended'];
    let killTimer: NodeJS.Timeout | undefined;
    const endGroup = (why: 'timeout' | 'aborted'): void => {
      if (ended !== undefined) return;
      ended = why;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), GRACE_MS);
    };
    const timer = setTimeout(() => endGroup('timeout'), options.timeoutMs);
    const onAbort = (): void => endGroup('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', options.onOutput);
    child.stderr.on('data', options.onOutput);
    const finish = (result: CommandResult): void => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left running in its group goes with it.
      signalGroup(child.pid, 'SIGKILL');
      resolve(result);
    };
    child.once('error', (error) => finish({ ok: false, exitCode: null, error: error.message }));
    child.once('close', (code, signal) => {
      if (ended !== undefined) finish({ ok: false, exitCode: code, ended });
      else
        finish({
          ok: code === 0,
          exitCode: code,
          ...(code === 0
            ? {}
            : { error: signal === null ? `exited with code ${code}` : `was killed by ${signal}` }),
        });
    });
  });
}
