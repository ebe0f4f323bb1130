/** The lock's takeover marker under a clock that jumps: a marker "from the future" is not honoured for hours. */
import { existsSync, linkSync, lstatSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from './lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A lock socket whose holder is gone: a socket file nothing listens on (connect: ECONNREFUSED). */
async function staleLock(path: string): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(dir, 'holder.sock'), resolve));
  linkSync(join(dir, 'holder.sock'), path);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The marker a starter that died mid-takeover leaves, dated `offsetMs` from now. */
function markerDated(path: string, offsetMs: number): string {
  const stat = lstatSync(path, { bigint: true });
  const marker = `${path}.${stat.ino}-${stat.ctimeNs}.takeover`;
  writeFileSync(marker, '12345');
  const when = new Date(Date.now() + offsetMs);
  utimesSync(marker, when, when);
  return marker;
}

describe('the supervisor lock when the clock jumps', () => {
  it('takes over a stale lock whose abandoned takeover marker is dated an hour ahead (the clock was set back)', async () => {
    const lock = join(dir, 'supervisor.sock');
    await staleLock(lock);
    const marker = markerDated(lock, 60 * 60_000);
    const taken = await acquireLock(lock);
    expect(taken).toBeDefined();
    expect(existsSync(marker)).toBe(false);
    taken?.release();
  });

  it('still leaves a marker made just now to the starter that made it', async () => {
    const lock = join(dir, 'supervisor.sock');
    await staleLock(lock);
    markerDated(lock, 0);
    expect(await acquireLock(lock)).toBeUndefined();
  });
});
