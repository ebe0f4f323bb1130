/** The event log on a full disk (a small tmpfs filled to the last byte): held, not lost, not torn, not repeated. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SmallDisk } from '../../test/support/small-disk.js';
import { DiskFullError } from '../shared/errors.js';
import { EventLogWriter, readLog } from './event-log.js';

let root: string;
let disk: SmallDisk;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-full-'));
  disk = new SmallDisk(join(root, 'disk'), 1);
});
afterEach(() => {
  disk.unmount();
  rmSync(root, { recursive: true, force: true });
});

const big = (n: number) => ({
  type: 'message.added' as const,
  role: 'assistant' as const,
  text: `${n}:${'x'.repeat(20_000)}`,
});

describe('the event log on a full disk', () => {
  it('holds what it cannot write, in order, and writes it once when space returns; the file never holds a fragment', async () => {
    const path = join(disk.dir, 'events.jsonl');
    const blocked: string[] = [];
    const writer = new EventLogWriter(path, undefined, {
      retryMs: 10,
      onBlocked: (error) => blocked.push(error),
    });
    writer.append(big(1));
    disk.fill();
    const sizeWhenFull = statSync(path).size;

    const held = [
      writer.append(big(2)),
      writer.append({ type: 'turn.completed', outcome: 'success' }),
      writer.append(big(3)),
    ];
    expect(held.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(writer.held).toBe(3);
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatch(/ENOSPC/);
    // Nothing half-written while full: the file is as it was.
    expect(statSync(path).size).toBe(sizeWhenFull);
    expect(readLog(path).events.map((e) => e.seq)).toEqual([1]);

    disk.free();
    await writer.drained();
    writer.append({ type: 'turn.started' });
    writer.close();
    const { events, malformed, torn } = readLog(path);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events.map((e) => (e.type === 'message.added' ? e.text.split(':')[0] : e.type))).toEqual([
      '1',
      '2',
      'turn.completed',
      '3',
      'turn.started',
    ]);
    expect(malformed).toEqual([]);
    expect(torn).toEqual([]);
  });

  it('writes all of a batch or none of it, and says the disk is full', () => {
    const path = join(disk.dir, 'events.jsonl');
    const first = new EventLogWriter(path);
    first.appendAll([{ type: 'turn.started' }]);
    first.close();
    disk.fill();
    const before = readFileSync(path, 'utf8');
    const writer = new EventLogWriter(path);
    expect(() => writer.appendAll([big(1), big(2)])).toThrow(DiskFullError);
    expect(() => writer.appendAll([big(1)])).toThrow(/disk holding Baton's state is full/);
    expect(readFileSync(path, 'utf8')).toBe(before);
    disk.free();
    expect(writer.appendAll([{ type: 'turn.completed', outcome: 'success' }]).map((e) => e.seq)).toEqual([2]);
    writer.close();
    expect(readLog(path).events.map((e) => e.seq)).toEqual([1, 2]);
  });
});
