/** Waiting on things outside our own process, driven by OS notifications where there are any. */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { pollUntil, until } from './wait.js';

/**
 * Resolves once `pid` is gone. Linux offers no exit notification for a process that is not our
 * child, so this checks on a short interval — bounded by the timeout.
 */
export async function watchExit(pid: number, timeoutMs = 45_000): Promise<void> {
  await until(() => !alive(pid), `process ${pid} is gone`, { timeoutMs, intervalMs: 20 });
}

/** A killed process whose parent has not reaped it yet is a zombie: gone for our purposes. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !isZombie(pid);
}

/** Resolves when `check()` holds, re-checking on every change of the file (inotify). */
export function waitForFile(path: string, check: () => boolean, timeoutMs = 45_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    // Watch first, then check: a change between the two would otherwise go unseen.
    const watcher = watch(path, () => {
      if (check()) finish();
    });
    const timer = setTimeout(() => {
      watcher.close();
      reject(
        new Error(
          `timed out waiting on ${path}:\n${readFileSync(path, 'utf8').split('\n').slice(-6).join('\n')}`,
        ),
      );
    }, timeoutMs);
    if (check()) finish();
  });
}

/**
 * Collects a child's output from the start, so nothing printed between two waits is lost, and
 * waits for patterns in what arrived after the previous match.
 */
export class OutputWatcher {
  private text = '';
  private consumed = 0;
  private waiters: (() => void)[] = [];

  constructor(stream: NodeJS.ReadableStream) {
    stream.on('data', (chunk: Buffer | string) => {
      this.text += chunk.toString();
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  get all(): string {
    return this.text;
  }

  waitFor(pattern: RegExp, timeoutMs = 45_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const rest = this.text.slice(this.consumed);
        const match = pattern.exec(rest);
        if (match === null) return false;
        this.consumed += match.index + match[0].length;
        resolve(rest.slice(0, match.index + match[0].length));
        return true;
      };
      if (check()) return;
      const waiter = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`output never matched ${pattern}; got:\n${this.text}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** Resolves with a child's exit code. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function isZombie(pid: number): boolean {
  try {
    // The state follows the command name in parentheses, which may itself hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** Pids of processes whose command line contains `marker` (Linux: /proc), this one excluded. */
export function processesMatching(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker))
        pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Resolves once some process runs with `marker` in its command line (`present`), or once none
 * does any more (`gone`). Like `watchExit`, this checks on a short interval: Linux does not
 * notify about processes that are not our children.
 */
export async function watchProcesses(
  marker: string,
  state: 'present' | 'gone',
  timeoutMs = 45_000,
): Promise<void> {
  await pollUntil(
    () => processesMatching(marker),
    (pids) => (state === 'present') === pids.length > 0,
    state === 'present' ? `a process runs "${marker}"` : `no process runs "${marker}" (pids seen)`,
    { timeoutMs },
  );
}

/**
 * Waits until some file named `name` somewhere under `folder` holds `text`. Watches the folder
 * tree (created on the way if need be), so a file written after the call is seen too.
 */
export function waitForFileContaining(
  folder: string,
  name: string,
  text: string,
  timeoutMs = 45_000,
): Promise<string> {
  mkdirSync(folder, { recursive: true });
  const find = (): string | undefined => {
    for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith(`/${name}`) && entry !== name) continue;
      const path = join(folder, entry);
      try {
        if (readFileSync(path, 'utf8').includes(text)) return path;
      } catch {
        // Listed, then gone or not readable yet: the next change looks again.
      }
    }
    return undefined;
  };
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const found = find();
      if (found === undefined) return;
      clearTimeout(timer);
      watcher.close();
      resolve(found);
    };
    const watcher = watch(folder, { recursive: true }, check);
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out waiting for ${JSON.stringify(text)} in a ${name} under ${folder}`));
    }, timeoutMs);
    check();
  });
}
