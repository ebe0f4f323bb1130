import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimSession, claimant, releaseClaim } from './host-claim.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-claim-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited: a claim left by a host killed -9. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

describe("a host's claim on its session", () => {
  it('is taken by the first host and refused to a second while the first lives', () => {
    claimSession(dir);
    expect(claimant(dir)).toBe(process.pid);
    // Another live process holds it: this process's parent stands in for a first host.
    writeFileSync(join(dir, 'host.lock'), String(process.ppid));
    expect(() => claimSession(dir)).toThrow(/already has a host \(pid \d+\)/);
    expect(claimant(dir)).toBe(process.ppid);
  });

  it('is taken over from a host that is gone, and released only by its holder', () => {
    writeFileSync(join(dir, 'host.lock'), String(deadPid()));
    claimSession(dir);
    expect(readFileSync(join(dir, 'host.lock'), 'utf8')).toBe(String(process.pid));
    releaseClaim(dir);
    expect(claimant(dir)).toBeUndefined();
    writeFileSync(join(dir, 'host.lock'), String(process.ppid));
    releaseClaim(dir);
    expect(claimant(dir)).toBe(process.ppid);
  });
});
