import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHostAlive } from './host-client.js';

let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-alive-'))));
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A process whose command line is a spare host's: `node host-main.js <home> --warm`. */
async function spareOf(home: string): Promise<number> {
  const entry = join(dir, 'host-main.js');
  writeFileSync(entry, "process.stdout.write('up'); setInterval(() => undefined, 1000);");
  const started = spawn(process.execPath, [entry, home, '--warm'], { stdio: ['ignore', 'pipe', 'inherit'] });
  child = started;
  await new Promise((resolve) => started.stdout?.once('data', resolve));
  return started.pid ?? -1;
}

describe('whether a recorded host is alive', () => {
  it('counts the spare host a session was handed to, before its command line names the session', async () => {
    const home = join(dir, 'home');
    const pid = await spareOf(home);
    // A supervisor killed just after handing its spare the session: the next one must not write it off.
    expect(isHostAlive(pid, 'abc123', home)).toBe(true);
    // Only a spare of the same home, and only when asked about spares.
    expect(isHostAlive(pid, 'abc123', join(dir, 'other'))).toBe(false);
    expect(isHostAlive(pid, 'abc123')).toBe(false);
  });

  it('does not count a live process that is no host, nor a dead one', () => {
    expect(isHostAlive(process.pid, 'abc123', dir)).toBe(false);
    expect(isHostAlive(null, 'abc123', dir)).toBe(false);
  });
});
