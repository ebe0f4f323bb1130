import { describe, expect, it } from 'vitest';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const parse = (out: string): WorkspaceEvent[] =>
  out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as WorkspaceEvent);

describe('workspace events', () => {
  it('record what happened across sessions with one global sequence, for people and for scripts', async () => {
    await t.ok(['dispatch', 'x', '--name', 'one', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('one', 'ready_for_review');
    // The turn's provenance is recorded once it has ended (decision 251).
    await t.workspaceEvent((e) => e.type === 'provenance.recorded');
    await t.ok(['pin', 'one']);
    const events = parse(await t.ok(['events', '--json']));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(
      events.map((e) => (e.type === 'session.state_changed' ? `${e.type}:${e.data.to}` : e.type)),
    ).toEqual([
      'session.dispatched',
      'session.state_changed:queued',
      'session.state_changed:starting',
      'session.state_changed:working',
      'session.state_changed:ready_for_review',
      'provenance.recorded',
      'session.pinned',
    ]);
    const text = await t.ok(['events', '--after', '4']);
    expect(text).toMatch(/session\.state_changed\s+one: working → ready for review/);
    expect(text).toMatch(/session\.pinned\s+one pinned/);
    expect(text).not.toMatch(/dispatched/);
  });

  it('follow: replays from a sequence number, then prints live ones as they happen', async () => {
    await t.ok(['dispatch', 'x', '--name', 'one', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    await t.waitForState('one', 'ready_for_review');
    const follower = t.spawn(['events', '-f', '--json', '--after', '4']);
    const lines: WorkspaceEvent[] = [];
    const waiting: (() => void)[] = [];
    let buffer = '';
    // One listener for the whole test: output that arrives between two waits is kept.
    follower.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, nl)) as WorkspaceEvent);
        buffer = buffer.slice(nl + 1);
      }
      waiting.splice(0).forEach((wake) => wake());
    });
    const seen = async (type: string): Promise<void> => {
      while (!lines.some((e) => e.type === type)) await new Promise<void>((resolve) => waiting.push(resolve));
    };
    await seen('session.state_changed');
    expect(lines[0]).toMatchObject({
      seq: 5,
      type: 'session.state_changed',
      data: { name: 'one', to: 'ready_for_review' },
    });
    await t.ok(['rm', 'one']);
    await seen('session.removed');
    expect(lines.at(-1)).toMatchObject({ type: 'session.removed', data: { name: 'one' } });
    follower.kill('SIGINT');
  });
});
