import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLogWriter, readLog } from './event-log.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-log-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the event log', () => {
  it('continues the sequence across writers and reads by offset', () => {
    const path = join(dir, 'events.jsonl');
    const first = new EventLogWriter(path);
    first.append({ type: 'turn.started' });
    first.append({ type: 'message.added', role: 'assistant', text: 'hi' });
    first.close();
    const second = new EventLogWriter(path);
    expect(second.append({ type: 'turn.completed', outcome: 'success' }).seq).toBe(3);
    second.close();

    const all = readLog(path);
    expect(all.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    const tail = readLog(path, readLog(path).offset);
    expect(tail.events).toEqual([]);
    const fromSecond = readLog(path, Buffer.byteLength(JSON.stringify(all.events[0]) + '\n'));
    expect(fromSecond.events.map((e) => e.seq)).toEqual([2, 3]);
  });

  it('reads in bounded batches that together cover the log, even past an oversized line', () => {
    const path = join(dir, 'events.jsonl');
    const writer = new EventLogWriter(path);
    for (let i = 0; i < 50; i++)
      writer.append({
        type: 'message.added',
        role: 'assistant',
        text: i === 20 ? 'x'.repeat(5000) : `line ${i}`,
      });
    writer.close();
    const seqs: number[] = [];
    let batches = 0;
    for (let offset = 0; ; batches++) {
      const batch = readLog(path, offset, 1000);
      if (batch.events.length === 0) break;
      seqs.push(...batch.events.map((e) => e.seq));
      offset = batch.offset;
    }
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(batches).toBeGreaterThanOrEqual(3);
  });

  it('leaves a partial last line for the next read, then reads it whole', () => {
    const path = join(dir, 'events.jsonl');
    const line = JSON.stringify({ v: 1, seq: 1, ts: 'now', type: 'turn.started' });
    writeFileSync(path, line.slice(0, 10));
    const partial = readLog(path);
    expect(partial.events).toEqual([]);
    expect(partial.offset).toBe(0);
    appendFileSync(path, line.slice(10) + '\n');
    expect(readLog(path, partial.offset).events).toHaveLength(1);
  });

  it('reports malformed lines without failing, and a new writer starts on a fresh line', () => {
    const path = join(dir, 'events.jsonl');
    writeFileSync(
      path,
      '{"v":1,"seq":1,"ts":"x","type":"turn.started"}\nnot json\n{"v":1,"seq":2,"ts":"x","type":"bogus.kind"}\n{"v":1,"seq":2,"ts":"x","ty',
    );
    const writer = new EventLogWriter(path);
    expect(writer.append({ type: 'turn.completed', outcome: 'success' }).seq).toBe(2);
    writer.close();
    const result = readLog(path);
    expect(result.events.map((e) => e.type)).toEqual(['turn.started', 'turn.completed']);
    expect(result.malformed.map((m) => m.line.slice(0, 8))).toEqual(['not json', '{"v":1,"', '{"v":1,"']);
  });
});
