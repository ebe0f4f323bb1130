/**
 * A session's log as the supervisor reads it (decision 167), through the real binary: a line
 * repeated by hand and a forged one claiming seq + 50, written while the supervisor is down,
 * are skipped and reported; `logs --json` shows each message once, under the seq the file
 * holds; the session's next turn is stored under the host's own numbers.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const logged = async (ref: string): Promise<BatonEvent[]> =>
  (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as BatonEvent);

const fileEvents = (path: string): BatonEvent[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as BatonEvent);

describe('ingestion by the seq each line claims', () => {
  it('a repeated line and a forged seq + 50 are skipped and said; the store keeps the file’s numbers', async () => {
    const script = t.script([{ say: 'hello once' }, { ask: 'more?' }, { say: 'second turn' }]);
    const s = await t.json<SessionView>(['dispatch', 'x', '--name', 'dup', '--script', script], {
      cwd: repo,
    });
    await t.waitForState('dup', 'needs_input');
    const path = join(t.home, 'sessions', s.id, 'events.jsonl');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    const hello = lines.find((l) => l.includes('hello once'))!;
    const last = JSON.parse(lines.at(-1)!) as BatonEvent;

    await t.ok(['daemon', 'stop']);
    appendFileSync(path, `${hello}\n`);
    const forged = { ...(JSON.parse(hello) as BatonEvent), seq: last.seq + 50, text: 'forged' };
    appendFileSync(path, `${JSON.stringify(forged)}\n`);

    // The next supervisor reads the log: the repeat is dropped, the forged line waited on.
    const before = await logged('dup');
    expect(before.filter((e) => e.type === 'message.added' && e.text === 'hello once')).toHaveLength(1);
    expect(before.some((e) => e.type === 'message.added' && e.text === 'forged')).toBe(false);
    expect(before.at(-1)?.seq).toBe(last.seq);

    // The host goes on from its own numbers; the forged line is then out of place and skipped.
    await t.ok(['reply', 'dup', 'go on']);
    await t.waitForEvent('dup', (e) => e.type === 'message.added' && e.text === 'second turn');
    await t.waitForState('dup', 'ready_for_review');
    const after = await logged('dup');
    const inFile = fileEvents(path).filter((e) => !(e.type === 'message.added' && e.text === 'forged'));
    // Each stored event is the file's line with the same seq: nothing renumbered.
    for (const event of after) expect(inFile.find((e) => e.seq === event.seq)).toEqual(event);
    expect(after.map((e) => e.seq)).toEqual([...new Set(inFile.map((e) => e.seq))]);
    expect(after.filter((e) => e.type === 'message.added' && e.text === 'hello once')).toHaveLength(1);

    const warnings = readFileSync(join(t.home, 'supervisor.log'), 'utf8');
    expect(warnings).toMatch(/event log line skipped: its seq was already taken/);
    expect(warnings).toMatch(/event log gap: waiting for the next seq/);
    expect(warnings).toMatch(/event log line skipped: its seq is out of place/);
  });
});
