/**
 * Where the supervisor's git processes are started from (decision 415, "The supervisor starts its
 * git processes from a small runner"). Node starts a child by forking its own process and waits,
 * its event loop stopped, until the child has replaced itself with the program: the fork copies
 * the page tables of all the memory the process has touched. The supervisor holds 50 MB and more
 * of its own; on a busy machine each of its git calls stopped everything it does for 50–100 ms, a
 * small repository's whole `git worktree add` took about as long. A runner process that loads
 * nothing but child_process forks in a fraction of that, and the wait stops the runner, not the
 * supervisor. The session host, itself small, starts its git directly.
 *
 * The runner is an optimisation, never a dependency: until it is ready, once it is gone and in
 * every process that did not start one, a call starts git itself.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../shared/log.js';

const log = createLogger('git');

/** How a git call ended, as `execFile` says it: the exit code (or an error's code) and whether it was killed. */
export interface GitExecError {
  code?: number | string | null | undefined;
  killed?: boolean | undefined;
  message: string;
}

export interface GitExecOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  maxBuffer: number;
  /** Stops git with SIGKILL after this long. */
  timeout?: number | undefined;
}

export type GitExecCallback = (error: GitExecError | null, stdout: string, stderr: string) => void;

interface Answer {
  id: number;
  stdout: string;
  stderr: string;
  error: { code: number | string | null; killed: boolean; message: string } | null;
}

/** A runner that died this many times is not started again: git is then started directly. */
const MAX_CRASHES = 3;

let runner: { child: ChildProcess; ready: boolean; started: Promise<boolean> } | undefined;
let crashes = 0;
let stopped = false;
let nextId = 0;
const waiting = new Map<number, GitExecCallback>();

/** Runs `git args` as `execFile` would, through the runner when one is up, else directly. */
export function execGit(args: string[], options: GitExecOptions, done: GitExecCallback): void {
  const child = runner?.ready === true ? runner.child : undefined;
  // An argument Node refuses (a null byte, from a name or ref in a request) throws here as it always
  // did, for the caller to answer: sent to the runner it would throw there and end it.
  if (child === undefined || !child.connected || args.some((arg) => arg.includes('\0'))) {
    execDirect(args, options, done);
    return;
  }
  const id = nextId++;
  waiting.set(id, done);
  child.channel?.ref();
  const call = {
    id,
    args,
    cwd: options.cwd,
    env: options.env,
    maxBuffer: options.maxBuffer,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  };
  child.send(call, (error) => {
    if (error === null || !waiting.has(id)) return;
    // The runner went away as the call was sent: nothing was started, so it is started here.
    waiting.delete(id);
    execDirect(args, options, done);
  });
}

/**
 * Starts the runner (the supervisor does, once its start can no longer fail). Calls go straight
 * to git until it says it is ready, so its start is never waited for; the promise says when it is
 * (true), or that there is none (false).
 */
export function startGitRunner(): Promise<boolean> {
  stopped = false;
  if (runner !== undefined) return runner.started;
  const entry = runnerEntry();
  if (entry === undefined) {
    log.warn('git runner not found; the supervisor starts git itself', {});
    return Promise.resolve(false);
  }
  const child = spawn(process.execPath, ['--max-semi-space-size=1', entry], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let settle = (_ready: boolean): void => undefined;
  const started = new Promise<boolean>((resolve) => (settle = resolve));
  const current = { child, ready: false, started };
  runner = current;
  child.unref();
  child.channel?.unref();
  child.on('message', (message: Answer | { ready: true }) => {
    if ('ready' in message) {
      current.ready = true;
      settle(true);
      return;
    }
    const done = waiting.get(message.id);
    waiting.delete(message.id);
    if (waiting.size === 0) child.channel?.unref();
    done?.(message.error, message.stdout, message.stderr);
  });
  child.on('error', (error) => log.warn('git runner failed', { error: error.message }));
  child.once('exit', (code, signal) => {
    settle(false);
    if (runner === current) runner = undefined;
    // What it was running may or may not have happened: those calls fail, as a killed git would.
    const lost = [...waiting.values()];
    waiting.clear();
    for (const done of lost) done({ code: null, killed: false, message: 'the git runner exited' }, '', '');
    if (stopped) return;
    crashes++;
    log.warn('git runner exited', { code, signal, calls: lost.length, restarted: crashes < MAX_CRASHES });
    if (crashes < MAX_CRASHES) void startGitRunner();
  });
  return started;
}

/** The runner's pid while one is ready (for tests and the log). */
export function gitRunnerPid(): number | undefined {
  return runner?.ready === true ? runner.child.pid : undefined;
}

/** Ends the runner (a supervisor stopping); later calls start git themselves. */
export function stopGitRunner(): void {
  stopped = true;
  const current = runner;
  runner = undefined;
  if (current?.child.connected === true) current.child.disconnect();
}

function execDirect(args: string[], options: GitExecOptions, done: GitExecCallback): void {
  execFile(
    'git',
    args,
    {
      cwd: options.cwd,
      env: options.env,
      maxBuffer: options.maxBuffer,
      ...(options.timeout === undefined ? {} : { timeout: options.timeout, killSignal: 'SIGKILL' as const }),
    },
    (error, stdout, stderr) => done(error, stdout, stderr),
  );
}

/** The runner's script: beside this module when transpiled, in dist/worktrees/ from the bundle or the sources. */
function runnerEntry(): string | undefined {
  const here = fileURLToPath(new URL('./git-runner-child.js', import.meta.url));
  const candidates = [
    here,
    here.replace(
      /\/(src\/worktrees|dist\/bundle)\/git-runner-child\.js$/,
      '/dist/worktrees/git-runner-child.js',
    ),
  ];
  return candidates.find((path) => existsSync(path));
}
