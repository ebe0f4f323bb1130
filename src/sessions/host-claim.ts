/**
 * A session has one host. A host claims its session by creating `host.lock` exclusively (O_EXCL)
 * with its pid before it touches anything; a second host — started by mistake when a supervisor
 * was killed just as it handed the session to its spare — finds the claim of a live process and
 * leaves. A claim whose process is gone is stale and taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStateError } from '../shared/errors.js';
import { isProcessAlive } from '../shared/process.js';

const LOCK = 'host.lock';

/** Claims the session whose folder is `dir` for this process, or throws naming the holder. */
export function claimSession(dir: string): void {
  const path = join(dir, LOCK);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = claimant(dir);
      if (holder !== undefined && holder !== process.pid && isProcessAlive(holder)) {
        throw new SessionStateError(`the session already has a host (pid ${holder}); this one leaves it alone`);
      }
      // Stale: its host is gone (or it is our own from before an exec). Only a dead claim is removed.
      rmSync(path, { force: true });
    }
  }
  throw new SessionStateError('could not claim the session: its host.lock keeps changing');
}

/** The pid holding the session's claim, if any. */
export function claimant(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, LOCK), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function releaseClaim(dir: string): void {
  if (claimant(dir) === process.pid) rmSync(join(dir, LOCK), { force: true });
}
