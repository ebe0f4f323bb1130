import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { exitOf, OutputWatcher } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('commands do what their help says', () => {
  it('interrupt ends the turn and leaves the session waiting for a reply, which starts the next turn', async () => {
    const script = t.script([{ say: 'long job' }, { sleep: 60_000 }], { onReply: [{ say: 'steered: {{reply}}' }] });
    await t.ok(['dispatch', 'x', '--name', 'int', '--script', script], { cwd: repo });
    await t.waitForEvent('int', (e) => e.type === 'message.added' && e.text === 'long job');
    await t.ok(['interrupt', 'int'], { cwd: repo });
    const waiting = await t.waitForState('int', 'needs_input');
    expect(waiting.reason).toEqual({ kind: 'note', message: 'turn interrupted by you; reply to steer the agent' });
    await t.ok(['reply', 'int', 'do the short one'], { cwd: repo });
    await t.waitForEvent('int', (e) => e.type === 'message.added' && e.text === 'steered: do the short one');
    await t.waitForState('int', 'ready_for_review');
  });

  it('respawn refuses a session that is ready with its agent up; reply and approve say what to do instead', async () => {
    await t.ok(['dispatch', 'x', '--name', 'ready', '--script', t.script([{ say: 'done' }])], { cwd: repo });
    await t.waitForState('ready', 'ready_for_review');
    const respawn = await t.run(['respawn', 'ready'], { cwd: repo });
    expect([respawn.code, respawn.stderr]).toEqual([4, 'baton: Session ready is ready for review and its agent is still up: there is nothing to respawn. Send it more work with: baton reply ready "…"\n']);
    const log = await t.ok(['logs', 'ready', '--json'], { cwd: repo });
    expect(log).toContain('"to":"ready_for_review"');
    expect(log).not.toContain('"to":"stopped"');

    await t.ok(['done', 'ready'], { cwd: repo });
    const reply = await t.run(['reply', 'ready', 'more'], { cwd: repo });
    expect(reply.stderr).toBe('baton: Cannot reply to ready: it is completed (marked done); to go on with the work, dispatch a new session.\n');

    await t.ok(['dispatch', 'x', '--name', 'asks', '--script', t.script([{ ask: 'which file?' }])], { cwd: repo });
    await t.waitForState('asks', 'needs_input');
    const approve = await t.run(['approve', 'asks'], { cwd: repo });
    expect(approve.stderr).toBe('baton: Session asks is not waiting for an approval; it is waiting for an answer: baton reply asks "…".\n');
  });
});

describe('reading a session', () => {
  it('path prints the worktree; logs -n tails, --full prints whole output, -f ends when the session completes', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    await t.ok(['dispatch', 'x', '--name', 'out', '--script', t.script([{ run: ['printf', '%s', long] }, { say: 'done' }])], { cwd: repo });
    const done = await t.waitForState('out', 'ready_for_review');
    expect(await t.ok(['path', 'out'], { cwd: repo })).toBe(`${done.worktree}\n`);

    const tail = (await t.ok(['logs', 'out', '-n', '2'], { cwd: repo })).trim().split('\n');
    expect(tail.map((l) => Number(l.trim().split(' ')[0]))).toEqual([done.lastSeq - 1, done.lastSeq]);
    const full = await t.ok(['logs', 'out', '--full'], { cwd: repo });
    expect(full).toContain('│ line 29');
    expect(await t.ok(['logs', 'out'], { cwd: repo })).not.toContain('line 29');
    const bad = await t.run(['logs', 'out', '-n', 'abc'], { cwd: repo });
    expect([bad.code, bad.stderr]).toEqual([2, 'baton: --lines must be a whole number of events, 1 or more, got "abc"\n']);

    const follower = t.spawn(['logs', 'out', '-f'], { cwd: repo });
    const out = new OutputWatcher(follower.stdout!);
    await out.waitFor(/turn\.completed/);
    await t.ok(['done', 'out'], { cwd: repo });
    expect(await exitOf(follower)).toBe(0);
  });

  it('errors are one JSON object with --json, and daemon logs reads as text', async () => {
    const missing = await t.run(['peek', 'nobody', '--json'], { cwd: repo });
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr)).toEqual({ error: expect.objectContaining({ code: 'not_found', exitCode: 3 }) });
    const usage = await t.run(['ls', '--bogus', '--json'], { cwd: repo });
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr).error.message).toContain('--bogus');

    const text = await t.ok(['daemon', 'logs', '-n', '3']);
    expect(text).toMatch(/^\d\d:\d\d:\d\d (info |warn |error|debug) \S+/m);
    expect(text).not.toContain('{"time"');
    expect((await t.run(['daemon', 'logs', '-n', 'abc'])).code).toBe(2);
  });

  it('ui says so when the opener finds no browser', async () => {
    const opener = join(t.root, 'no-browser');
    writeFileSync(opener, '#!/bin/sh\necho "no method available for opening" >&2\nexit 3\n');
    chmodSync(opener, 0o755);
    const result = await t.run(['ui'], { cwd: repo, env: { BATON_OPENER: opener } });
    expect(result.stdout).toMatch(/^Could not open a browser here; open the dashboard yourself:\n {2}http:\/\/127\.0\.0\.1:\d+\/login\?code=/);
    const session = await t.json<SessionView[]>(['ls', '--json']);
    expect(session).toEqual([]);
  });
});
