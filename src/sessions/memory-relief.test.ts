/**
 * Memory pressure (decision 309) with an injected memory reader: free memory below the reserve
 * lets resting agents go, idlest first and one at a time, never a working one, and says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { MemoryAdmission, type MemorySource } from '../capacity/index.js';
import { openDb, type Db } from '../store/db.js';
import type { SessionWithProject } from '../store/sessions.js';
import { MemoryRelief } from './memory-relief.js';

let dir: string;
let db: Db;
let bus: WorkspaceBus;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-relief-'));
  db = openDb(join(dir, 'baton.db'));
  bus = new WorkspaceBus(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function session(id: string, state: string, lastEventAt: string, pinned = 0): SessionWithProject {
  return {
    id,
    name: id,
    project_name: 'repo',
    state,
    pinned,
    agent: 'claude',
    host_pid: Number(id.replace(/\D/g, '')) || 1,
    created_at: '2026-01-01T00:00:00Z',
    last_event_at: lastEventAt,
  } as unknown as SessionWithProject;
}

function setUp(sessions: SessionWithProject[], reserveMb = 500) {
  const machine = { available: 4000 };
  const source: MemorySource = {
    availableMb: () => machine.available,
    treesMb: (pids) => new Map(pids.map((p) => [p, 300 + p])),
  };
  const toAdmission = (s: SessionWithProject) => ({ id: s.id, agent: s.agent, hostPid: s.host_pid });
  const memory = new MemoryAdmission({
    source,
    enabled: true,
    reserveMb,
    atWork: () => sessions.filter((s) => s.state === 'working').map(toAdmission),
    live: () => sessions.map(toAdmission),
  });
  memory.sample();
  const released: string[] = [];
  const relief = new MemoryRelief({
    memory,
    bus,
    sessions: () => sessions,
    isRunning: () => true,
    release: (id) => {
      released.push(id);
      const s = sessions.find((x) => x.id === id)!;
      // Let go: its host is gone, its state kept.
      sessions.splice(sessions.indexOf(s), 1);
      return Promise.resolve(true);
    },
  });
  const events = (): { type: string; data: Record<string, unknown> }[] =>
    bus
      .list(0, 100)
      .map((e) => ({ type: e.type, data: JSON.parse(JSON.stringify(e.data)) as Record<string, unknown> }));
  return { machine, relief, released, events };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('memory pressure', () => {
  it('does nothing while free memory is above the reserve', async () => {
    const { relief, released, events } = setUp([session('r1', 'ready_for_review', '2026-01-01T01:00:00Z')]);
    relief.check();
    await settle();
    expect(released).toEqual([]);
    expect(events()).toEqual([]);
  });

  it('lets resting agents go idlest first, one a check, never a working or pinned one, and says so', async () => {
    const sessions = [
      session('w1', 'working', '2026-01-01T00:30:00Z'),
      session('r2', 'ready_for_review', '2026-01-01T02:00:00Z'),
      session('r3', 'ready_for_review', '2026-01-01T01:00:00Z'),
      session('p4', 'ready_for_review', '2026-01-01T00:10:00Z', 1),
      session('q5', 'needs_input', '2026-01-01T00:20:00Z'),
    ];
    const { machine, relief, released, events } = setUp(sessions);
    machine.available = 300;

    relief.check();
    await settle();
    expect(released).toEqual(['r3']);
    relief.check();
    await settle();
    expect(released).toEqual(['r3', 'r2']);
    // Only the pinned one, the working one and the one asking are left: none is let go.
    relief.check();
    await settle();
    expect(released).toEqual(['r3', 'r2']);
    expect(sessions.map((s) => s.id)).toEqual(['w1', 'p4', 'q5']);

    machine.available = 2000;
    relief.check();
    const seen = events();
    expect(seen.map((e) => e.type)).toEqual([
      'memory.pressure_began',
      'memory.host_released',
      'memory.host_released',
      'memory.pressure_ended',
    ]);
    expect(seen[0]!.data).toMatchObject({
      availableMb: 300,
      reserveMb: 500,
      atWork: [
        { name: 'w1', memoryMb: 301 },
        { name: 'q5', memoryMb: 305 },
      ],
    });
    expect(seen[0]!.data.message).toMatch(/working agents are not stopped \(w1 301 MB, q5 305 MB\)/);
    expect(seen[1]!.data).toMatchObject({ name: 'r3', memoryMb: 303 });
    expect(seen[3]!.data).toMatchObject({ availableMb: 2000 });
  });
});
