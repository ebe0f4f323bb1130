/**
 * The repository's check command, run on a merged result before it lands. It is the repository
 * owner's (from `.baton/config.json`), never built from input: an argument list is run directly,
 * a string with `sh -c` as package.json scripts are. It runs in its own process group, so a time
 * limit stops everything it started, not just its first process.
 */
import { spawn } from 'node:child_process';
import { plainText } from '../shared/text.js';

export type CheckCommand = string | readonly string[];

export interface CheckResult {
  outcome: 'passed' | 'failed' | 'timed_out';
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  /** The end of its output (stdout and stderr interleaved), for the report. */
  outputTail: string;
  /** The command as people read it. */
  command: string;
}

/** How much output is kept: the end of a long test log is where the failure is. */
const KEEP_BYTES = 64 * 1024;
const TAIL_LINES = 40;
const TAIL_CHARS = 4000;
/** After SIGTERM, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 2000;

export function describeCheck(command: CheckCommand): string {
  return typeof command === 'string'
    ? command
    : command.map((a) => (/^[\w./=:@%+-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

export function runCheck(
  command: CheckCommand,
  options: { cwd: string; timeoutSeconds: number; env?: NodeJS.ProcessEnv },
): Promise<CheckResult> {
  const [file, ...args] = typeof command === 'string' ? ['sh', '-c', command] : [...command];
  const started = performance.now();
  return new Promise((resolve) => {
    let kept = '';
    let timedOut = false;
    const keep = (chunk: Buffer): void => {
      kept += chunk.toString('utf8');
      if (kept.length > KEEP_BYTES * 2) kept = kept.slice(-KEEP_BYTES);
    };
    const child = spawn(file ?? 'true', args, {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), BATON_MERGE_CHECK: '1' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    let graceTimer: NodeJS.Timeout | undefined;
    const limitTimer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      graceTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    }, options.timeoutSeconds * 1000);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let finished = false;
    const finish = (exitCode: number | null, signal: string | null, spawnError?: Error): void => {
      if (finished) return;
      finished = true;
      clearTimeout(limitTimer);
      if (graceTimer !== undefined) clearTimeout(graceTimer);
      // Whatever the check left running in its group goes with it.
      killGroup('SIGKILL');
      if (spawnError !== undefined) kept += `\n${spawnError.message}\n`;
      resolve({
        outcome: timedOut ? 'timed_out' : exitCode === 0 ? 'passed' : 'failed',
        exitCode,
        signal,
        durationMs: Math.round(performance.now() - started),
        // Plain text: the report goes to the agent and the page, where colour codes are noise.
        outputTail: tail(plainText(kept)),
        command: describeCheck(command),
      });
    };
    child.on('error', (error) => finish(null, null, error));
    let pipeTimer: NodeJS.Timeout | undefined;
    child.on('exit', (code, signal) => {
      // A background process the check left behind would hold its pipes open: it goes with the check.
      killGroup('SIGKILL');
      // One that left the group (`setsid`, `set -m`) is out of reach and may hold them for ever: the
      // output ends a moment after the check, or the merge (and the hold on its members) never would.
      pipeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, KILL_GRACE_MS);
    });
    // `close`, not `exit`: the output is complete only when the pipes are.
    child.on('close', (code, signal) => {
      clearTimeout(pipeTimer);
      finish(code, signal);
    });
  });
}

export function tail(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const last = lines.slice(-TAIL_LINES).join('\n');
  return last.length > TAIL_CHARS ? `…${last.slice(-TAIL_CHARS)}` : last;
}
