/**
 * A session's append-only event log (`events.jsonl`): one JSON event per line, written by one
 * writer at a time (the session host while it runs, else the supervisor), read by offset.
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { makeEvent, parseEventText, type BatonEvent, type EventBody } from '../events/index.js';
import { DiskFullError, errorMessage, isDiskFull } from '../shared/errors.js';
import { plainText } from '../shared/text.js';
import { followSequence } from './sequence.js';

export interface LogReadResult {
  events: BatonEvent[];
  /** The byte offset of the line each event was read from (`starts[i]` for `events[i]`). */
  starts: number[];
  /**
   * The line each event was read from, when it may be stored as written (`texts[i]` for
   * `events[i]`; `parseEventText`, decision 410), else undefined: the event is written again.
   */
  texts: (string | undefined)[];
  /** Byte offset just past the last complete line read. */
  offset: number;
  /** The file's size when read: more is there to read when `offset` is short of it. */
  size: number;
  /** Lines that could not be parsed, with their byte offsets (reported, never fatal). */
  malformed: { offset: number; line: string; error: string }[];
  /** Lines that held a fragment of a torn write followed by a whole event: the event was kept. */
  torn: { offset: number; fragment: string }[];
}

const CHUNK = 1 << 20;

/**
 * Reads complete lines from `offset` — all of them, or about `maxBytes` worth — leaving a
 * trailing partial line for the next read.
 */
export function readLog(path: string, offset = 0, maxBytes = Number.POSITIVE_INFINITY): LogReadResult {
  const result: LogReadResult = {
    events: [],
    starts: [],
    texts: [],
    offset,
    size: offset,
    malformed: [],
    torn: [],
  };
  if (!existsSync(path)) return result;
  const fd = openSync(path, 'r');
  try {
    const fileSize = fstatSync(fd).size;
    result.size = fileSize;
    const size = Math.min(fileSize, offset + maxBytes);
    let position = offset;
    let carry = Buffer.alloc(0);
    while (position < size) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, size - position));
      const read = readSync(fd, buffer, 0, buffer.length, position);
      if (read === 0) break;
      position += read;
      const data =
        carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        const line = data.toString('utf8', start, nl);
        const lineOffset = result.offset;
        result.offset += nl - start + 1;
        start = nl + 1;
        if (line.trim() === '') continue;
        try {
          const parsed = parseEventText(line);
          result.events.push(parsed.event);
          result.starts.push(lineOffset);
          result.texts.push(parsed.asWritten ? line : undefined);
        } catch (error) {
          const recovered = afterTornWrite(line);
          if (recovered !== undefined) {
            result.events.push(recovered.event);
            result.starts.push(lineOffset);
            result.texts.push(recovered.text);
            result.torn.push({ offset: lineOffset, fragment: recovered.fragment.slice(0, 200) });
          } else
            result.malformed.push({
              offset: lineOffset,
              line: line.slice(0, 200),
              error: (error as Error).message.slice(0, 200),
            });
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

/**
 * A writer killed mid-line leaves a fragment without a newline, and the next append lands on the
 * same line. The whole event is the line's last `{"v":` that parses; the fragment before it is
 * what was torn.
 */
function afterTornWrite(
  line: string,
): { event: BatonEvent; text: string | undefined; fragment: string } | undefined {
  for (let at = line.lastIndexOf('{"v":'); at > 0; at = line.lastIndexOf('{"v":', at - 1)) {
    try {
      const whole = line.slice(at);
      const parsed = parseEventText(whole);
      return { event: parsed.event, text: parsed.asWritten ? whole : undefined, fragment: line.slice(0, at) };
    } catch {
      // not there: an earlier start, perhaps
    }
  }
  return undefined;
}

/**
 * Appends events, continuing the sequence found in the log. Only one writer may hold it.
 *
 * A full disk must lose no event and leave no fragment: every write is whole or undone (the file
 * cut back to where it was), and the sequence moves on only with what is kept. `append` (the
 * host's) keeps an event it cannot write yet in order in memory and writes the backlog when
 * space returns (retried every `retryMs`, and with every later append); `appendAll` (the
 * supervisor's, answering a command) writes all or nothing and throws `DiskFullError`.
 */
export class EventLogWriter {
  private readonly fd: number;
  private seq: number;
  private readonly backlog: BatonEvent[] = [];
  private retry: NodeJS.Timeout | undefined;
  private readonly drainedCallbacks: (() => void)[] = [];

  constructor(
    readonly path: string,
    lastSeq?: number,
    private readonly options: {
      retryMs?: number;
      onBlocked?: (error: string, held: number) => void;
      onUnblocked?: (written: number) => void;
    } = {},
  ) {
    this.seq = lastSeq ?? lastSeqOf(path);
    this.fd = openSync(path, 'a+');
    // A writer killed mid-line leaves a partial line; end it so our first event starts clean.
    if (!endsWithNewline(this.fd)) writeWhole(this.fd, Buffer.from('\n'));
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Events numbered but not yet on disk (the disk was full). */
  get held(): number {
    return this.backlog.length;
  }

  append(body: EventBody): BatonEvent {
    const event = makeEvent(this.seq + 1, plainBody(body));
    this.seq++;
    this.backlog.push(event);
    this.flush();
    return event;
  }

  /** Writes every body or none; a full disk throws `DiskFullError` with the log as it was. */
  appendAll(bodies: EventBody[]): BatonEvent[] {
    if (this.backlog.length > 0)
      throw new DiskFullError('writing a session event', 'events are still held from an earlier write');
    const events = bodies.map((body, i) => makeEvent(this.seq + 1 + i, plainBody(body)));
    try {
      writeWhole(this.fd, Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join('')));
    } catch (error) {
      if (isDiskFull(error)) throw new DiskFullError('writing a session event', errorMessage(error));
      throw error;
    }
    this.seq += events.length;
    return events;
  }

  /** Resolves once nothing is held: at once, or when the disk has room again. */
  drained(): Promise<void> {
    if (this.backlog.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedCallbacks.push(resolve));
  }

  close(): void {
    clearTimeout(this.retry);
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.backlog.length === 0) return;
    const wasBlocked = this.retry !== undefined;
    clearTimeout(this.retry);
    this.retry = undefined;
    try {
      writeWhole(this.fd, Buffer.from(this.backlog.map((e) => JSON.stringify(e) + '\n').join('')));
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      if (!wasBlocked) this.options.onBlocked?.(errorMessage(error), this.backlog.length);
      this.retry = setTimeout(() => this.flush(), this.options.retryMs ?? 1000);
      return;
    }
    const count = this.backlog.length;
    this.backlog.length = 0;
    if (wasBlocked) this.options.onUnblocked?.(count);
    for (const callback of this.drainedCallbacks.splice(0)) callback();
  }
}

/**
 * Writes all of `data` at the end of the file, or none: a short write (the disk filled midway)
 * is continued, and a failure cuts the file back to its length before, so no fragment is left.
 */
function writeWhole(fd: number, data: Buffer): void {
  const before = fstatSync(fd).size;
  let done = 0;
  try {
    while (done < data.length) done += writeSync(fd, data, done, data.length - done);
  } catch (error) {
    if (done > 0) ftruncateSync(fd, before);
    throw error;
  }
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 10;
}

/** The last seq of the log's sequence (sequence.ts): a repeated or out-of-place line does not move it. */
export function lastSeqOf(path: string): number {
  return followSequence(readLog(path).events, 0).lastSeq;
}

/**
 * Terminal output an event carries (a command's output, a setup step's, an agent's stderr) is
 * stored plain (decision 155): the log feeds `logs`, the page and the watchdog, none of which
 * want colour codes.
 */
function plainBody(body: EventBody): EventBody {
  switch (body.type) {
    case 'tool.finished':
      return body.output === undefined ? body : { ...body, output: plainText(body.output) };
    case 'setup.output':
      return { ...body, text: plainText(body.text) };
    case 'error.raised':
      return {
        ...body,
        message: plainText(body.message),
        ...(body.detail === undefined ? {} : { detail: plainText(body.detail) }),
      };
    case 'turn.completed':
      return body.error === undefined ? body : { ...body, error: plainText(body.error) };
    default:
      return body;
  }
}
