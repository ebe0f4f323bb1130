import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimSession, claimant, releaseClaim } from './host-claim.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-claim-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited: a claim left by a host killed -9. */
function deadPid(): number {
  return Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
      .stdout,
  );
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

  it('is never taken from a host that has created it but not yet written its pid', () => {
    // What a second host saw when the claim was made in two steps (create, then write the pid):
    // it took the empty claim for stale, removed it and claimed too, and two hosts ran one session.
    writeFileSync(join(dir, 'host.lock'), '');
    expect(() => claimSession(dir)).toThrow(/names no host/);
    expect(readFileSync(join(dir, 'host.lock'), 'utf8')).toBe('');
    expect(readdirSync(dir)).toEqual(['host.lock']);
  });

  it('goes to exactly one of many hosts claiming at once, and always holds its pid', async () => {
    const built = fileURLToPath(new URL('../../dist/sessions/host-claim.js', import.meta.url));
    expect(existsSync(built), 'run `npm run build` first').toBe(true);
    const go = join(dir, 'go');
    const end = join(dir, 'end');
    // Each claimer spins until the go file appears, then claims; it prints "won" or "lost", and
    // stays alive until the end file appears (a winner that exited would leave a stale claim,
    // which a slower claimer then rightly takes over).
    const program = `
      const { existsSync } = require('node:fs');
      import(${JSON.stringify(built)}).then(({ claimSession, claimant }) => {
        process.stdout.write('ready\\n');
        while (!existsSync(${JSON.stringify(go)}));
        try { claimSession(${JSON.stringify(dir)}); process.stdout.write(claimant(${JSON.stringify(dir)}) === process.pid ? 'won\\n' : 'bad\\n'); }
        catch { process.stdout.write('lost\\n'); }
        const wait = setInterval(() => { if (existsSync(${JSON.stringify(end)})) clearInterval(wait); }, 10);
      });`;
    const claimers = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] }),
    );
    const outputs = claimers.map((child) => {
      let out = '';
      child.stdout.setEncoding('utf8');
      const ready = new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: string) => ((out += chunk), out.includes('ready') && resolve())),
      );
      const answered = new Promise<string>((resolve) =>
        child.stdout.on(
          'data',
          () => /(won|lost|bad)\n/.test(out) && resolve(out.replace('ready\n', '').trim()),
        ),
      );
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      return { ready, answered, exited };
    });
    await Promise.all(outputs.map((o) => o.ready));
    writeFileSync(go, '');
    const results = await Promise.all(outputs.map((o) => o.answered));
    writeFileSync(end, '');
    await Promise.all(outputs.map((o) => o.exited));
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(5);
    // The winner has exited, leaving its claim (it did not release it) and nothing else.
    expect(readdirSync(dir).sort()).toEqual(['end', 'go', 'host.lock']);
  });
});
