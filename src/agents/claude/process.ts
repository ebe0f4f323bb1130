/**
 * Spawning the claude process for the SDK ourselves, so we know its pid, can end its whole
 * process group (tools it started included), keep a tail of its stderr for error messages, and
 * screen its stdout: a line that is not a JSON object is reported and dropped instead of
 * reaching the SDK's parser.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { NO_SANDBOX, type CommandSandbox } from '../../sandbox/index.js';

const STDERR_TAIL = 4_000;
/** A line longer than this is cut and reported rather than buffered without bound. */
const MAX_LINE = 64 * 1024 * 1024;

export interface ClaudeProcessHooks {
  /** A stdout line that was not a JSON object (or was cut off at exit). */
  onMalformedLine(reason: string, line: string): void;
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
  /** Runs claude (and so its tools and MCP servers) in the session's sandbox. */
  sandbox?: CommandSandbox | undefined;
}

export class ClaudeProcess {
  private child: ChildProcess | undefined;
  private stderrTail = '';

  constructor(private readonly hooks: ClaudeProcessHooks) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get stderr(): string {
    return this.stderrTail.trim();
  }

  readonly spawn = (options: SpawnOptions): SpawnedProcess => {
    const { command, args } = this.hooks.sandbox?.wrap(options.command, options.args) ?? options;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so ending the agent also ends the commands it is running.
      detached: true,
    });
    this.child = child;
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.on('exit', (code, signal) => this.hooks.onExit(code, signal));
    // A process that never started has no exit to wait for.
    child.on('error', () => {
      if (child.pid === undefined) this.hooks.onExit(null, null);
    });
    options.signal.addEventListener('abort', () => this.killGroup('SIGTERM'), { once: true });
    const stdout = screenLines(child, this.hooks);
    return {
      stdin: child.stdin,
      stdout,
      get killed() {
        return child.killed;
      },
      get exitCode() {
        return child.exitCode;
      },
      get signalCode() {
        return child.signalCode;
      },
      kill: (signal) => this.killGroup(signal),
      on: (event: 'exit' | 'error', listener: (...args: unknown[]) => void) => void child.on(event, listener),
      once: (event: 'exit' | 'error', listener: (...args: unknown[]) => void) =>
        void child.once(event, listener),
      off: (event: 'exit' | 'error', listener: (...args: unknown[]) => void) =>
        void child.off(event, listener),
    } as SpawnedProcess;
  };

  killGroup(signal: NodeJS.Signals): boolean {
    const pid = this.child?.pid;
    if (pid === undefined || this.child?.exitCode !== null || this.child.signalCode !== null) return false;
    // Through the sandbox: a SIGTERM to bubblewrap would kill claude before it saved its conversation.
    return (this.hooks.sandbox ?? NO_SANDBOX).signalGroup(pid, signal) || this.child.kill(signal);
  }
}

/** Passes through complete lines that parse as JSON objects; reports the rest. */
function screenLines(child: ChildProcess, hooks: ClaudeProcessHooks): PassThrough {
  const out = new PassThrough();
  let buffer = '';
  const check = (line: string): void => {
    if (line.trim() === '') return;
    if (isJsonObject(line)) out.write(line + '\n');
    else hooks.onMalformedLine('not a JSON object', line);
  };
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      check(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
    if (buffer.length > MAX_LINE) {
      hooks.onMalformedLine('line too long', buffer.slice(0, 200));
      buffer = '';
    }
  });
  child.stdout?.on('end', () => {
    if (buffer.trim() !== '') {
      if (isJsonObject(buffer)) out.write(buffer + '\n');
      else hooks.onMalformedLine('truncated at exit', buffer);
    }
    out.end();
  });
  return out;
}

function isJsonObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
