/**
 * A session's append-only event log (`events.jsonl`): one JSON event per line, written by one
 * writer at a time (the session host while it runs, else the supervisor), read by offset.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { makeEvent, parseEventLine, type BatonEvent, type EventBody } from '../events/index.js';

export interface LogReadResult {
  events: BatonEvent[];
  /** Byte offset just past the last complete line read. */
  offset: number;
  /** Lines that could not be parsed, with their byte offsets (reported, never fatal). */
  malformed: { offset: number; line: string; error: string }[];
}

const CHUNK = 1 << 20;

/**
 * Reads complete lines from `offset` — all of them, or about `maxBytes` worth — leaving a
 * trailing partial line for the next read.
 */
export function readLog(path: string, offset = 0, maxBytes = Number.POSITIVE_INFINITY): LogReadResult {
  const result: LogReadResult = { events: [], offset, malformed: [] };
  if (!existsSync(path)) return result;
  const fd = openSync(path, 'r');
  try {
    const fileSize = fstatSync(fd).size;
    const size = Math.min(fileSize, offset + maxBytes);
    let position = offset;
    let carry = Buffer.alloc(0);
    while (position < size) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, size - position));
      const read = readSync(fd, buffer, 0, buffer.length, position);
      if (read === 0) break;
      position += read;
      const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        const line = data.toString('utf8', start, nl);
        const lineOffset = result.offset;
        result.offset += nl - start + 1;
        start = nl + 1;
        if (line.trim() === '') continue;
        try {
          result.events.push(parseEventLine(line));
        } catch (error) {
          result.malformed.push({ offset: lineOffset, line: line.slice(0, 200), error: (error as Error).message.slice(0, 200) });
        }
      }
      carry = Buffer.from(data.subarray(start));
    }
    // One line longer than the budget: read further rather than stall on it.
    if (result.offset === offset && size < fileSize) return readLog(path, offset, maxBytes * 4);
  } finally {
    closeSync(fd);
  }
  return result;
}

/** Appends events, continuing the sequence found in the log. Only one writer may hold it. */
export class EventLogWriter {
  private readonly fd: number;
  private seq: number;

  constructor(readonly path: string, lastSeq?: number) {
    this.seq = lastSeq ?? lastSeqOf(path);
    this.fd = openSync(path, 'a+');
    // A writer killed mid-line leaves a partial line; end it so our first event starts clean.
    if (!endsWithNewline(this.fd)) writeSync(this.fd, '\n');
  }

  get lastSeq(): number {
    return this.seq;
  }

  append(body: EventBody): BatonEvent {
    this.seq++;
    const event = makeEvent(this.seq, body);
    writeSync(this.fd, JSON.stringify(event) + '\n');
    return event;
  }

  close(): void {
    closeSync(this.fd);
  }
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 10;
}

export function lastSeqOf(path: string): number {
  const { events } = readLog(path);
  return events.length === 0 ? 0 : (events[events.length - 1]?.seq ?? 0);
}
