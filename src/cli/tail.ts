/** Following a growing file line by line (`tail -f`), driven by file-system notifications. */
import { closeSync, existsSync, openSync, readSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Calls `onLine` for each complete line written to `path` after `offset`, until the process is
 * interrupted. The folder is watched, so a file created, truncated or replaced later is followed too.
 */
export function followFile(path: string, offset: number, onLine: (line: string) => void): Promise<void> {
  let position = offset;
  let partial = '';
  const readMore = (): void => {
    if (!existsSync(path)) return;
    const size = statSync(path).size;
    if (size < position) position = 0; // truncated or replaced: start over
    if (size === position) return;
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(size - position);
      const read = readSync(fd, buffer, 0, buffer.length, position);
      position += read;
      const lines = (partial + buffer.subarray(0, read).toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line !== '') onLine(line);
    } finally {
      closeSync(fd);
    }
  };
  return new Promise((resolve) => {
    const watcher = watch(dirname(path), (_event, name) => {
      if (name === null || name === basename(path)) readMore();
    });
    process.once('SIGINT', () => {
      watcher.close();
      resolve();
    });
    readMore();
  });
}
