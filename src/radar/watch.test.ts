import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Conflict } from '../api/conflicts.js';
import type { SessionWithProject } from '../store/sessions.js';
import { ConflictRadar } from './radar.js';
import { AgentTeller } from './tell.js';
import { numbered, RadarFixture } from './testing.js';
import { RadarWatch, type Timers } from './watch.js';

/** Timers the test fires by hand: nothing waits on the wall clock. */
class ManualTimers implements Timers {
  private next = 1;
  readonly pending = new Map<number, { callback: () => void; ms: number }>();
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { callback, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Fires every timer set for `ms`. */
  fire(ms: number): void {
    for (const [id, timer] of [...this.pending]) {
      if (timer.ms !== ms) continue;
      this.pending.delete(id);
      timer.callback();
    }
  }
}

let f: RadarFixture;
beforeEach(() => (f = new RadarFixture({ 'a.txt': numbered(20) })));
afterEach(() => f.cleanup());

describe('when the radar runs', () => {
  it('passes soon after the start, then on session events coalesced into one pass of the changed sessions, then on its period; and stops on close', async () => {
    const passes: (string[] | undefined)[] = [];
    const radar = new ConflictRadar({ sessions: f, bus: f.bus });
    const pass = radar.pass.bind(radar);
    let done: Promise<unknown> = Promise.resolve();
    radar.pass = (fresh?: Iterable<string>) => {
      passes.push(fresh === undefined ? undefined : [...fresh].sort());
      const p = pass(fresh);
      done = p;
      return p;
    };
    const timers = new ManualTimers();
    const signals = new EventEmitter<{ event: [string, { type: string }] }>();
    const watch = new RadarWatch(radar, { debounceMs: 300, intervalMs: 30_000, firstPassMs: 3_000, timers });
    watch.start(signals, f.bus);
    expect(passes).toEqual([]);
    timers.fire(3_000);
    expect(passes).toEqual([undefined]);
    await done;

    signals.emit('event', 's1', { type: 'tool.finished' });
    signals.emit('event', 's2', { type: 'turn.completed' });
    signals.emit('event', 's1', { type: 'message.added' });
    signals.emit('event', 's3', { type: 'thinking.added' });
    expect([...timers.pending.values()].map((t) => t.ms).sort()).toEqual([300, 30_000]);
    timers.fire(300);
    await done;
    expect(passes).toEqual([undefined, ['s1', 's2']]);

    timers.fire(30_000);
    await done;
    expect(passes).toEqual([undefined, ['s1', 's2'], undefined]);

    watch.close();
    signals.emit('event', 's1', { type: 'tool.finished' });
    expect(timers.pending.size).toBe(0);
    expect(signals.listenerCount('event')).toBe(0);
  });
});

describe('telling the agents', () => {
  const conflict = (a: SessionWithProject, b: SessionWithProject): Conflict => ({
    key: `${a.id}:${b.id}`,
    project: 'repo',
    projectRoot: f.repo,
    level: 'hot',
    a: { kind: 'session', sessionId: a.id, name: a.name, branch: a.branch },
    b: { kind: 'session', sessionId: b.id, name: b.name, branch: b.branch },
    mergeBase: 'x',
    files: [
      {
        path: 'a.txt',
        level: 'hot',
        overlapping: true,
        mergeConflict: true,
        a: { hunks: [{ start: 3, count: 1 }], diff: '+a', binary: false },
        b: { hunks: [{ start: 3, count: 2 }], diff: '+b', binary: false },
      },
    ],
    note: null,
  });

  it('delivers at once to a running idle session, holds it while a session asks a question or is not running, and drops it when the pair cools', () => {
    const one = f.session('one');
    const two = f.session('two');
    const states = new Map<string, { state: string; running: boolean }>([
      [one.id, { state: 'ready_for_review', running: true }],
      [two.id, { state: 'needs_input', running: true }],
    ]);
    const sent: { id: string; text: string; clientId: string | undefined }[] = [];
    const teller = new AgentTeller(
      {
        get: (id) => ({ ...f.store.get(id)!, state: states.get(id)!.state as SessionWithProject['state'] }),
        isRunning: (s) => states.get(s.id)!.running,
        reply: async (id, text, _cwd, clientId) => void sent.push({ id, text, clientId }),
      },
      () => ({ radar: { tellAgents: true } }),
    );
    const c = conflict(one, two);
    teller.afterPass([c], [c]);
    expect(sent.map((s) => s.id)).toEqual([one.id]);
    expect(sent[0]!.text).toMatch(
      /two \(branch baton\/two\)[\s\S]*a\.txt: your lines 3; theirs 3-4[\s\S]*\+b/,
    );
    expect(teller.waiting(two.id)).toBe(1);

    // The question answered, the session works on: the message goes, after the running turn (the host queues it).
    states.set(two.id, { state: 'working', running: true });
    teller.afterPass([], [c]);
    expect(sent.map((s) => s.id)).toEqual([one.id, two.id]);
    expect(sent[1]!.text).toMatch(/one \(branch baton\/one\)[\s\S]*\+a/);

    // A stopped session is not woken; and once the pair is no longer hot, the message is dropped.
    states.set(two.id, { state: 'stopped', running: false });
    teller.afterPass([c], [c]);
    expect(teller.waiting(two.id)).toBe(1);
    teller.afterPass([], []);
    expect(teller.waiting(two.id)).toBe(0);
    // The same conflict told twice carries the same client id: the host applies it once.
    expect(sent[2]!.clientId).toBe(sent[0]!.clientId);
  });

  it('tells nobody when the repository does not ask for it', () => {
    const one = f.session('one');
    const two = f.session('two');
    const sent: string[] = [];
    const teller = new AgentTeller(
      { get: (id) => f.store.get(id), isRunning: () => true, reply: async (id) => void sent.push(id) },
      () => ({}),
    );
    const c = conflict(one, two);
    teller.afterPass([c], [c]);
    expect(sent).toEqual([]);
  });

  it("tells nobody, and goes on, when the repository's config cannot be read", () => {
    const one = f.session('one');
    const two = f.session('two');
    const sent: string[] = [];
    const teller = new AgentTeller(
      { get: (id) => f.store.get(id), isRunning: () => true, reply: async (id) => void sent.push(id) },
      () => {
        throw new Error('.baton/config.json: radar: unknown key "tellAgent"');
      },
    );
    const c = conflict(one, two);
    expect(() => teller.afterPass([c], [c])).not.toThrow();
    expect(sent).toEqual([]);
  });
});
