/**
 * A session has one host. A host claims its session by creating `host.lock` with its pid before
 * it touches anything; a second host — started by mistake when a supervisor was killed just as it
 * handed the session to its spare, or by the next supervisor while the first host was still
 * starting — finds the claim of a live process and leaves. A claim whose process is gone is stale
 * and taken over.
 *
 * The claim appears whole or not at all: the pid is written to a file of this process's own, which
 * is then hard-linked to `host.lock` (link fails when the name exists, atomically). Creating
 * `host.lock` with O_EXCL and writing the pid afterwards left a moment in which the claim existed
 * empty; a second host reading it then took it for stale, removed it and claimed too, and two hosts
 * ran one session — the one not recorded left as a stray process (decision 64).
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStateError } from '../shared/errors.js';
import { isProcessAlive } from '../shared/process.js';

const LOCK = 'host.lock';

/** Claims the session whose folder is `dir` for this process, or throws naming the holder. */
export function claimSession(dir: string): void {
  const path = join(dir, LOCK);
  const mine = join(dir, `${LOCK}.${process.pid}`);
  writeFileSync(mine, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(mine, path);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = readClaim(path);
        if (holder === 'gone') continue; // released just now: try again
        if (holder === process.pid) return;
        // No pid in it: never left so by a claim (written whole before it is linked), so it is not
        // taken for stale — it may be an older host between creating the file and writing its pid.
        if (holder === undefined) {
          throw new SessionStateError(
            `the session's claim ${path} names no host; another host may be claiming the session, so this one leaves it alone (delete the file if no host of the session runs)`,
          );
        }
        if (isProcessAlive(holder))
          throw new SessionStateError(
            `the session already has a host (pid ${holder}); this one leaves it alone`,
          );
        // Stale: its host is gone. Only a dead claim is removed.
        rmSync(path, { force: true });
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
  throw new SessionStateError(`could not claim the session: its ${LOCK} keeps changing`);
}

/** The pid holding the session's claim, if any. */
export function claimant(dir: string): number | undefined {
  const holder = readClaim(join(dir, LOCK));
  return holder === 'gone' ? undefined : holder;
}

/** The pid in a claim; undefined when it holds none, 'gone' when there is no claim. */
function readClaim(path: string): number | undefined | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return undefined;
  }
  const pid = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function releaseClaim(dir: string): void {
  if (claimant(dir) === process.pid) rmSync(join(dir, LOCK), { force: true });
}
