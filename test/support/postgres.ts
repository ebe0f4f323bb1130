/**
 * Test harness: a real, throwaway PostgreSQL server. The first call in a test run initdb's a
 * template (in the OS temp folder, keyed by the server's version and the run); every call copies
 * it and starts the copy on a free loopback port — a fraction of a second against 1–3 s for a
 * fresh initdb. PostgreSQL refuses to run as root, so under root a created system user
 * (`baton-test`) owns the data and runs the server. Everything started is stopped by its pid.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { findPostgres, type FoundPostgres } from '../../scripts/postgres.mjs';

/** The system user that runs the server when the tests run as root. */
export const TEST_USER = 'baton-test';

export interface TestPostgres {
  /** A superuser URL to the `postgres` database. */
  readonly url: string;
  readonly port: number;
  /** The folder holding the server's data, socket and log (deleted by stop()). */
  readonly dir: string;
  /** Creates an empty database and returns its URL: one per test keeps tests apart cheaply. */
  database(name?: string): Promise<string>;
  /** Stops the server (immediately) and deletes its data. Safe to call twice. */
  stop(): Promise<void>;
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
    if (server === undefined) throw new Error('postgresForFile(): the server is started in beforeAll; use it inside a test');
    return server;
  };
}

export async function startPostgres(): Promise<TestPostgres> {
  const bins = findPostgres();
  if (bins === undefined) throw new Error('No PostgreSQL server binaries found; run `node scripts/postgres.mjs` to install them or see what to install.');
  const user = serverUser();
  const template = ensureTemplate(bins, user);
  const root = mkdtempSync(join(tmpdir(), 'baton-pg-'));
  const data = join(root, 'data');
  // cp -a keeps the template's owner; half the time of fs.cpSync here (~1,000 small files).
  await run(undefined, 'cp', ['-a', template, data]);
  if (user !== undefined) execFileSync('chown', [`${user}:`, root]);
  let port = 0;
  // A free port can be taken by another process between choosing it and binding it: try again.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const options = `-c fsync=off -c listen_addresses=127.0.0.1 -p ${port} -k ${data}`;
    try {
      await run(user, bins.pgCtl, ['-D', data, '-o', options, '-l', join(data, 'server.log'), '-w', '-t', '30', 'start']);
      break;
    } catch (error) {
      await stopServer(bins, user, data);
      if (attempt === 3) {
        rmSync(root, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped: Promise<void> | undefined;
  let databases = 0;
  return {
    url,
    port,
    dir: root,
    async database(name = `test_${++databases}`) {
      const client = new pg.Client(url);
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop() {
      stopped ??= stopServer(bins, user, data).finally(() => rmSync(root, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/** Stops the server immediately; kills the postmaster by its pid if pg_ctl could not. */
async function stopServer(bins: FoundPostgres, user: string | undefined, data: string): Promise<void> {
  const pidFile = join(data, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    await run(user, bins.pgCtl, ['-D', data, '-m', 'immediate', '-w', '-t', '10', 'stop']);
  } catch {
    try {
      if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * The template for this run and version, made once: initdb into a private folder, then renamed
 * into place, so two test files racing to make it never see a half-made one. Templates of runs
 * that have ended are deleted on the way.
 */
function ensureTemplate(bins: FoundPostgres, user: string | undefined): string {
  const version = /\d+(\.\d+)*/.exec(execFileSync(bins.postgres, ['--version'], { encoding: 'utf8' }))?.[0] ?? 'unknown';
  const run = runId();
  const prefix = 'baton-pg-template-';
  const template = join(tmpdir(), `${prefix}${version}-${run}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  sweepTemplates(prefix);
  const building = mkdtempSync(join(tmpdir(), `${prefix}building-`));
  const data = join(building, 'data');
  if (user !== undefined) execFileSync('chown', [`${user}:`, building]);
  // 1 MB WAL segments instead of 16: a smaller folder to copy for every server.
  const initdb = ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync', '--wal-segsize=1'];
  execFileSync(user === undefined ? bins.initdb : 'runuser', user === undefined ? initdb : ['-u', user, '--', bins.initdb, ...initdb], { stdio: 'pipe' });
  try {
    renameSync(data, template);
  } catch (error) {
    // Another file of this run made it first: use theirs.
    if (!existsSync(join(template, 'PG_VERSION'))) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/** Vitest's main process (the forks pool's workers are its children): one id per test run. */
function runId(): number {
  return process.env.VITEST_POOL_ID === undefined ? process.pid : process.ppid;
}

function sweepTemplates(prefix: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(prefix) || name.startsWith(`${prefix}building-`)) continue;
    const pid = Number(name.slice(name.lastIndexOf('-') + 1));
    if (Number.isInteger(pid) && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Under root, the created user that owns the data and runs the server; otherwise none. */
function serverUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    execFileSync('id', ['-u', TEST_USER], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', TEST_USER], { stdio: 'pipe' });
    } catch (error) {
      // Two test files may race to create it; only a user that is still missing is a failure.
      execFileSync('id', ['-u', TEST_USER], { stdio: 'ignore' });
      void error;
    }
  }
  return TEST_USER;
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
function run(user: string | undefined, file: string, args: string[]): Promise<string> {
  const [command, argv] = user === undefined ? [file, args] : ['runuser', ['-u', user, '--', file, ...args]];
  return new Promise((resolve, reject) => {
    execFile(command, argv, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || stdout || error.message}`));
    });
  });
}
