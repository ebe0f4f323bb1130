import { once } from 'node:events';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { makeEvent, type BatonEvent } from '../../src/events/index.js';
import { readLog } from '../../src/sessions/event-log.js';
import { BIN, TestBaton } from '../support/baton.js';
import { spawn } from 'node:child_process';

let t: TestBaton;
beforeEach(() => {
  t = new TestBaton();
});
afterEach(() => t.cleanup());

/** More events than one page of the events endpoint (10,000), and far more than a pipe holds. */
const EXTRA = 10_500;

/**
 * A finished session whose log holds `EXTRA` more messages, written while the supervisor was
 * stopped (much cheaper than a script of that many steps); the next supervisor ingests them.
 */
async function longSession(): Promise<{ total: number }> {
  const repo = t.repo();
  const session = await t.json<SessionView>(
    ['dispatch', 'x', '--name', 'long', '--script', t.script([{ say: 'hi' }])],
    { cwd: repo },
  );
  await t.waitForState('long', 'ready_for_review');
  await t.ok(['daemon', 'stop']);
  const file = join(t.home, 'sessions', session.id, 'events.jsonl');
  const last = readLog(file).events.at(-1)?.seq ?? 0;
  const lines: string[] = [];
  for (let i = 1; i <= EXTRA; i++)
    lines.push(
      JSON.stringify(makeEvent(last + i, { type: 'message.added', role: 'assistant', text: `line ${i}` })),
    );
  appendFileSync(file, lines.join('\n') + '\n');
  return { total: last + EXTRA };
}

/** Runs the CLI with its stdout read by a consumer that takes each chunk only a few turns of the event loop later. */
async function runIntoSlowPipe(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: t.root,
    env: t.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const chunks: Buffer[] = [];
  const slow = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(() => setImmediate(() => setImmediate(done)));
    },
  });
  child.stdout.pipe(slow);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (!slow.writableFinished) await once(slow, 'finish');
  return { code, stdout: Buffer.concat(chunks).toString('utf8') };
}

function seqs(jsonLines: string): number[] {
  return jsonLines
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as BatonEvent).seq);
}

describe('logs prints every event, however many and wherever its output goes', () => {
  it('writes all of a session with more than 10,000 events into a file, a slow pipe, and as text', async () => {
    const { total } = await longSession();
    const every = Array.from({ length: total }, (_, i) => i + 1);

    // Into a file (`baton logs long --json > f`): the first command also starts the supervisor, which ingests the backlog.
    const path = join(t.root, 'logs.jsonl');
    const fd = openSync(path, 'w');
    const child = spawn(process.execPath, [BIN, 'logs', 'long', '--json'], {
      cwd: t.root,
      env: t.env,
      stdio: ['ignore', fd, 'inherit'],
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    closeSync(fd);
    expect(code).toBe(0);
    expect(seqs(readFileSync(path, 'utf8'))).toEqual(every);

    // Into a pipe read slowly (`baton logs long --json | slow-reader`).
    const piped = await runIntoSlowPipe(['logs', 'long', '--json']);
    expect(piped.code).toBe(0);
    expect(seqs(piped.stdout)).toEqual(every);

    // As text, into the same slow pipe: one line per event, the last one included.
    const text = await runIntoSlowPipe(['logs', 'long']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(total);
    expect(lines.at(-1)).toContain(`line ${EXTRA}`);
  });
});
