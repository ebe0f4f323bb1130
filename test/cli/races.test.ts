/**
 * Races: twenty clients act on one session at once — approving, denying, replying, stopping,
 * respawning. Whatever order they land in: one decision per approval, turns that never
 * overlap, and a state that agrees with the session's own log.
 */
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

async function call(method: string, path: string, body?: unknown): Promise<number> {
  return (await callApi(t.home, method, path, body)).status;
}

async function log(ref: string): Promise<BatonEvent[]> {
  return (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as BatonEvent);
}

describe('twenty clients at once on one session', () => {
  it('approving and denying: exactly one decision is applied', async () => {
    const script = t.script([
      { approve: { tool: 'Bash', input: 'echo hi', reason: 'runs a command' } },
      { say: 'after' },
    ]);
    await t.ok(['dispatch', 'x', '--name', 'gate', '--script', script], { cwd: repo });
    await t.waitForState('gate', 'needs_input');
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('POST', '/api/sessions/gate/approval', {
          decision: i % 2 === 0 ? 'allow' : 'deny',
          reason: `client ${i}`,
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 409)).toBe(true);
    await t.waitForState('gate', 'ready_for_review');
    expect((await log('gate')).filter((e) => e.type === 'approval.resolved')).toHaveLength(1);
  });

  it('replying, stopping and respawning: turns never overlap and the state agrees with the log', async () => {
    const script = t.script([{ ask: 'go?' }], { onReply: [{ say: 'on {{reply}}' }, { sleep: 20 }] });
    await t.ok(['dispatch', 'x', '--name', 'mixed', '--script', script], { cwd: repo });
    await t.waitForState('mixed', 'needs_input');
    const actions = Array.from({ length: 20 }, (_, i) => {
      if (i % 7 === 3) return call('POST', '/api/sessions/mixed/stop');
      if (i % 7 === 5) return call('POST', '/api/sessions/mixed/respawn');
      return call('POST', '/api/sessions/mixed/reply', { text: `r${i}` });
    });
    const statuses = await Promise.all(actions);
    // Refusals are the client's answer (a conflict), never a server error.
    expect(statuses.filter((s) => s >= 500)).toEqual([]);

    // Let whatever was accepted finish: the session ends up not mid-turn.
    const settled = await settle('mixed');
    const events = await log('mixed');
    let open = 0;
    for (const e of events) {
      if (e.type === 'turn.started') open++;
      if (e.type === 'turn.completed') open--;
      if (e.type === 'session.started') open = 0;
      expect(open).toBeLessThanOrEqual(1);
      expect(open).toBeGreaterThanOrEqual(0);
    }
    const lastState = events.filter((e) => e.type === 'state.changed').at(-1);
    expect(lastState?.type === 'state.changed' ? lastState.to : undefined).toBe(settled.state);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });
});

describe('removing one session from several clients at once', () => {
  it('removes it once, keeps its uncommitted work, and answers the others "not found", never a 5xx', async () => {
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'twice',
        '--script',
        t.script([{ write: { path: 'work.txt', content: 'uncommitted\n' } }]),
      ],
      { cwd: repo },
    );
    const { id } = await t.waitForState('twice', 'ready_for_review');
    // By name, id and id prefix, while a respawn asks to start it again in the same worktree.
    const answers = await Promise.all([
      ...['twice', id, id.slice(0, 6), 'twice', id].map((ref) =>
        callApi(t.home, 'DELETE', `/api/sessions/${ref}`),
      ),
      callApi(t.home, 'POST', `/api/sessions/${id}/respawn`),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s >= 500),
      JSON.stringify(answers),
    ).toEqual([]);
    expect(answers.slice(0, 5).filter((a) => a.status === 200)).toHaveLength(1);
    const removed = answers.find((a) => a.status === 200)?.body as { snapshotRef: string | null };
    expect(removed.snapshotRef).not.toBeNull();
    expect(t.git(repo, 'show', `${removed.snapshotRef as string}:work.txt`)).toBe('uncommitted');
    expect(t.git(repo, 'worktree', 'list', '--porcelain')).not.toContain('twice');
  });
});

/** Waits until the session is in a state where nothing runs by itself, and returns it. */
async function settle(ref: string): Promise<SessionView> {
  for (;;) {
    const [session] = (await t.json<SessionView[]>(['ls', '--json'])).filter((s) => s.name === ref);
    if (session === undefined) throw new Error(`${ref} is gone`);
    if (['ready_for_review', 'stopped', 'failed', 'completed'].includes(session.state)) {
      // One more look after the log goes quiet: a queued reply may start its turn yet.
      const again = await t.waitForState(ref, session.state, 5_000);
      if (again.state === session.state) return again;
    }
    await t.waitForEvent(ref, (e) => e.seq > session.lastSeq, 10_000);
  }
}
