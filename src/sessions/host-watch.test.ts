import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { within } from '../../test/support/wait.js';
import { HostWatch } from './host-watch.js';

let dir: string;
let host: Server;
let watch: HostWatch | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-host-watch-'));
  // A live host socket: without one the watch ends at once, as for a host that is gone.
  host = createServer(() => undefined);
  await new Promise<void>((resolve) => host.listen(join(dir, 'host.sock'), resolve));
});
afterEach(async () => {
  watch?.close();
  await new Promise((resolve) => host.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('HostWatch', () => {
  it('still sees lines written to a log it could not watch, from its safety poll', async () => {
    // No file yet, so fs.watch cannot be set up: only the poll is left to notice the writes.
    const log = join(dir, 'events.jsonl');
    const seen: string[] = [];
    const written = new Promise<void>((resolve) => {
      watch = new HostWatch(log, join(dir, 'host.sock'), () => {
        const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
        seen.push(text);
        if (text.includes('"seq":1')) resolve();
      });
    });
    // After the first read (the one made at once, for lines written before the watch began).
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    expect(seen).toEqual(['']);
    appendFileSync(log, '{"seq":1}\n');
    // The poll runs every second; five allow for a slow machine.
    await within(written, 5_000, 'a read of the line written after the watch began');
    expect(seen.at(-1)).toBe('{"seq":1}\n');
  });
});
