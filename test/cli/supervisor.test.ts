/**
 * Promises the supervisor makes about itself: it is reachable from this machine only, its token
 * is readable by its owner only, and stopping it leaves the sessions it ran running.
 */
import { readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { isProcessAlive } from '../../src/shared/process.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const port = (): number =>
  (JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as { port: number }).port;

/** Local addresses listening on `port`, from the kernel's socket tables (hex, as /proc shows them). */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // local_address is field 1 ("ADDR:PORT"), st is field 3; 0A is LISTEN.
      .filter((fields) => fields[3] === '0A' && fields[1]?.endsWith(`:${hexPort}`))
      .map((fields) => fields[1]!.split(':')[0]!),
  );
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the supervisor', () => {
  it('listens on 127.0.0.1 only, and keeps its token in a file only its owner can read', async () => {
    await t.ok(['daemon', 'start']);
    // 127.0.0.1 is 0100007F in /proc's byte order; 0.0.0.0 or :: would be every interface.
    expect(listeners(port())).toEqual(['0100007F']);
    const elsewhere = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const address of elsewhere) expect(await accepts(address, port()), address).toBe(false);
    expect(await accepts('127.0.0.1', port())).toBe(true);

    expect(statSync(join(t.home, 'token')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(t.home, 'token'), 'utf8').trim()).toMatch(/^\S{20,}$/);
  });

  it('stops on `daemon stop` leaving running sessions running, and the next one re-attaches them', async () => {
    const script = t.script([
      { ask: 'carry on?' },
      { write: { path: 'after.txt', content: 'finished after the restart\n' } },
    ]);
    const session = await t.json<SessionView>(['dispatch', 'x', '--name', 'keeper', '--script', script], {
      cwd: repo,
    });
    const waiting = await t.waitForState('keeper', 'needs_input');
    const supervisor = t.supervisorPid();

    const said = await t.ok(['daemon', 'stop']);
    expect(said).toContain(`Supervisor stopped (pid ${supervisor})`);
    expect(isProcessAlive(supervisor)).toBe(false);
    expect(isProcessAlive(waiting.hostPid!)).toBe(true);
    const status = await t.run(['daemon', 'status', '--json']);
    expect(status.code).toBe(6);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: false });

    // Any command starts a new supervisor, which finds the host still there and talks to it.
    const peek = await t.json<{ session: SessionView }>(['peek', 'keeper']);
    expect(t.supervisorPid()).not.toBe(supervisor);
    expect(peek.session).toMatchObject({ state: 'needs_input', running: true, hostPid: waiting.hostPid });
    await t.ok(['reply', 'keeper', 'yes']);
    const done = await t.waitForState('keeper', 'ready_for_review');
    expect(readFileSync(join(session.worktree, 'after.txt'), 'utf8')).toBe('finished after the restart\n');
    const started = (await t.ok(['logs', 'keeper', '--json']))
      .split('\n')
      .filter((line) => line.includes('"session.started"'));
    expect(started).toHaveLength(1);
    expect(done.hostPid).toBe(waiting.hostPid);
  });
});
