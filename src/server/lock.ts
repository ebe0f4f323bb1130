/**
 * One supervisor per BATON_HOME (decision 28). The holder listens on a Unix socket file in the
 * home, a folder only the user can create files in, so no other user can take or block it (an
 * abstract socket name could be bound by anyone first). A lock is published with link(2), which
 * is atomic, and only once it listens: a socket file that refuses connections is certainly stale.
 */
import {
  linkSync,
  lstatSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { basename, dirname, join, relative } from 'node:path';

/** A takeover marker this old belongs to a process that died mid-takeover (a takeover takes microseconds). */
const ABANDONED_TAKEOVER_MS = 10_000;
/** A marker this far in the future is still taken as just made: clocks of one machine agree, files stamps round. */
const CLOCK_SLACK_MS = 2_000;

export interface Lock {
  release(): void;
}

/**
 * Takes the lock at `lockPath`, or resolves undefined when a live process holds it. The path is
 * used relative to the working directory (the supervisor's is its home): a deep BATON_HOME's
 * absolute paths do not fit in a socket address.
 */
export async function acquireLock(lockPath: string): Promise<Lock | undefined> {
  const name = relative(process.cwd(), join(realpathSync(dirname(lockPath)), basename(lockPath)));
  const own = `${name}.${process.pid}`;
  rmSync(own, { force: true });
  const server = await listen(own);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (publish(own, name)) {
        server.unref();
        return { release: () => release(server, name) };
      }
      const holder = await probe(name);
      if (holder === 'live') break;
      if (holder === 'stale' && !removeStale(name)) break;
    }
    server.close();
    return undefined;
  } finally {
    rmSync(own, { force: true });
  }
}

function listen(path: string): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

/** Links our listening socket at the lock's name; false when something is there already. */
function publish(own: string, name: string): boolean {
  try {
    linkSync(own, name);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Whether a process listens on the socket at `path`. Only a refused connection means stale; any
 * other failure (a full backlog, say) is taken as a live holder, never as one to remove.
 */
function probe(path: string): Promise<'live' | 'stale' | 'gone'> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve('live');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'ECONNREFUSED' ? 'stale' : error.code === 'ENOENT' ? 'gone' : 'live');
    });
  });
}

/**
 * Removes a stale lock so the next attempt can take it. Several starters may find the same stale
 * file; only the one that creates the takeover marker named after that very file removes it, so
 * none can remove a lock another has just published in its place. Returns false when another
 * starter is taking over (it, or whoever links first, becomes the supervisor).
 */
function removeStale(name: string): boolean {
  const stale = identity(name);
  if (stale === undefined) return true;
  const marker = `${name}.${stale}.takeover`;
  try {
    writeFileSync(marker, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = modifiedAt(marker);
    // Its age by the wall clock, the only clock two processes share; a marker from the future
    // (the clock was set back since) is as abandoned as an old one, or it would hold for hours.
    const age = since === undefined ? undefined : Date.now() - since;
    if (age !== undefined && age >= -CLOCK_SLACK_MS && age < ABANDONED_TAKEOVER_MS) return false;
    rmSync(marker, { force: true });
    return true;
  }
  try {
    if (identity(name) === stale) unlinkSync(name);
    return true;
  } finally {
    rmSync(marker, { force: true });
  }
}

/** Inode and change time: the same pair means the same file, even if the inode number is reused. */
function identity(path: string): string | undefined {
  let stat: BigIntStats;
  try {
    stat = lstatSync(path, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return `${stat.ino}-${stat.ctimeNs}`;
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function release(server: Server, name: string): void {
  rmSync(name, { force: true });
  server.close();
}
