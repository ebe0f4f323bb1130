import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { makeEvent, type BatonEvent, type EventBody } from '../events/index.js';
import { setLogFile } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import { openDb, type Db } from '../store/db.js';
import { SessionStore } from '../store/sessions.js';
import { EventLogWriter } from './event-log.js';
import { Ingestor } from './ingest.js';
import { sessionRow } from '../../test/support/session-row.js';

let home: string;
let db: Db;
let store: SessionStore;
let bus: WorkspaceBus;
let ingestor: Ingestor;
let logFile: string;
const ID = 'sess-1';

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'baton-ingest-'));
  logFile = join(home, 'supervisor.log');
  setLogFile(logFile);
  db = openDb(join(home, 'baton.db'));
  store = new SessionStore(db);
  bus = new WorkspaceBus(db);
  ingestor = new Ingestor(home, db, store, bus);
  const project = store.ensureProject('/repo');
  store.insert(sessionRow({ id: ID, project_id: project.id, name: 'w', worktree: '/w' }), 'queued');
  mkdirSync(sessionPaths(home, ID).dir, { recursive: true });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

const line = (seq: number, body: EventBody): string => JSON.stringify(makeEvent(seq, body)) + '\n';
const write = (text: string): void => appendFileSync(sessionPaths(home, ID).events, text);
const stored = (): BatonEvent[] => ingestor.events.list(ID);
const warnings = (): string[] =>
  readFileSync(logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { level: string; msg: string })
    .filter((r) => r.level === 'warn')
    .map((r) => r.msg);

describe('ingestion', () => {
  it('stores each line once: reading again from the stored offset finds nothing new', () => {
    write(line(1, { type: 'state.changed', to: 'queued' }) + line(2, { type: 'turn.started' }));
    expect(ingestor.ingest(ID)).toBe(2);
    expect(ingestor.ingest(ID)).toBe(0);
    write(line(3, { type: 'turn.completed', outcome: 'success' }));
    expect(ingestor.ingest(ID)).toBe(1);
    expect(stored().map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('drops a repeated line: the store keeps the seq the file has, and says what it skipped', () => {
    const hello = line(2, { type: 'message.added', role: 'assistant', text: 'hello' });
    write(line(1, { type: 'state.changed', to: 'queued' }) + hello + hello);
    write(line(3, { type: 'turn.started' }));
    expect(ingestor.ingest(ID)).toBe(3);
    expect(stored().map((e) => [e.seq, e.type])).toEqual([
      [1, 'state.changed'],
      [2, 'message.added'],
      [3, 'turn.started'],
    ]);
    expect(stored().filter((e) => e.type === 'message.added')).toHaveLength(1);
    expect(warnings()).toContain('event log line skipped: its seq was already taken (a repeated line)');
    expect(store.get(ID)?.last_seq).toBe(3);
  });

  it('skips a line whose seq jumps ahead when the log goes on from the expected seq after it', () => {
    write(
      line(1, { type: 'state.changed', to: 'queued' }) +
        line(51, { type: 'message.added', role: 'assistant', text: 'injected' }),
    );
    for (let seq = 2; seq <= 31; seq++)
      write(line(seq, { type: 'message.added', role: 'assistant', text: `real ${seq}` }));
    expect(ingestor.ingest(ID)).toBe(31);
    expect(stored().map((e) => e.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(stored().some((e) => e.type === 'message.added' && e.text === 'injected')).toBe(false);
    expect(warnings()).toContain(
      'event log line skipped: its seq is out of place (the log goes on from the expected seq after it)',
    );
  });

  it('waits on a gap at the end of the log (said once), then skips the stray line when the next seq comes', () => {
    write(
      line(1, { type: 'state.changed', to: 'queued' }) +
        line(51, { type: 'message.added', role: 'assistant', text: 'forged' }),
    );
    expect(ingestor.ingest(ID)).toBe(1);
    expect(ingestor.ingest(ID)).toBe(0);
    expect(stored().map((e) => e.seq)).toEqual([1]);
    const waits = warnings().filter((w) => w.startsWith('event log gap: waiting'));
    expect(waits).toHaveLength(1);
    // The host writes its next event (its numbering is the log's sequence, not the forged line's).
    const writer = new EventLogWriter(sessionPaths(home, ID).events);
    writer.append({ type: 'turn.started' });
    writer.close();
    expect(ingestor.ingest(ID)).toBe(1);
    expect(stored().map((e) => [e.seq, e.type])).toEqual([
      [1, 'state.changed'],
      [2, 'turn.started'],
    ]);
  });

  it('takes a hole the writer went on past under the seqs the lines claim, and reports it', () => {
    write(
      line(1, { type: 'state.changed', to: 'queued' }) +
        line(5, { type: 'turn.started' }) +
        line(6, { type: 'turn.completed', outcome: 'success' }),
    );
    expect(ingestor.ingest(ID)).toBe(3);
    expect(stored().map((e) => e.seq)).toEqual([1, 5, 6]);
    expect(warnings()).toContain('event log has a hole: the writer went on past seqs never written');
  });

  it('keeps the whole event written after a torn one on the same line, and says so in the log', () => {
    const torn = line(2, { type: 'message.added', role: 'assistant', text: 'cut short' }).slice(0, 30);
    // The next writer numbers on from the last whole event: the torn one's seq is used again.
    write(line(1, { type: 'state.changed', to: 'queued' }) + torn + line(2, { type: 'turn.started' }));
    expect(ingestor.ingest(ID)).toBe(2);
    expect(stored().map((e) => [e.seq, e.type])).toEqual([
      [1, 'state.changed'],
      [2, 'turn.started'],
    ]);
    expect(warnings()).toContain('torn write in the event log: kept the whole event after the fragment');
  });

  it('reports a line that holds no event at all, and goes on past it', () => {
    write(
      line(1, { type: 'state.changed', to: 'queued' }) + 'not json\n' + line(2, { type: 'turn.started' }),
    );
    expect(ingestor.ingest(ID)).toBe(2);
    expect(warnings()).toContain('malformed event line skipped');
  });

  it("records the supervisor's own changes through the state machine, and publishes them on the bus", () => {
    ingestor.record(ID, { kind: 'queued' });
    ingestor.record(
      ID,
      { kind: 'stopped_by_user' },
      { after: [{ type: 'session.ended', reason: 'stopped' }] },
    );
    // Stopping again is not a move: nothing is written but what was asked for besides.
    ingestor.record(ID, { kind: 'stopped_by_user' });
    expect(stored().map((e) => (e.type === 'state.changed' ? `${e.from ?? ''}->${e.to}` : e.type))).toEqual([
      '->queued',
      'queued->stopped',
      'session.ended',
    ]);
    expect(store.get(ID)?.state).toBe('stopped');
    expect(bus.list().map((e) => (e.type === 'session.state_changed' ? e.data.to : e.type))).toEqual([
      'queued',
      'stopped',
    ]);
  });
});

describe('ingestion held for a batch (decision 448)', () => {
  it('stores everything first, then tells the listeners each event, in order, once the hold ends', () => {
    const heard: string[] = [];
    const storedWhenHeard: number[] = [];
    ingestor.on('event', (id, event) => {
      storedWhenHeard.push(store.get(ID)?.last_seq ?? 0);
      heard.push(`${id}:${event.seq}`);
    });
    ingestor.on('session', (id) => heard.push(`session ${id}`));
    ingestor.on('state', (id, before, after) => heard.push(`state ${id} ${before}->${after}`));
    write(line(1, { type: 'state.changed', to: 'queued' }) + line(2, { type: 'turn.started' }));
    const release = ingestor.hold();
    expect(ingestor.ingest(ID)).toBe(2);
    write(line(3, { type: 'state.changed', from: 'queued', to: 'working' }));
    expect(ingestor.ingest(ID)).toBe(1);
    expect(heard).toEqual([]);
    release();
    expect(heard).toEqual([
      `${ID}:1`,
      `${ID}:2`,
      `session ${ID}`,
      `${ID}:3`,
      `session ${ID}`,
      `state ${ID} queued->working`,
    ]);
    // A listener hears of an event only once everything held is stored.
    expect(storedWhenHeard).toEqual([3, 3, 3]);
    // Released: what comes next is heard at once, and a second release says nothing again.
    release();
    write(line(4, { type: 'turn.started' }));
    ingestor.ingest(ID);
    expect(heard.slice(6)).toEqual([`${ID}:4`, `session ${ID}`]);
  });

  it('a listener that throws while the held events are told keeps none of the others from hearing', () => {
    const heard: number[] = [];
    ingestor.on('event', (_id, event) => {
      if (event.seq === 1) throw new Error('listener broke');
      heard.push(event.seq);
    });
    write(line(1, { type: 'state.changed', to: 'queued' }) + line(2, { type: 'turn.started' }));
    const release = ingestor.hold();
    ingestor.ingest(ID);
    release();
    expect(heard).toEqual([2]);
    expect(readFileSync(logFile, 'utf8')).toContain('a listener failed on an ingested event');
  });
});
