import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryAdmission, type AdmissionSession } from './admission.js';
import { Footprints } from './footprints.js';
import { procMemory, readAvailableMb, type MemorySource } from './memory.js';
import { openDb, type Db } from '../store/db.js';
import { MemoryFootprintStore } from '../store/memory-footprints.js';

/** A machine of `available` MB whose hosts hold what `trees` says (pid → MB). */
function machine(available: number | undefined, trees: Map<number, number> = new Map()): MemorySource {
  return {
    availableMb: () => available,
    treesMb: (pids) => new Map(pids.flatMap((p) => (trees.has(p) ? [[p, trees.get(p)!]] : []))),
  };
}

function admission(source: MemorySource, atWork: AdmissionSession[], clock = { now: 0 }): MemoryAdmission {
  return new MemoryAdmission({
    source,
    enabled: true,
    reserveMb: 500,
    footprintMb: {},
    atWork: () => atWork,
    live: () => atWork,
    clock: () => clock.now,
  });
}

describe('memory admission', () => {
  it('holds a session whose footprint the free memory does not cover, with the figures', () => {
    const atWork = [{ id: 'a', agent: 'claude', hostPid: null }];
    // 2000 available − 500 reserve − 1000 the unmeasured claude session may take = 500 < 1000.
    expect(admission(machine(2000), atWork).holds({ agent: 'claude' })).toBe(
      'waiting for memory: 500 MB free, needs ~1.0 GB',
    );
    // A codex session (350 MB by default) fits in the same 500 MB.
    expect(admission(machine(2000), atWork).holds({ agent: 'codex' })).toBeUndefined();
  });

  it('counts what a measured session already holds as taken, and only its growth as still to come', () => {
    const atWork = [{ id: 'a', agent: 'claude', hostPid: 7 }];
    // Measured at 900 MB (inside MemAvailable already): it may grow 100 MB more; 2000 − 500 − 100 ≥ 1000.
    expect(admission(machine(2000, new Map([[7, 900]])), atWork).holds({ agent: 'claude' })).toBeUndefined();
  });

  it('lets the first session start whatever the figures, and stays out of the way where memory is unknown', () => {
    expect(admission(machine(100), []).holds({ agent: 'claude' })).toBeUndefined();
    const atWork = [{ id: 'a', agent: 'claude', hostPid: null }];
    expect(admission(machine(undefined), atWork).holds({ agent: 'claude' })).toBeUndefined();
  });

  it('learns a kind’s footprint from the peaks of its sessions once they have been measured a few times', () => {
    const trees = new Map([[7, 300]]);
    const clock = { now: 0 };
    const atWork = [{ id: 'a', agent: 'codex', hostPid: 7 }];
    const m = admission(machine(8000, trees), atWork, clock);
    expect(m.footprints.typical('codex')).toEqual({ mb: 350, source: 'default' });
    for (const mb of [300, 420, 380]) {
      trees.set(7, mb);
      clock.now += 5000;
      m.sample();
    }
    expect(m.footprints.typical('codex')).toEqual({ mb: 420, source: 'measured' });
    expect(m.sessionMb('a')).toBe(380);
    // Its host gone: the peak stays in the kind's history.
    atWork.length = 0;
    clock.now += 5000;
    m.sample();
    expect(m.footprints.typical('codex')).toEqual({ mb: 420, source: 'measured' });
  });

  it('prefers the user’s figure over a measured one', () => {
    const f = new Footprints({ claude: 1500 });
    for (let i = 0; i < 5; i++) f.record('s', 'claude', 400);
    expect(f.typical('claude')).toEqual({ mb: 1500, source: 'setting' });
  });
});

describe('the kernel’s figures', () => {
  it('reads MemAvailable from a meminfo file, and nothing from a file without it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'meminfo-'));
    writeFileSync(join(dir, 'a'), 'MemTotal: 100 kB\nMemAvailable:    2097152 kB\n');
    writeFileSync(join(dir, 'b'), 'MemTotal: 100 kB\n');
    expect(readAvailableMb(join(dir, 'a'))).toBe(2048);
    expect(readAvailableMb(join(dir, 'b'))).toBeUndefined();
    expect(readAvailableMb(join(dir, 'missing'))).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    'reads the real /proc/meminfo, and nothing (without blocking or filling memory) from a FIFO, /dev/zero or a folder in BATON_MEMINFO',
    () => {
      expect(readAvailableMb('/proc/meminfo')).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'meminfo-'));
      // A FIFO with no writer: a plain read of it blocks the supervisor's loop for ever.
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      expect(readAvailableMb(join(dir, 'fifo'))).toBeUndefined();
      expect(readAvailableMb('/dev/zero')).toBeUndefined();
      expect(readAvailableMb(dir)).toBeUndefined();
      // A huge file with the figure far past its start: only the start is read.
      writeFileSync(join(dir, 'big'), `${'x'.repeat(1024 * 1024)}\nMemAvailable: 1024 kB\n`);
      expect(readAvailableMb(join(dir, 'big'))).toBeUndefined();
    },
  );

  it.runIf(process.platform === 'linux')('measures a real process tree, children included', async () => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      await once(child.stdout, 'data');
      const trees = procMemory().treesMb([process.pid, child.pid!]);
      const own = trees.get(process.pid)!;
      const alone = trees.get(child.pid!)!;
      expect(alone).toBeGreaterThan(5);
      // This process's tree holds the child too.
      expect(own).toBeGreaterThan(alone);
    } finally {
      child.kill();
    }
  });
});

describe('learnt footprints across a restart (decision 308)', () => {
  it('keeps each finished session’s peak in the store, so a new supervisor admits by what it measured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-footprints-'));
    const path = join(dir, 'baton.db');
    const trees = new Map([[7, 300]]);
    const clock = { now: 0 };
    let atWork = [{ id: 'a', agent: 'codex', hostPid: 7 }];
    const open = (db: Db) =>
      new MemoryAdmission({
        source: machine(8000, trees),
        enabled: true,
        reserveMb: 500,
        history: new MemoryFootprintStore(db),
        atWork: () => atWork,
        live: () => atWork,
        clock: () => clock.now,
      });
    const first = openDb(path);
    const m = open(first);
    for (const mb of [300, 620, 380]) {
      trees.set(7, mb);
      clock.now += 5000;
      m.sample();
    }
    // The host is gone: its peak is learnt, and kept.
    atWork = [];
    clock.now += 5000;
    m.sample();
    expect(m.footprints.typical('codex')).toEqual({ mb: 620, source: 'measured' });
    first.close();

    const second = openDb(path);
    expect(open(second).footprints.typical('codex')).toEqual({ mb: 620, source: 'measured' });
    // Without the store (the old behaviour), a restart fell back to the default.
    expect(new Footprints().typical('codex')).toEqual({ mb: 350, source: 'default' });
    second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps only the newest sessions of a kind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-footprints-'));
    const db = openDb(join(dir, 'baton.db'));
    const store = new MemoryFootprintStore(db);
    for (let i = 0; i < 14; i++)
      store.add(`s${i}`, 'claude', 100 + i, 3, 10, new Date(Date.UTC(2026, 0, 1, 0, i)));
    store.add('c1', 'codex', 50, 3, 10);
    const recent = store.recent(10);
    expect(recent.get('claude')).toEqual([104, 105, 106, 107, 108, 109, 110, 111, 112, 113]);
    expect(recent.get('codex')).toEqual([50]);
    expect((db.prepare('SELECT COUNT(*) AS n FROM memory_footprints').get() as { n: number }).n).toBe(11);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
