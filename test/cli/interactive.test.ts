import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { OutputWatcher, exitOf } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

describe('following sessions live', () => {
  it('attach streams events, takes typed replies and y/n approvals, and Ctrl-C detaches without stopping', async () => {
    const steps = [
      { ask: 'which name?' },
      { approve: { tool: 'Bash', input: 'echo {{reply}} > name.txt' } },
      { say: 'named it' },
      { sleep: 600_000 },
    ];
    await t.ok(['dispatch', 'x', '--name', 'att', '--script', t.script(steps)], { cwd: repo });
    const attach = t.spawn(['attach', 'att'], { cwd: repo });
    const out = new OutputWatcher(attach.stdout!);
    await out.waitFor(/>>> att needs input: which name\?/);

    attach.stdin!.write('zebra\n');
    await out.waitFor(/>>> att needs input: approve Bash: .*\[y\/n\]/);
    attach.stdin!.write('y\n');
    await out.waitFor(/message\.added\s+assistant: named it/);
    const session = await t.waitForState('att', 'working');
    expect(readFileSync(join(session.worktree, 'name.txt'), 'utf8')).toBe('zebra\n');

    attach.kill('SIGINT');
    expect(await exitOf(attach)).toBe(0);
    const after = await t.json<SessionView>(['stop', 'att']);
    expect(after.state).toBe('stopped');
  });

  it('logs -f replays, then prints new events as JSON lines until interrupted', async () => {
    await t.ok(['dispatch', 'x', '--name', 'lf', '--script', t.script([{ ask: 'ok?' }, { say: 'thanks' }])], {
      cwd: repo,
    });
    const follow = t.spawn(['logs', 'lf', '-f', '--json']);
    const out = new OutputWatcher(follow.stdout!);
    await out.waitFor(/"type":"question\.asked"/);
    await t.ok(['reply', 'lf', 'sure']);
    await out.waitFor(/"to":"ready_for_review"/);
    follow.kill('SIGINT');
    expect(await exitOf(follow)).toBe(0);
    const events = out.all
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as BatonEvent);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'message.added', role: 'assistant', text: 'thanks' }),
    );
  });
});

describe('streams outlive the supervisor', () => {
  it('logs -f reconnects after the supervisor is killed, without repeating or skipping events', async () => {
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'rc',
        '--script',
        t.script([{ ask: 'first?' }, { ask: 'second?' }, { say: 'end' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('rc', 'needs_input');
    const follow = t.spawn(['logs', 'rc', '-f', '--json']);
    const out = new OutputWatcher(follow.stdout!);
    const err = new OutputWatcher(follow.stderr!);
    await out.waitFor(/"text":"first\?"/);
    const pid = t.supervisorPid();
    process.kill(pid, 'SIGKILL');
    await err.waitFor(/Reconnecting/);
    await t.ok(['reply', 'rc', 'one']);
    await out.waitFor(/"text":"second\?"/);
    await t.ok(['reply', 'rc', 'two']);
    await out.waitFor(/"to":"ready_for_review"/);
    follow.kill('SIGINT');
    expect(await exitOf(follow)).toBe(0);
    const seqs = out.all
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as BatonEvent).seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(t.supervisorPid()).not.toBe(pid);
  });
});
