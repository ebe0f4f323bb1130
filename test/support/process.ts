/** Waiting on things outside our own process, driven by OS notifications where there are any. */
import { watch } from 'node:fs';

/**
 * Resolves once `pid` is gone. Linux offers no exit notification for a process that is not our
 * child, so this checks on a short interval — bounded by the timeout.
 */
export async function watchExit(pid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves when `check()` holds, re-checking on every change of the file (inotify). */
export function waitForFile(path: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const watcher = watch(path, () => {
      if (!check()) return;
      clearTimeout(timer);
      watcher.close();
      resolve();
    });
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out waiting on ${path}`));
    }, timeoutMs);
  });
}
