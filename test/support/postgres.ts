/**
 * Test harness: a real, throwaway PostgreSQL server. The first call in a test run initdb's a
 * template (keyed by the server's version and the run); every call copies it and starts the copy
 * — a fraction of a second against 1–3 s for a fresh initdb. Everything started is stopped by its
 * pid, and servers left by a test process that died are stopped by the next start.
 *
 * Isolation on a machine shared with other users: the server listens on no TCP address
 * (`listen_addresses=''`), only on a Unix socket inside its own data folder, which like every
 * folder here is 0700 and owned by the server's user in a private per-user folder checked before
 * use (see postgres-folders.ts). Only that user (and root) can reach the socket, which is why
 * `trust` authentication is safe; TCP lines in pg_hba.conf say `reject` should TCP ever be
 * switched on.
 *
 * PostgreSQL refuses to run as root, so under root a created system user (`baton-test`, no login
 * shell, no home) owns the data and runs the server; root still reaches its socket.
 */
import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { findPostgres, type FoundPostgres } from '../../scripts/postgres.mjs';
import {
  ensureTemplate,
  folderProblem,
  makeFolder,
  ownerUid,
  privateRoot,
  recordedPostmaster,
  sweepLeftovers,
  type ServerUser,
} from './postgres-folders.js';
import { serverUser } from './postgres-user.js';

export { TEST_USER } from './postgres-user.js';

export interface TestPostgres {
  /** A superuser URL to the `postgres` database, over the server's Unix socket. */
  readonly url: string;
  /** The port number in the socket's name (`.s.PGSQL.<port>`); nothing listens on it over TCP. */
  readonly port: number;
  /** The folder holding the server's data and socket (deleted by stop()). */
  readonly dir: string;
  /** The folder holding the Unix socket (the data folder). */
  readonly socketDir: string;
  /** A superuser URL to `database` on this server (which need not exist). */
  urlFor(database: string): string;
  /** Creates an empty database and returns its URL: one per test keeps tests apart cheaply. */
  database(name?: string): Promise<string>;
  /** Stops the server (immediately) and deletes its data. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The private folder to use instead of this user's (tests of the harness itself). */
  root?: string;
  /** The test process that owns the server: when it is dead, the next start stops the server. */
  ownerPid?: number;
}

/** One server for the test file: started before its tests, stopped after them. */
export function postgresForFile(): () => TestPostgres {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined)
      throw new Error('postgresForFile(): the server is started in beforeAll; use it inside a test');
    return server;
  };
}

export async function startPostgres(options: StartOptions = {}): Promise<TestPostgres> {
  const bins = findPostgres();
  if (bins === undefined)
    throw new Error(
      'No PostgreSQL server binaries found; run `node scripts/postgres.mjs` to install them or see what to install.',
    );
  const user = serverUser();
  const root = options.root ?? privateRoot(user);
  await sweepLeftovers(root, (data, postmaster) => stopServer(bins, user, data, postmaster));
  const template = ensureTemplate(root, version(bins), user, (data) => initdb(bins, user, data));
  const dir = makeFolder(root, `server-${options.ownerPid ?? process.pid}-`, user);
  const data = join(dir, 'data');
  // cp -a keeps the template's owner and mode; half the time of fs.cpSync here (~1,000 small files).
  await run(undefined, 'cp', ['-a', template, data]);
  const problem = folderProblem(data, ownerUid(user));
  if (problem !== undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `The test PostgreSQL's data folder ${data} is not private (${problem}); its socket would be open to others.`,
    );
  }
  // pg_ctl hands these to a shell, hence the quotes. The port only names the socket; a free TCP
  // one keeps `port` unique, though nothing listens on it.
  const port = await freePort();
  const settings = [
    '-c fsync=off',
    "-c listen_addresses=''",
    `-c unix_socket_directories='${data}'`,
    '-c unix_socket_permissions=0700',
    `-p ${port}`,
  ];
  try {
    await run(user, bins.pgCtl, [
      '-D',
      data,
      '-o',
      settings.join(' '),
      '-l',
      join(data, 'server.log'),
      '-w',
      '-t',
      '30',
      'start',
    ]);
  } catch (error) {
    await stopServer(bins, user, data, recordedPostmaster(data));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const urlFor = (database: string): string =>
    `postgres:///${encodeURIComponent(database)}?host=${encodeURIComponent(data)}&port=${port}&user=postgres`;
  const url = urlFor('postgres');
  let stopped: Promise<void> | undefined;
  let databases = 0;
  return {
    url,
    port,
    dir,
    socketDir: data,
    urlFor,
    async database(name = `test_${++databases}`) {
      const client = new pg.Client(url);
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return urlFor(name);
    },
    stop() {
      stopped ??= stopServer(bins, user, data, recordedPostmaster(data)).finally(() =>
        rmSync(dir, { recursive: true, force: true }),
      );
      return stopped;
    },
  };
}

/**
 * Stops the server immediately; kills the postmaster if pg_ctl could not. `postmaster` is this
 * server's: recorded by a server this process started, or confirmed by the sweep.
 */
async function stopServer(
  bins: FoundPostgres,
  user: ServerUser | undefined,
  data: string,
  postmaster: number | undefined,
): Promise<void> {
  if (postmaster === undefined) return;
  try {
    await run(user, bins.pgCtl, ['-D', data, '-m', 'immediate', '-w', '-t', '10', 'stop']);
  } catch {
    try {
      process.kill(postmaster, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function initdb(bins: FoundPostgres, user: ServerUser | undefined, data: string): void {
  // Local (socket) connections trusted, TCP ones rejected; 1 MB WAL segments instead of 16: a
  // smaller folder to copy for every server.
  const args = [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth-local=trust',
    '--auth-host=reject',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
    '--wal-segsize=1',
  ];
  execFileSync(
    user === undefined ? bins.initdb : 'runuser',
    user === undefined ? args : ['-u', user.name, '--', bins.initdb, ...args],
    { stdio: 'pipe' },
  );
}

function version(bins: FoundPostgres): string {
  return (
    /\d+(\.\d+)*/.exec(execFileSync(bins.postgres, ['--version'], { encoding: 'utf8' }))?.[0] ?? 'unknown'
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a binary (as `user` when given), rejecting with its output when it fails. */
function run(user: ServerUser | undefined, file: string, args: string[]): Promise<string> {
  const [command, argv] =
    user === undefined ? [file, args] : ['runuser', ['-u', user.name, '--', file, ...args]];
  return new Promise((resolve, reject) => {
    execFile(command, argv, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || stdout || error.message}`));
    });
  });
}
