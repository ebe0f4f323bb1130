import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { alive, makeFolder, ownerUid, postmasterOf } from './postgres-folders.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { serverUser } from './postgres-user.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A private folder of the test's own, as the harness makes them (0700, the server's user's). */
function privateFolder(): string {
  const root = makeFolder(tmpdir(), 'baton-pg-test-', serverUser());
  roots.push(root);
  return root;
}

async function query<T>(url: string, sql: string): Promise<T | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T | undefined;
  } finally {
    await client.end();
  }
}

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(child.pid ?? 0));
  });
}

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('the test PostgreSQL', () => {
  test('two servers start from one template on their own sockets, each takes queries, and stop removes them', async () => {
    const [a, b] = await Promise.all([startPostgres(), startPostgres()]);
    try {
      expect(a.port).not.toBe(b.port);
      for (const server of [a, b]) {
        const row = await query<{ version: string; db: string }>(
          await server.database('probe'),
          'SELECT version(), current_database() AS db',
        );
        expect(row?.db).toBe('probe');
        expect(row?.version).toMatch(/^PostgreSQL \d+/);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(existsSync(a.dir)).toBe(false);
    await expect(query(a.url, 'SELECT 1')).rejects.toThrow(/ENOENT/);
    await a.stop(); // twice is fine
  });

  test('a server listens on no TCP address, only on a socket in its own 0700 folders that only its user can reach', async () => {
    const server = await startPostgres();
    try {
      expect(await query(server.url, 'SHOW listen_addresses')).toEqual({ listen_addresses: '' });
      const tcp = new pg.Client({
        host: '127.0.0.1',
        port: server.port,
        user: 'postgres',
        database: 'postgres',
        connectionTimeoutMillis: 5_000,
      });
      await expect(tcp.connect()).rejects.toThrow(/ECONNREFUSED/);
      await tcp.end().catch(() => {});
      for (const dir of [join(server.dir, '..'), server.dir, server.socketDir]) {
        expect(mode(dir)).toBe('700');
        expect(statSync(dir).uid).toBe(ownerUid(serverUser()));
      }
      expect(mode(join(server.socketDir, `.s.PGSQL.${server.port}`))).toBe('700');
      expect(await query(server.url, "SELECT current_setting('unix_socket_permissions') AS p")).toEqual({
        p: '0700',
      });
    } finally {
      await server.stop();
    }
  });

  test('a template another hand changed (mode 755, a planted setting) is not reused but made again', async () => {
    const root = privateFolder();
    await (await startPostgres({ root })).stop();
    const [template] = readdirSync(root).filter((name) => name.startsWith('template-'));
    expect(template).toBeDefined();
    const planted = join(root, template ?? '');
    appendFileSync(join(planted, 'postgresql.conf'), "\nbaton.planted = 'yes'\n");
    chmodSync(planted, 0o755);
    const server = await startPostgres({ root });
    try {
      expect(await query(server.url, "SELECT current_setting('baton.planted', true) AS planted")).toEqual({
        planted: null,
      });
      expect(mode(planted)).toBe('700');
    } finally {
      await server.stop();
    }
  });

  test('a server left by a test process that died is stopped and removed by the next start; a live one is kept', async () => {
    const root = privateFolder();
    const left: TestPostgres = await startPostgres({ root, ownerPid: await deadPid() });
    const postmaster = postmasterOf(left.socketDir);
    expect(postmaster).toBeDefined();
    expect(alive(postmaster ?? 0)).toBe(true);
    const next = await startPostgres({ root });
    try {
      expect(existsSync(left.dir)).toBe(false);
      expect(alive(postmaster ?? 0)).toBe(false);
      await expect(query(left.url, 'SELECT 1')).rejects.toThrow(/ENOENT/);
      const third = await startPostgres({ root });
      await third.stop();
      expect(await query(next.url, 'SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await next.stop();
    }
  });
});
