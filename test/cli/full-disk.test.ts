/**
 * The state folder runs out of space mid-session (a small tmpfs as BATON_HOME, filled to the
 * last byte), and then has room again. What must hold: the supervisor stays up and answers;
 * a command it cannot carry out says the disk is full (507 `disk_full`), never a bare 500; a
 * dispatch leaves nothing half-made; the session's state is truthful (its agent's failed write
 * is told as such); once space returns, every event is there exactly once and in order, in the
 * log and in SQLite; SQLite is not corrupt.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatonEvent } from '../../src/events/index.js';
import { TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';
import { SmallDisk } from '../support/small-disk.js';

let t: TestBaton;
let disk: SmallDisk;
beforeEach(() => {
  t = new TestBaton();
  disk = new SmallDisk(t.home, 48);
});
afterEach(() => {
  if (process.env.KEEP_DISK !== undefined) return;
  // Lazily: the supervisor and hosts still have their working folder there until cleanup kills them.
  disk.unmount();
  t.cleanup();
});

function logOnDisk(id: string): BatonEvent[] {
  return readFileSync(join(t.home, 'sessions', id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BatonEvent);
}

describe('the state folder runs out of space', () => {
  it('keeps the supervisor up, says "disk full", loses and repeats no event, and tells the truth about the session', async () => {
    const repo = t.repo();
    await t.ok(['daemon', 'start']);
    const pid = t.supervisorPid();
    const script = t.script([{ ask: 'go on?' }], {
      onReply: [{ write: { path: 'big.txt', content: 'x'.repeat(4096) } }, { say: 'wrote it' }],
    });
    await t.ok(['dispatch', 'x', '--name', 'full', '--script', script], { cwd: repo });
    const { id } = await t.waitForState('full', 'needs_input');

    disk.fill();
    expect(disk.freeBytes()).toBe(0);

    // The reply is taken (the host has it in its log, or holds it in order): the answer says so,
    // not "disk full", or a retry would send it twice. The store catches up once there is room.
    const reply = await callApi(t.home, 'POST', '/api/sessions/full/reply', { text: 'go' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);

    // A dispatch cannot make its worktree: it says why and leaves nothing behind.
    const dispatch = await callApi(t.home, 'POST', '/api/sessions', {
      prompt: 'y',
      cwd: repo,
      name: 'second',
      options: { script: { steps: [{ say: 'hi' }] } },
    });
    expect(dispatch.status, JSON.stringify(dispatch.body)).toBe(507);
    expect(dispatch.body).toMatchObject({ error: { code: 'disk_full' } });
    expect((dispatch.body as { error: { message: string } }).error.message).toMatch(/disk .* is full/);
    expect(t.git(repo, 'branch', '--list', 'baton/second')).toBe('');
    expect(existsSync(join(t.home, 'worktrees', 'repo', 'second'))).toBe(false);
    // The command line says the same in one line, with its own exit code.
    const cli = await t.run(['dispatch', 'z', '--name', 'third', '--script', t.script([{ say: 'hi' }])], {
      cwd: repo,
    });
    expect(cli.code, cli.stderr).toBe(9);
    expect(cli.stderr).toMatch(
      /^baton: The disk holding Baton's state is full .*free some space and retry\.\n$/,
    );

    // Other commands answer: reads work, writes say the disk is full.
    for (const [method, path] of [
      ['GET', '/api/sessions'],
      ['GET', '/api/sessions/full/peek'],
      ['POST', '/api/sessions/full/pin'],
      ['GET', '/api/health'],
    ] as const) {
      const answer = await callApi(t.home, method, path, method === 'POST' ? { pinned: true } : undefined);
      if (answer.status !== 200)
        expect(answer, `${method} ${path}`).toMatchObject({
          status: 507,
          body: { error: { code: 'disk_full' } },
        });
    }
    expect((await t.run(['ls'])).code).toBe(0);

    // Room again: everything held is written, once and in order, and the state is truthful.
    disk.free();
    const settled = await t
      .waitForState('full', 'failed', 30_000)
      .catch(async () => t.waitForState('full', 'ready_for_review', 5_000));
    const events = logOnDisk(id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const stored = (await t.ok(['logs', id, '--json']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as BatonEvent);
    expect(stored.map((e) => [e.seq, e.type])).toEqual(events.map((e) => [e.seq, e.type]));
    expect(events.filter((e) => e.type === 'message.added' && e.role === 'user')).toHaveLength(1);
    // Truthful either way: failed with the reason, or the turn went on and the failed write is told as such.
    if (settled.state === 'failed') expect(JSON.stringify(settled.reason)).toMatch(/ENOSPC|no space/i);
    else
      expect(
        JSON.stringify(events.filter((e) => e.type === 'tool.finished' || e.type === 'error.raised')),
      ).toMatch(/ENOSPC|no space/i);

    const health = await t.client().call('GET /api/health');
    expect(health.pid).toBe(pid);
    const db = new Database(join(t.home, 'baton.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    // And it works as before: a new session runs to the end.
    await t.ok(['dispatch', 'y', '--name', 'after', '--script', t.script([{ say: 'room again' }])], {
      cwd: repo,
    });
    await t.waitForState('after', 'ready_for_review');
  });
});
