import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

/** A reply straight to the API, as any client (a page, a script) would send it. */
async function reply(
  ref: string,
  text: string,
  clientId?: string,
): Promise<{ status: number; state: string }> {
  const { status, body } = await callApi(t.home, 'POST', `/api/sessions/${ref}/reply`, {
    text,
    ...(clientId === undefined ? {} : { clientId }),
  });
  return { status, state: (body as { session?: { state: string } }).session?.state ?? '' };
}

async function events(ref: string): Promise<BatonEvent[]> {
  const out = await t.ok(['logs', ref, '--json']);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
}

/** Turn starts and ends in log order: a well-behaved session alternates them. */
function turns(log: BatonEvent[]): string {
  return log
    .filter((e) => e.type === 'turn.started' || e.type === 'turn.completed')
    .map((e) => (e.type === 'turn.started' ? '(' : ')'))
    .join('');
}

describe('replies', () => {
  it('sent all at once run as one turn each, in order, never overlapping', async () => {
    const script = t.script([{ ask: 'ready?' }], {
      onReply: [{ say: 'start {{reply}}' }, { sleep: 50 }, { say: 'end {{reply}}' }],
    });
    await t.ok(['dispatch', 'x', '--name', 'busy', '--script', script], { cwd: repo });
    await t.waitForState('busy', 'needs_input');
    const texts = Array.from({ length: 20 }, (_, i) => `r${i}`);
    const answers = await Promise.all(texts.map((text) => reply('busy', text)));
    expect(answers.map((a) => a.status)).toEqual(texts.map(() => 200));

    // The first reply answers the question inside the first turn; the other 19 are a turn each.
    const settled = await waitForEnds('busy', 19);
    expect(turns(settled)).toBe('()'.repeat(20));
    const users = settled
      .filter((e) => e.type === 'message.added' && e.role === 'user')
      .map((e) => (e.type === 'message.added' ? e.text : ''));
    expect(users.sort()).toEqual([...texts].sort());
    // Each turn's prompt is one reply, and each says its own start and end with nothing between.
    const said = settled
      .map((e) => (e.type === 'message.added' && e.role === 'assistant' ? e.text : ''))
      .filter((text) => /^(start|end) r/.test(text));
    expect(said).toHaveLength(38);
    for (let i = 0; i < said.length; i += 2) expect(said[i]?.replace('start', 'end')).toBe(said[i + 1]);
    expect((await t.waitForState('busy', 'ready_for_review')).state).toBe('ready_for_review');
  });

  it('sent the moment a dispatch answers wait for its host to finish starting, and run as the next turn', async () => {
    const script = t.script([{ say: 'first turn' }], { onReply: [{ say: 'got {{reply}}' }] });
    const session = await t.json<{ state: string }>(
      ['dispatch', 'x', '--name', 'fresh', '--script', script],
      { cwd: repo },
    );
    // The answer came before the host was ready (decision 310): the reply waits for it, not fails.
    expect(session.state).toBe('starting');
    const answer = await reply('fresh', 'right away');
    expect(answer.status).toBe(200);
    await t.waitForEvent(
      'fresh',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'got right away',
    );
    expect((await t.waitForState('fresh', 'ready_for_review')).state).toBe('ready_for_review');
  });

  it('to a busy session are taken at once and run as the next turn, and a retry with the same client id is applied once', async () => {
    const script = t.script(
      [{ say: 'working' }, { run: ['sh', '-c', 'while [ ! -f go ]; do sleep 0.05; done'] }],
      { onReply: [{ say: 'got {{reply}}' }] },
    );
    const session = await t.json<{ worktree: string }>(
      ['dispatch', 'x', '--name', 'long', '--script', script],
      { cwd: repo },
    );
    await t.waitForEvent('long', (e) => e.type === 'tool.started');
    // The step runs until the test lets it go: the reply is answered while it still runs.
    const first = await reply('long', 'after this', 'client-1');
    expect(first).toEqual({ status: 200, state: 'working' });
    const retry = await reply('long', 'after this', 'client-1');
    expect(retry.status).toBe(200);

    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(session.worktree, 'go'), '');
    await t.waitForEvent(
      'long',
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'got after this',
    );
    await t.waitForState('long', 'ready_for_review');
    const log = await events('long');
    expect(turns(log)).toBe('()()');
    expect(log.filter((e) => e.type === 'message.added' && e.role === 'user')).toHaveLength(1);
  });
});

/** Waits until the log holds `n` completed reply turns after the first, then returns it. */
async function waitForEnds(ref: string, n: number): Promise<BatonEvent[]> {
  let completed = 0;
  await t.waitForEvent(
    ref,
    (e) => {
      if (e.type === 'turn.completed') completed++;
      return completed === n + 1;
    },
    30_000,
  );
  return events(ref);
}
